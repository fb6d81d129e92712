"""The workers' cache of unpacked problem packages: a folder used within two weeks stays,
one nobody used for longer and an unpacking a killed worker left are removed, and a use
keeps a folder alive. No database: the cache is plain folders."""

from __future__ import annotations

import os
import time
from pathlib import Path

from config import Settings
from worker import packages
from worker.runtime import Runtime


def aged(path: Path, seconds: float) -> Path:
    path.mkdir(parents=True)
    (path / "problem.toml").write_text("x")
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_unused_packages_and_dead_unpackings_are_pruned_and_used_ones_stay(tmp_path):
    runtime = Runtime(Settings(data_dir=tmp_path, secret_key="k" * 40))
    root = packages.cache_root(runtime)
    old = aged(root / ("a" * 64), packages.CACHE_KEEP_S + 60)
    recent = aged(root / ("b" * 64), packages.CACHE_KEEP_S - 3600)
    dead_unpacking = aged(root / ".unpacking-dead", packages.STAGING_KEEP_S + 60)
    live_unpacking = aged(root / ".unpacking-live", 10)
    used_again = aged(root / ("c" * 64), packages.CACHE_KEEP_S + 60)

    # A grading looks the old folder up: it is found (no database asked) and counts as used.
    assert packages.package_folder(runtime, "slug", "c" * 64) == used_again

    removed = packages.prune_cache(runtime)

    assert sorted(removed) == sorted([old.name, dead_unpacking.name])
    assert sorted(p.name for p in root.iterdir()) == sorted(
        [recent.name, live_unpacking.name, used_again.name]
    )
    assert packages.prune_cache(runtime) == []


def test_pruning_a_cache_that_was_never_filled_does_nothing(tmp_path):
    runtime = Runtime(Settings(data_dir=tmp_path / "never", secret_key="k" * 40))
    assert packages.prune_cache(runtime) == []

"""The sandbox layout kept on disk between command-line runs: used only while it is true and
ours, since it decides which host files a submission can read."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from judge.sandbox import default_python
from judge.sandbox.layout import layout_for


def cache_file(cache_dir: Path) -> Path:
    (found,) = cache_dir.glob("sandbox-layout-*.json")
    return found


def test_the_cached_layout_is_the_computed_one(tmp_path: Path):
    python = default_python()
    cache_dir = tmp_path / "cache"
    first = layout_for(python, str(cache_dir))
    assert first == layout_for(python)
    path = cache_file(cache_dir)
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0
    assert layout_for(python, str(cache_dir)) == first


def tamper(path: Path, change) -> None:
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


def test_an_extra_bind_in_a_cache_others_can_write_is_ignored(tmp_path: Path):
    python = default_python()
    layout = layout_for(python, str(tmp_path))
    path = cache_file(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text("hidden boards")
    tamper(path, lambda r: r["binds"].append([str(secret), "/secret"]))
    os.chmod(path, 0o666)
    assert layout_for(python, str(tmp_path)) == layout


def test_a_cache_naming_a_file_that_is_gone_is_recomputed(tmp_path: Path):
    python = default_python()
    layout = layout_for(python, str(tmp_path))
    path = cache_file(tmp_path)
    tamper(path, lambda r: r["binds"].append([str(tmp_path / "gone.so"), "/lib/gone.so"]))
    assert layout_for(python, str(tmp_path)) == layout


def test_a_directory_changed_since_the_cache_was_written_is_recomputed(tmp_path: Path):
    python = default_python()
    layout = layout_for(python, str(tmp_path))
    path = cache_file(tmp_path)
    fake = tmp_path / "extra"
    fake.mkdir()

    def add_directory(record):
        record["binds"].append([str(fake), "/extra"])
        record["stamps"][str(fake)] = os.stat(fake).st_mtime - 10  # as it was before a change

    tamper(path, add_directory)
    assert layout_for(python, str(tmp_path)) == layout
    # ... and the recomputed layout replaced the stale file
    assert str(fake) not in json.dumps(json.loads(cache_file(tmp_path).read_text())["binds"])

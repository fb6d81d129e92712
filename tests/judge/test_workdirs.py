"""Stale temporary directories: a dead owner's go, a live owner's stay, whoever they are."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from judge.sandbox.slots import SlotPool
from judge.sandbox.workdirs import STAGING, locked_dir, remove_stale

REPO = Path(__file__).resolve().parents[2]

HOLDER = """
import sys, time
from judge.sandbox.workdirs import locked_dir
box = locked_dir(sys.argv[2], sys.argv[1])
print(box.path, flush=True)
time.sleep(600)
"""


def start_holder(parent: Path, prefix: str) -> tuple[subprocess.Popen, Path]:
    """Another process (a grading) that creates and holds a directory."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(parent), prefix],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    return proc, Path(proc.stdout.readline().strip())


def test_a_live_owners_directory_stays_and_a_killed_owners_goes(tmp_path: Path) -> None:
    proc, held = start_holder(tmp_path, "judge-box-")
    try:
        assert held.is_dir() and held.parent == tmp_path
        (held / "solution.py").write_text("x = 1\n")
        assert remove_stale(str(tmp_path), "judge-box-") == []
        assert held.is_dir()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert remove_stale(str(tmp_path), "judge-box-") == [str(held)]
    assert not held.exists()


def test_only_its_own_prefix_and_real_directories(tmp_path: Path) -> None:
    box = locked_dir("judge-box-", str(tmp_path))
    box.detach()  # as if its owner died
    legacy = tmp_path / "judge-run-abcdefgh"  # an older judge's: no lock to go by
    legacy.mkdir()
    other = tmp_path / "pymp-xyz"  # some other program's
    other.mkdir()
    target = tmp_path / "precious"
    target.mkdir()
    (tmp_path / "judge-box-link").symlink_to(target)
    (tmp_path / "judge-box-file").write_text("")
    assert remove_stale(str(tmp_path), "judge-box-") == [box.path]
    assert legacy.is_dir() and other.is_dir() and target.is_dir()
    assert (tmp_path / "judge-box-link").is_symlink() and (tmp_path / "judge-box-file").exists()


def test_a_young_staging_directory_stays(tmp_path: Path) -> None:
    """A staging name is locked only a moment after it exists: left alone unless old."""
    young = tmp_path / f"{STAGING}judge-box-young"
    young.mkdir()
    old = tmp_path / f"{STAGING}judge-box-old"
    old.mkdir()
    long_ago = time.time() - 2 * 3600
    os.utime(old, (long_ago, long_ago))
    assert remove_stale(str(tmp_path), "judge-box-") == [str(old)]
    assert young.is_dir()


def test_removing_its_own_directory_leaves_nothing(tmp_path: Path) -> None:
    box = locked_dir("judge-box-", str(tmp_path))
    (Path(box.path) / "harness.py").write_text("")
    box.remove()
    assert list(tmp_path.iterdir()) == []


def test_pools_with_different_bases_never_share_a_uid(tmp_path: Path) -> None:
    """Two pools in one lock directory (a worker's leased block, the command line's
    default) whose uid ranges overlap: a uid in use by one is not handed out by the
    other. (With locks named after slot numbers, both handed out the same uid.)"""
    if os.geteuid() != 0:
        return  # not root: every slot runs as the current user, there are no slot uids
    first = SlotPool(str(tmp_path), 4, 300000)
    second = SlotPool(str(tmp_path), 4, 300002)
    held = [first.acquire(timeout=1) for _ in range(4)]
    try:
        assert {s.uid for s in held} == {300000, 300001, 300002, 300003}
        extra = [second.acquire(timeout=1) for _ in range(2)]
        assert {s.uid for s in extra} == {300004, 300005}
        for s in extra:
            s.release()
    finally:
        for s in held:
            s.release()

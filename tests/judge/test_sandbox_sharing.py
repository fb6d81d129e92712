"""A sandbox shares its host: ending a run kills that run's processes, and only those, even
when another process (another container's sandbox) runs as the same uid."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from judge.sandbox import RunLimits, SandboxConfig, make_sandbox, remove_stale_run_dirs
from judge.sandbox.cgroups import CgroupManager
from judge.sandbox.processes import pids_of_uid

KILLED = RunLimits(cpu_s=5, wall_s=0.5, memory_bytes=128 << 20)
FORKS_AND_SLEEPS = """
import os, time
for _ in range(3):
    if os.fork() == 0:
        time.sleep(120)
time.sleep(120)
"""


def _uid_base() -> int:
    # Unused by anything else on this machine: far above the judge's default ranges.
    return 500_000 + int.from_bytes(os.urandom(3), "little") * 4


@pytest.fixture
def bystander_uid():
    if os.geteuid() != 0:
        pytest.fail("the judge runs as root here (per-slot uids need it)")
    uid = _uid_base()
    bystander = subprocess.Popen(["sleep", "120"], user=uid, group=uid, extra_groups=[])
    try:
        yield uid, bystander
    finally:
        bystander.kill()
        bystander.wait()


def _one_slot_sandbox(tmp_path: Path, uid: int):
    config = SandboxConfig(slots=1, uid_base=uid, slot_dir=str(tmp_path / "slots"))
    return make_sandbox(config)


def _run_killed(sandbox) -> None:
    with sandbox.run_python({"t.py": FORKS_AND_SLEEPS.encode()}, "t.py", [], KILLED) as proc:
        assert proc.read_result(timeout=30) is None
    assert proc.outcome.limit == "wall"


def test_a_killed_run_spares_another_process_of_its_uid(tmp_path, bystander_uid) -> None:
    uid, bystander = bystander_uid
    _run_killed(_one_slot_sandbox(tmp_path, uid))
    assert bystander.poll() is None
    assert pids_of_uid(uid) == [bystander.pid]


def test_without_cgroups_the_run_is_killed_by_its_pid_namespace(
    tmp_path, bystander_uid, monkeypatch
) -> None:
    """Without cgroups the judge used to kill every process of the slot uid."""
    monkeypatch.setattr(
        CgroupManager, "detect", classmethod(lambda cls, parent=None: cls(0, {}, ["none"]))
    )
    uid, bystander = bystander_uid
    sandbox = _one_slot_sandbox(tmp_path, uid)
    assert "none" in sandbox.notes
    _run_killed(sandbox)
    assert bystander.poll() is None
    alive = [p for p in pids_of_uid(uid) if p != bystander.pid]
    assert alive == []


@pytest.fixture
def shared_tmp(monkeypatch):
    """A temporary directory of our own that the sandbox uids may pass through, as /tmp."""
    path = Path(tempfile.mkdtemp(prefix="judge-test-tmp-"))
    path.chmod(0o711)
    monkeypatch.setattr("tempfile.tempdir", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_running_sandboxs_directory_is_not_stale(shared_tmp) -> None:
    tmp_path = shared_tmp
    sandbox = make_sandbox(SandboxConfig(mode="bwrap"))
    code = b"import time; time.sleep(0.5)"
    with sandbox.run_python({"t.py": code}, "t.py", [], KILLED) as proc:
        boxes = list(tmp_path.glob("judge-box-*"))
        assert len(boxes) == 1
        assert remove_stale_run_dirs(str(tmp_path)) == []
        assert boxes[0].is_dir()
    assert proc.outcome.exit_code == 0
    assert list(tmp_path.glob("judge-box-*")) == []

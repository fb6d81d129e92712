"""A killed grading's temporary directories (the run's, billiard's) are removed at the next
worker start and by the sweeper, and a live run's of another judge on the host never are."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.stack import REPO, Stack, service_env, wait_for

HOLDER = """
import sys, time
from judge.sandbox.workdirs import locked_dir
print(locked_dir("judge-box-", sys.argv[1]).path, flush=True)
time.sleep(600)
"""


STUCK = "import time\n\ndef solution(board, aloc, bloc):\n    time.sleep(600)\n"


@pytest.fixture
def host_tmp() -> Iterator[Path]:
    """The workers' /tmp: our own, passable (not listable) by the sandbox uids, as /tmp is."""
    path = Path(tempfile.mkdtemp(prefix="judge-test-host-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def leftovers(tmp: Path) -> set[str]:
    return {p.name for p in tmp.iterdir() if p.name.startswith(("judge-box-", "pymp-judge-"))}


def kill_mid_grading(stack: Stack, host_tmp: Path) -> set[str]:
    """Start a worker, kill it while it grades; the directories it leaves behind."""
    before = leftovers(host_tmp)
    # A stuck test times out after a second or two and its sandbox directory goes until the
    # next run starts: a kill that lands in that gap leaves no judge-box directory, so try again.
    for _attempt in range(3):
        stack.start_worker()
        token = stack.register(f"victim-{os.urandom(4).hex()}")
        sid = stack.submit(token, "footholds", STUCK)
        wait_for(
            lambda: stack.detail(token, sid)["status"] == "running",  # noqa: B023
            timeout=60,
            what="grading to start",
            context=stack.logs,
        )
        # Checked just before the kill, without an HTTP call in between.
        wait_for(
            lambda: any(n.startswith("judge-box-") for n in leftovers(host_tmp) - before),
            timeout=60,
            interval=0.01,
            what="a sandbox run to start",
            context=stack.logs,
        )
        stack.kill("worker")  # SIGKILL to the worker and its pool: nothing gets to clean up
        left = leftovers(host_tmp) - before
        if {n.rsplit("-", 1)[0] for n in left} == {"judge-box", "pymp-judge"}:
            break
    assert {n.rsplit("-", 1)[0] for n in left} == {"judge-box", "pymp-judge"}
    # The pool processes die a moment after the main one (the kernel drops their locks).
    wait_for(
        lambda: all(unlocked(host_tmp / n) for n in left),
        timeout=30,
        what="the killed processes to be gone",
    )
    return left


def unlocked(path: Path) -> bool:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_a_killed_gradings_directories_go_and_a_live_ones_stay(tmp_path, host_tmp) -> None:
    env = service_env(tmp_path, TMPDIR=str(host_tmp), JUDGE_LEASE_S="2")
    stack = Stack("leftovers", tmp_path, env)
    other_judge = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(host_tmp)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        live = Path(other_judge.stdout.readline().strip())
        stack.setup()
        stack.start_api()

        left = kill_mid_grading(stack, host_tmp)
        stack.start_worker()  # removes them at start (no sweeper runs yet)
        wait_for(
            lambda: not left & leftovers(host_tmp),
            timeout=60,
            what="the new worker to remove the leftovers",
            context=stack.logs,
        )
        stack.stop_process("worker")

        left = kill_mid_grading(stack, host_tmp)
        stack.start_sweeper()  # removes them on its rounds
        wait_for(
            lambda: not left & leftovers(host_tmp),
            timeout=30,
            what="the sweeper to remove the leftovers",
            context=stack.logs,
        )
        assert live.is_dir()  # another judge's live run on this host
    finally:
        stack.stop()
        other_judge.kill()
        other_judge.wait()

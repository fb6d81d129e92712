"""Hostile submissions: each gets its verdict AND nothing escapes the sandbox.

After every hostile submission: host canary files are unchanged, a TCP listener the test
opened on loopback saw no connection, no process of a sandbox uid is left, and the judge still
grades a correct submission correctly.
"""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path

import pytest

from judge.grading.grade import grade
from judge.sandbox.config import DEFAULT_SLOTS, DEFAULT_UID_BASE
from judge.verdict import Verdict
from tests.judge.corpus import CORRECT, graded_as, submissions
from tests.judge.processes import descends_from_us

HOSTILE = submissions("hostile")
# The hostile submissions that try a listener the test opened name this port; each run binds a
# free port of its own and writes it into their source in its place.
LISTENER_PORT = b"47001"
WATCHED = [Path("/etc/passwd"), Path("/etc/hostname")]


@pytest.fixture(scope="module")
def listener():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture
def canary(tmp_path):
    """A file on the host a submission must neither read nor change."""
    path = tmp_path / "canary.txt"
    path.write_text("host secret\n")
    os.chmod(path, 0o644)
    return path


def digest(paths: list[Path]) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.exists()}


def sandbox_processes() -> list[int]:
    """Live processes of any sandbox uid started by this test run. Zombies are left out: they
    run nothing, and an earlier test that SIGKILLs a worker process orphans sandboxes onto this
    (subreaper) pytest process, which only reaps the runs it started itself. Other judges or
    test runs on the machine may be running sandboxes of their own at the same time."""
    uids = range(DEFAULT_UID_BASE, DEFAULT_UID_BASE + DEFAULT_SLOTS)
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                if (
                    os.stat(f"/proc/{entry}").st_uid in uids
                    and state != "Z"
                    and descends_from_us(int(entry))
                ):
                    found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass
    return found


def saw_connection(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


@pytest.mark.parametrize("submission", HOSTILE, ids=lambda s: s.path.stem)
def test_hostile_submission_is_contained(submission, sandbox, listener, canary, tmp_path):
    before = digest([*WATCHED, canary])
    port = str(listener.getsockname()[1]).encode()
    source = submission.path.read_bytes().replace(LISTENER_PORT, port)
    problem = graded_as(submission.problem, submission.expected)  # footholds
    result = grade(problem, source, seed=7, random_count=2, sandbox=sandbox)
    assert result.verdict in submission.expected, (
        result.message,
        [(t.verdict.value, t.message[:300]) for t in result.tests],
    )
    assert "host secret" not in repr(result.to_dict())
    assert digest([*WATCHED, canary]) == before
    assert list(tmp_path.iterdir()) == [canary]
    assert not saw_connection(listener)
    assert sandbox_processes() == []
    after = grade("footholds", CORRECT, seed=7, random_count=3, sandbox=sandbox)
    assert after.verdict is Verdict.AC, after.tests

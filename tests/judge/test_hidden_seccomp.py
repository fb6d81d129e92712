"""A run holding hidden input cannot make pipes, sockets or memfds: each would take an inode
number from the kernel's machine-wide counter, which a later visible run reads in fstat (the
phase lock keeps runs apart in time, not that counter). Nor can it pin itself to a core or
lower its priority, which would make it wait for a CPU by choice (waiting is not charged).
Visible runs still may, and every language's hidden tier still grades."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.grading.grade import grade
from judge.sandbox import Command, RunLimits
from judge.verdict import TestKind, Verdict

LIMITS = RunLimits(cpu_s=5, wall_s=10, memory_bytes=256 << 20)
PROBE = b"""
import os, socket
for name, make in [
    ("pipe", os.pipe),
    ("unix socket", lambda: socket.socket(socket.AF_UNIX)),
    ("socketpair", socket.socketpair),
    ("memfd", lambda: os.memfd_create("x")),
    ("pidfd", lambda: os.pidfd_open(os.getpid())),
    ("affinity", lambda: os.sched_setaffinity(0, {0})),
    ("priority", lambda: os.setpriority(os.PRIO_PROCESS, 0, 19)),
    ("idle scheduling", lambda: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))),
]:
    try:
        make()
        print(name, "made")
    except PermissionError:
        print(name, "refused")
"""


def probe(sandbox, hidden: bool) -> str:
    argv = ("{python}", "-I", "-S", "-B", "/box/probe.py")
    command = Command(argv=argv, files={"probe.py": PROBE})
    with sandbox.run(command, LIMITS, hidden=hidden) as proc:
        pass
    return proc.outcome.output.decode()


def test_hidden_runs_make_no_inode_numbered_files(sandbox):
    hidden = probe(sandbox, hidden=True)
    for name in ("pipe", "unix socket", "socketpair", "memfd", "pidfd"):
        assert f"{name} refused" in hidden, hidden
    # Nor make itself wait for a CPU (waiting is not charged against a wall bound).
    for name in ("affinity", "priority", "idle scheduling"):
        assert f"{name} refused" in hidden, hidden
    visible = probe(sandbox, hidden=False)
    assert "pipe made" in visible and "unix socket made" in visible, visible
    assert "affinity made" in visible, visible
    assert "pidfd refused" in visible, visible  # a pidfd's inode counts every process


CASE = {"board": [[1, 1, 0], [1, 1, 1], [0, 1, 1]], "aloc": [0, 0], "bloc": [2, 2]}
PACKAGED = "problems/footholds/submissions/accepted/{}"


@pytest.mark.parametrize(
    ("language", "path"),
    [
        ("python", PACKAGED.format("footholds_memo.py")),
        ("cpp", "tests/submissions/cpp/accepted/footholds_minimax_pair.cpp"),
        ("java", PACKAGED.format("footholds_minimax_port.java")),
        ("kotlin", PACKAGED.format("footholds_data_class_enum.kt")),
    ],
)
def test_every_language_grades_its_hidden_tier(sandbox, build_cache, language, path):
    source = (Path(__file__).parents[2] / path).read_text()
    result = grade(
        "footholds",
        source,
        hidden_cases=[{"input": CASE}],
        seed=5,
        random_count=1,
        sandbox=sandbox,
        language=language,
        diagnose=False,
        build_cache=build_cache,
    )
    hidden = [t for t in result.tests if t.kind is TestKind.HIDDEN]
    assert [t.verdict for t in hidden] == [Verdict.AC], hidden
    assert result.verdict is Verdict.AC, result.message

"""The channel of issue 19, end to end: a submission's hidden tier holds the hidden board and
signals it through a counter the whole kernel shares (open AIO contexts, /proc/sys/fs/aio-nr);
a Run started at the same time reads the counter and prints it. With the phase lock the two
never run at once, whatever the counter: each process's own clock says when it ran."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from judge.grading.grade import grade
from judge.grading.runs import run_cases
from judge.verdict import TestKind

HONEST = (
    Path(__file__).parents[2] / "problems/footholds/submissions/accepted/footholds_memo.py"
).read_text()
# Nothing in the plan's visible tiers is this board: the sender acts on it alone.
HIDDEN_BOARD = {"board": [[1, 1, 0, 1], [1, 0, 1, 1], [1, 1, 1, 0]], "aloc": [0, 0], "bloc": [2, 2]}
SENDER = (
    HONEST
    + f"""
import ctypes, time
_honest = solution
SECRET = {HIDDEN_BOARD["board"]!r}


def solution(board, aloc, bloc):
    if board != SECRET:
        return _honest(board, aloc, bloc)
    began = time.monotonic_ns()
    ones = sum(map(sum, board))  # what it sends: read from the hidden board
    libc = ctypes.CDLL(None, use_errno=True)
    ctx = ctypes.c_ulong(0)
    libc.syscall(206, 4096 + 64 * ones, ctypes.byref(ctx))  # io_setup: aio-nr goes up
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        pass
    libc.syscall(207, ctx)  # io_destroy
    return began * 10**20 + time.monotonic_ns()  # its interval, for the test (WA)
"""
)
RECEIVER = """
import time


def aio_nr():
    try:
        with open("/proc/sys/fs/aio-nr") as f:
            return int(f.read())
    except (OSError, ValueError):
        return -1


def solution(board, aloc, bloc):
    began = time.monotonic_ns()
    seen = set()
    end = time.monotonic() + 0.4
    while time.monotonic() < end:
        seen.add(aio_nr())
    print(began, time.monotonic_ns(), max(seen) - min(seen))
    return 0
"""
CASE = {"board": [[1, 1, 1]], "aloc": [0, 0], "bloc": [0, 2]}


def interval(number: int) -> tuple[int, int]:
    return divmod(number, 10**20)


def test_a_run_never_runs_beside_a_hidden_tier(sandbox):
    graded: dict = {}

    def submit() -> None:
        graded["result"] = grade(
            "footholds",
            SENDER,
            hidden_cases=[{"input": HIDDEN_BOARD}],
            seed=3,
            random_count=0,
            sandbox=sandbox,
            diagnose=False,
        )

    grading = threading.Thread(target=submit)
    grading.start()
    printed = []
    while grading.is_alive():  # a student's Runs, one after another, while it grades
        run = run_cases("footholds", RECEIVER, [CASE], sandbox=sandbox)
        printed += [r.stdout for r in run.results]
    grading.join()

    result = graded["result"]
    assert result.hidden_after_ms is not None and 0 < result.hidden_after_ms < result.wall_ms
    hidden = [t for t in result.tests if t.kind is TestKind.HIDDEN]
    assert len(hidden) == 1 and isinstance(hidden[0].got, int), hidden
    sent_from, sent_to = interval(hidden[0].got)
    runs = [tuple(map(int, line.split())) for line in printed if line.strip()]
    assert len(runs) >= 3, printed  # the runs went on during the visible tier and after
    for began, ended, moved in runs:
        assert moved <= 0, f"the Run saw aio-nr move by {moved}: the hidden board's signal"
        assert ended < sent_from or began > sent_to, "a Run ran beside the hidden tier"
    assert any(began > sent_to for began, _, _ in runs)  # one ran after it, as it waited


def private_sandbox(tmp_path):
    from judge.sandbox import SandboxConfig, make_sandbox

    return make_sandbox(SandboxConfig(phase_dir=str(tmp_path / "phase")))


def test_waiting_for_the_phase_is_not_the_submissions_time(sandbox, tmp_path):
    """A hidden tier whose process waited 3 s for the visible runs to end still gets its
    whole budget (2 s here): the wait moves the deadline on."""
    import time

    from judge import problems
    from judge.execution.program import Program
    from judge.execution.runners.function import FunctionRunner
    from judge.languages import resolve

    box = private_sandbox(tmp_path)
    module = problems.get("footholds")
    plugin, style = resolve(module, "python", "function")
    program = Program(plugin, style, HONEST.encode())
    visible = box.phases.acquire(hidden=False)  # a visible run going elsewhere, for 3 s
    threading.Timer(3.0, os.close, [visible]).start()
    outcomes = []
    runner = FunctionRunner(module, program, box, 10.0, time.monotonic() + 2.0, hidden_input=True)
    runner.run([CASE], lambda i, o: outcomes.append(o) or True)
    assert [o.verdict.value for o in outcomes] == ["AC"], outcomes
    assert runner.phase_wait_s >= 2.5


def test_a_run_leaves_its_phase_even_when_ending_it_raises(sandbox, tmp_path):
    from judge.sandbox import Command, RunLimits

    box = private_sandbox(tmp_path)
    limits = RunLimits(cpu_s=5, wall_s=10, memory_bytes=128 << 20)
    command = Command(argv=("{python}", "-I", "-S", "-c", "import time; time.sleep(30)"))
    proc = box.run(command, limits, hidden=True)

    def interrupted(popen):
        raise TimeoutError("a task's soft time limit, say")

    proc._jail.finish = interrupted
    try:
        proc.finish(grace=0.0)
    except TimeoutError:
        pass
    else:
        raise AssertionError("finish should have raised")
    taken = []
    thread = threading.Thread(target=lambda: taken.append(box.phases.acquire(hidden=False)))
    thread.start()
    thread.join(10)
    assert taken, "the hidden phase was never left"
    os.close(taken[0])

"""grade(): test order, verdict rules, resuming after fatal tests, privacy, counterexamples."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from judge import problems
from judge.grading.grade import grade
from judge.grading.plan import allocate, plan_size, plan_tests, small_answers
from judge.sandbox import SandboxConfig, SandboxUnavailable, make_sandbox
from judge.verdict import HIDDEN_FIELDS_FOR_STUDENTS, TestKind, Verdict
from tests.judge.corpus import CORRECT

FOOTHOLDS = problems.get("footholds")
HIDDEN = [{"id": 42, "input": {"board": [[1, 1, 0, 1]], "aloc": [0, 0], "bloc": [0, 3]}}]


def test_plan_order_and_reproducibility():
    plan = plan_tests(FOOTHOLDS, HIDDEN, seed=5, random_count=12)
    kinds = [t.kind for t in plan]
    order = [TestKind.SAMPLE, TestKind.SMALL, TestKind.WORST, TestKind.RANDOM, TestKind.HIDDEN]
    assert kinds == sorted(kinds, key=order.index)
    assert kinds.count(TestKind.HIDDEN) == 1 and kinds.count(TestKind.RANDOM) == 12
    assert kinds.count(TestKind.SMALL) == 1 and len(plan) == plan_size(FOOTHOLDS, 1, 12)
    again = plan_tests(FOOTHOLDS, HIDDEN, seed=5, random_count=12)
    assert [t.input for t in plan] == [t.input for t in again]
    other = plan_tests(FOOTHOLDS, HIDDEN, seed=6, random_count=12)
    assert [t.input for t in plan] != [t.input for t in other]
    (small,) = [t for t in plan if t.kind is TestKind.SMALL]
    assert small.input is None and small.expected == small_answers(FOOTHOLDS)
    assert all(t.expected == FOOTHOLDS.reference(t.input) for t in plan if t is not small)


def test_allocate_follows_weights_exactly():
    assert allocate({"a": 1, "b": 3}, 8) == ["a"] * 2 + ["b"] * 6
    assert len(allocate({"a": 1, "b": 1, "c": 1}, 10)) == 10


def test_correct_solution_accepted_with_progress_in_order(sandbox):
    seen = []
    result = grade(
        "footholds", CORRECT, hidden_cases=HIDDEN, seed=1, sandbox=sandbox, on_test=seen.append
    )
    assert result.verdict is Verdict.AC, result.tests
    assert result.passed == result.total == plan_size(FOOTHOLDS, len(HIDDEN))
    assert [t.index for t in seen] == list(range(result.total))
    assert result.seed == 1 and result.sandboxed and result.judge_version


def test_hidden_tests_carry_everything_for_instructors_and_students_see_the_verdict(sandbox):
    source = (
        CORRECT
        + """
_real = solution
def solution(board, aloc, bloc):
    if board == [[1, 1, 0, 1]]:
        raise ValueError("LEAKED " + repr(board))
    return _real(board, aloc, bloc)
"""
    )
    result = grade(
        "footholds", source, hidden_cases=HIDDEN, seed=1, random_count=3, sandbox=sandbox
    )
    hidden = [t for t in result.tests if t.kind is TestKind.HIDDEN]
    assert [t.verdict for t in hidden] == [Verdict.RE]
    assert hidden[0].input == HIDDEN[0]["input"] and hidden[0].expected == 1
    assert "LEAKED" in hidden[0].message and hidden[0].board_id == 42
    assert HIDDEN_FIELDS_FOR_STUDENTS == ("index", "kind", "verdict")
    assert result.verdict is Verdict.RE
    assert all(t.verdict is Verdict.AC for t in result.tests if t.kind is not TestKind.HIDDEN)


def test_a_test_that_kills_the_process_does_not_stop_the_rest(sandbox):
    source = (
        CORRECT
        + """
import os
_real = solution
def solution(board, aloc, bloc):
    if len(board) == 1 and len(board[0]) == 5:
        os._exit(7)
    return _real(board, aloc, bloc)
"""
    )
    result = grade("footholds", source, seed=1, random_count=3, sandbox=sandbox)
    verdicts = [t.verdict for t in result.tests]
    assert verdicts[2] is Verdict.RE and "code 7" in result.tests[2].message
    assert verdicts[:2] + verdicts[3:] == [Verdict.AC] * (len(verdicts) - 1)
    assert result.verdict is Verdict.RE and result.passed == result.total - 1


def test_time_limit_skips_the_rest(sandbox):
    problem = dataclasses.replace(FOOTHOLDS, LIMITS=problems.Limits(0.5, 256, 30))
    source = (
        CORRECT + "\n_r = solution\ndef solution(b, a, c):\n    if len(b) == 3:\n"
        "        while True: pass\n    return _r(b, a, c)\n"
    )
    result = grade(problem, source, seed=1, random_count=4, sandbox=sandbox)
    verdicts = [t.verdict for t in result.tests]
    assert verdicts[0] is Verdict.TLE
    assert set(verdicts[1:]) == {Verdict.SKIPPED}
    assert result.verdict is Verdict.TLE and result.passed == 0


def test_total_budget_marks_unreached_tests_skipped(sandbox):
    problem = dataclasses.replace(FOOTHOLDS, LIMITS=problems.Limits(5.0, 256, 0.6))
    source = "import time\ndef solution(b, a, c):\n    time.sleep(0.25)\n    return 0\n"
    result = grade(problem, source, seed=1, random_count=10, sandbox=sandbox)
    verdicts = [t.verdict for t in result.tests]
    assert Verdict.SKIPPED in verdicts
    assert verdicts[-1] is Verdict.SKIPPED and len(verdicts) == result.total
    first_bad = next(v for v in verdicts if v is not Verdict.AC and v is not Verdict.WA)
    assert first_bad is Verdict.TLE


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("def solution(board, aloc, bloc)\n    return 0\n", "line 1"),
        ("def helper():\n    return 0\n", "no callable solution"),
        ("solution = 5\n", "is a int"),
        (b"def solution(b, a, c):\n    return '\xff'\n", "not valid UTF-8"),
        (b"def solution(b, a, c):\n    return 0\0\n", "NUL"),
    ],
)
def test_compile_errors(sandbox, source, needle):
    result = grade("footholds", source, seed=1, random_count=1, sandbox=sandbox)
    assert result.verdict is Verdict.CE
    assert needle in result.message
    assert result.tests == [] and result.passed == 0


def test_exception_while_loading_is_a_runtime_error(sandbox):
    result = grade("footholds", "raise KeyError('boom')\n", seed=1, random_count=1, sandbox=sandbox)
    assert result.verdict is Verdict.RE
    assert {t.verdict for t in result.tests} == {Verdict.RE}
    assert "KeyError" in result.tests[0].message


def test_wrong_random_answer_is_shrunk_to_a_smaller_failing_board(sandbox):
    # Wrong only on rectangular boards of 10+ cells: the samples, every small position (up
    # to 3x3) and the worst cases (5x5) pass, random boards fail.
    source = (
        CORRECT
        + """
_real = solution
def solution(board, aloc, bloc):
    rows, cols = len(board), len(board[0])
    return _real(board, aloc, bloc) + (rows != cols and rows * cols >= 10)
"""
    )
    result = grade("footholds", source, seed=3, random_count=30, sandbox=sandbox)
    assert result.verdict is Verdict.WA
    first = next(t for t in result.tests if t.verdict is Verdict.WA)
    assert first.kind is TestKind.RANDOM
    cx = first.counterexample
    assert cx is not None and cx.verdict is Verdict.WA
    rows, cols = len(cx.input["board"]), len(cx.input["board"][0])
    assert rows != cols and rows * cols >= 10  # still failing
    assert rows * cols <= len(first.input["board"]) * len(first.input["board"][0])
    assert rows * cols == 10  # the smallest such board
    assert cx.expected == FOOTHOLDS.reference(cx.input) == cx.got - 1
    assert cx.explanation["answer"] == cx.expected and "moves" in cx.explanation


def test_invalid_hidden_board_is_an_internal_error_not_the_students(sandbox):
    bad = [{"input": {"board": [[1, 2]], "aloc": [0, 0], "bloc": [0, 0]}}]
    result = grade("footholds", CORRECT, hidden_cases=bad, seed=1, sandbox=sandbox)
    assert result.verdict is Verdict.IE
    assert "internal error" in result.message


def test_a_sandbox_that_cannot_start_is_raised_not_blamed_on_the_submission(monkeypatch):
    sandbox = make_sandbox(SandboxConfig(mode="none"))

    def broken(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(sandbox, "run", broken)
    with pytest.raises(OSError):
        grade("footholds", CORRECT, seed=1, random_count=1, sandbox=sandbox)


def test_a_failing_progress_callback_is_raised_not_made_a_verdict(sandbox):
    class DatabaseLocked(Exception):
        pass

    def on_test(test):
        if test.index == 2:
            raise DatabaseLocked("database is locked")

    with pytest.raises(DatabaseLocked):
        grade("footholds", CORRECT, seed=1, random_count=2, sandbox=sandbox, on_test=on_test)


def test_unsandboxed_runs_say_so():
    unconfined = make_sandbox(SandboxConfig(mode="none"))
    result = grade("footholds", CORRECT, seed=1, random_count=2, sandbox=unconfined)
    assert result.verdict is Verdict.AC
    assert not result.sandboxed
    assert "UNSANDBOXED" in result.message and any("UNSANDBOXED" in n for n in result.sandbox_notes)


def test_without_bubblewrap_the_judge_refuses(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="JUDGE_SANDBOX=none"):
        make_sandbox(SandboxConfig(mode="bwrap"))

"""A test's outcome dressed as the TestResult that is stored and shown, and a grading's
figures (the plain results themselves are judge/verdict.py's)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from judge import answers
from judge.execution.runners import Outcome, Runner
from judge.grading.plan import PlannedTest
from judge.problems import ProblemSpec
from judge.verdict import GradeResult, TestKind, TestResult, Verdict

SKIPPED_AFTER_TLE = "not run after a time limit exceeded"


def check_answer(module: ProblemSpec, case: Mapping[str, Any], want: Any, outcome: Outcome) -> None:
    """An answer the process gave (AC so far) that the problem's check rejects becomes WA."""
    if outcome.verdict is Verdict.AC:
        ok, message = module.check(case, want, outcome.got)
        if not ok:
            outcome.verdict, outcome.message = Verdict.WA, message


def skipped_tests(kinds: Sequence[TestKind], done: set[int]) -> list[TestResult]:
    """The tests not run, after a time-out ended the rest (`Outcome.ends_the_rest`)."""
    return [
        TestResult(i, kind, Verdict.SKIPPED, message=SKIPPED_AFTER_TLE)
        for i, kind in enumerate(kinds)
        if i not in done
    ]


def test_result(index: int, test: PlannedTest, outcome: Outcome) -> TestResult:
    """Everything about the test, hidden ones included: instructors see it all, and what a
    student may see of a hidden test is cut at presentation (`verdict.student_view`)."""
    return TestResult(
        index=index,
        kind=test.kind,
        verdict=outcome.verdict,
        time_ms=round(outcome.cpu_s * 1000, 3),
        wall_ms=round(outcome.wall_s * 1000, 3),
        memory_kb=outcome.rss_kb,
        message=outcome.message,
        profile=test.profile,
        input=test.input,
        expected=test.expected,
        got=answers.to_json(outcome.got),
        board_id=test.ref,
        **output_of(test.kind, outcome),
    )


def output_of(kind: TestKind, outcome: Outcome) -> dict[str, Any]:
    """The printed output a test result may carry: a visible test's, never a hidden one's."""
    if not kind.visible:
        return {}
    return {"stdout": outcome.stdout, "stderr": outcome.stderr, "output_cut": outcome.output_cut}


def with_figures(
    result: GradeResult, started: float, runners: Sequence[Runner] = ()
) -> GradeResult:
    """The submission's figures. Peak memory and longest time are those of the visible tests:
    a student sees them, and a hidden test's time or memory could encode its input.
    `runners[0]`, when given, is the visible tier's."""
    visible = [t for t in result.tests if t.kind.visible]
    for runner in runners:
        result.sandbox_notes += [n for n in runner.notes if n not in result.sandbox_notes]
    if runners:
        result.peak_memory_kb = max([runners[0].peak_memory_kb, *(t.memory_kb for t in visible)])
    result.max_time_ms = max((t.time_ms for t in visible), default=0.0)
    result.wall_ms = round((time.monotonic() - started) * 1000, 3)
    return result

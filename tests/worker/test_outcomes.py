"""The outcomes the worker hands to repo.finish (no database needed: plain values)."""

from __future__ import annotations

import judge
from judge.verdict import GradeResult, TestKind, TestResult, Verdict
from worker import outcomes


def result_with_two_tests() -> GradeResult:
    return GradeResult(
        problem="numbergame",
        verdict=Verdict.WA,
        passed=1,
        total=2,
        tests=[
            TestResult(0, TestKind.SAMPLE, Verdict.AC, time_ms=1.5, input={"board": [1]}, got=1),
            TestResult(1, TestKind.HIDDEN, Verdict.WA, time_ms=2.5, message="expected 3, got 4"),
        ],
        seed=7,
        judge_version="v-test",
        sandboxed=False,
        message="unsandboxed",
        max_time_ms=2.5,
        peak_memory_kb=9000,
    )


def test_a_graded_result_keeps_every_figure_and_test() -> None:
    outcome = outcomes.graded(result_with_two_tests())
    assert (outcome.verdict, outcome.passed, outcome.total) == ("WA", 1, 2)
    assert (outcome.max_time_ms, outcome.peak_memory_kb) == (2.5, 9000)
    assert (outcome.judge_version, outcome.message, outcome.sandboxed) == (
        "v-test",
        "unsandboxed",
        False,
    )
    assert [(t["index"], t["kind"], t["verdict"]) for t in outcome.tests] == [
        (0, "sample", "AC"),
        (1, "hidden", "WA"),
    ]
    assert outcome.tests[1]["message"] == "expected 3, got 4"


def test_an_internal_error_has_no_tests_and_names_this_judge() -> None:
    outcome = outcomes.internal_error("internal error: KeyError: 'board'")
    assert (outcome.verdict, outcome.passed, outcome.total, list(outcome.tests)) == (
        "IE",
        0,
        0,
        [],
    )
    assert outcome.judge_version == judge.__version__
    assert outcome.message == "internal error: KeyError: 'board'"
    assert outcome.sandboxed is None  # nothing ran


def test_the_bare_outcome_keeps_verdicts_and_counts_only() -> None:
    full = outcomes.graded(result_with_two_tests())
    bare = outcomes.bare(full)
    assert (bare.verdict, bare.passed, bare.total, bare.sandboxed) == ("WA", 1, 2, False)
    assert bare.message == "the details of this result could not be stored"
    assert list(bare.tests) == [
        {"index": 0, "kind": "sample", "verdict": "AC"},
        {"index": 1, "kind": "hidden", "verdict": "WA"},
    ]

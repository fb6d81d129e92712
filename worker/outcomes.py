"""The outcomes the grading task hands to `repo.finish`, built from what the judge returned.

Here rather than in store/: whether grading failed, and what the student is told then, is the
judge's and the worker's business; store/ only writes what it is given.
"""

from __future__ import annotations

import dataclasses

import judge
from judge.verdict import GradeResult, Verdict
from store.outcome import JudgingOutcome

# Kept of each test when the full result could not be stored: what a student may see of a
# hidden test anyway (judge.verdict.HIDDEN_FIELDS_FOR_STUDENTS), safe for any test.
BARE_TEST_FIELDS = ("index", "kind", "verdict")


def graded(result: GradeResult) -> JudgingOutcome:
    """The outcome of a grading that reached a verdict (any verdict, IE included)."""
    return JudgingOutcome(
        verdict=str(result.verdict),
        passed=result.passed,
        total=result.total,
        tests=[test.to_dict() for test in result.tests],
        max_time_ms=result.max_time_ms,
        peak_memory_kb=result.peak_memory_kb,
        judge_version=result.judge_version,
        message=result.message,
        sandboxed=result.sandboxed,
        hidden_s=None
        if result.hidden_after_ms is None
        else max(result.wall_ms - result.hidden_after_ms, 0.0) / 1000,
    )


def internal_error(message: str) -> JudgingOutcome:
    """Grading itself failed (a bug of the judge, never the submission's fault): IE."""
    return JudgingOutcome(
        verdict=Verdict.IE, passed=0, total=0, judge_version=judge.__version__, message=message
    )


def bare(outcome: JudgingOutcome) -> JudgingOutcome:
    """The outcome without the details the database refused: verdicts and counts only."""
    return dataclasses.replace(
        outcome,
        message="the details of this result could not be stored",
        tests=[{k: test[k] for k in BARE_TEST_FIELDS} for test in outcome.tests],
    )

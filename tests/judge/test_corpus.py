"""Every submission in the problemtools-style corpus gets its verdict, through the real sandbox."""

from __future__ import annotations

import pytest

from judge import problems
from judge.grading.grade import grade
from judge.verdict import Verdict
from tests.judge.corpus import (
    FOLDER_VERDICT,
    TLE_TIME_S,
    diagnosed,
    graded_as,
    short_limit,
    submissions,
)

FOLDERS = ("accepted", "wrong_answer", "time_limit", "runtime_error", "compile_error")
CORPUS = submissions(*FOLDERS)


def test_corpus_covers_every_folder_and_problem():
    # Every folder for the two problems the corpus is built around; the other packages bring
    # their own submissions/, and each has an accepted and a wrong one at least.
    for folder in FOLDERS:
        got = {s.problem for s in CORPUS if s.folder == folder}
        assert {"footholds", "numbergame"} <= got, f"{folder} lacks one of the first two"
    for folder in ("accepted", "wrong_answer"):
        got = {s.problem for s in CORPUS if s.folder == folder}
        assert set(problems.registry()) <= got, f"{folder} lacks {set(problems.registry()) - got}"


def test_a_file_that_may_time_out_is_graded_with_a_short_limit_and_nothing_else_changed():
    for slug, module in problems.registry().items():
        short = short_limit(slug)
        assert short is short_limit(slug)  # one per problem: what the judge caches stays
        assert short.LIMITS.time_s == min(module.LIMITS.time_s, TLE_TIME_S)
        assert (short.LIMITS.memory_mb, short.LIMITS.total_s) == (
            module.LIMITS.memory_mb,
            module.LIMITS.total_s,
        )
        assert (short.SLUG, short.PARAMS, short.SAMPLES, short.reference) == (
            module.SLUG,
            module.PARAMS,
            module.SAMPLES,
            module.reference,
        )
        assert graded_as(slug, frozenset({Verdict.TLE, Verdict.RE})) is short
        assert graded_as(slug, frozenset({Verdict.WA})) == slug
    assert problems.get("footholds").LIMITS.time_s > TLE_TIME_S  # where it saves time


@pytest.mark.parametrize("submission", CORPUS, ids=lambda s: s.id)
def test_corpus_verdict(submission, sandbox):
    assert submission.expected == {FOLDER_VERDICT[submission.folder]}, "first line disagrees"
    result = grade(
        graded_as(submission.problem, submission.expected),
        submission.path.read_bytes(),
        seed=20261130,
        diagnose=diagnosed(submission.folder),
        sandbox=sandbox,
    )
    assert result.verdict in submission.expected, (
        result.message,
        [(t.index, t.verdict.value, t.message[:200]) for t in result.tests if t.verdict != "AC"],
    )
    assert result.sandboxed
    if result.verdict is Verdict.AC:
        assert result.passed == result.total > len(problems.get(submission.problem).SAMPLES)
    elif result.verdict is Verdict.CE:
        assert result.message and result.tests == []
    else:
        assert result.passed < result.total

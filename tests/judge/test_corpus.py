"""Every submission in the problemtools-style corpus gets its verdict, through the real sandbox."""

from __future__ import annotations

import pytest

from judge import problems
from judge.grading.grade import grade
from judge.verdict import Verdict
from tests.judge.corpus import FOLDER_VERDICT, submissions

FOLDERS = ("accepted", "wrong_answer", "time_limit", "runtime_error", "compile_error")
CORPUS = submissions(*FOLDERS)


def test_corpus_covers_every_folder_and_problem():
    for folder in FOLDERS:
        got = {s.problem for s in CORPUS if s.folder == folder}
        assert got == set(problems.registry()), f"{folder} lacks {set(problems.registry()) - got}"


@pytest.mark.parametrize("submission", CORPUS, ids=lambda s: s.id)
def test_corpus_verdict(submission, sandbox):
    assert submission.expected == {FOLDER_VERDICT[submission.folder]}, "first line disagrees"
    result = grade(submission.problem, submission.path.read_bytes(), seed=20261130, sandbox=sandbox)
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

"""The Java and Kotlin corpus through the real sandbox: every submission gets its verdict, and
the hostile ones leave nothing behind (the checks of test_hostile.py). Each grading compiles
once (javac ~1 s, kotlinc ~4 s in the sandbox), so the plans here are small."""

from __future__ import annotations

import pytest

from judge import problems
from judge.grading.grade import grade
from judge.languages import LanguageUnavailable, get_language
from judge.verdict import Verdict
from tests.judge.corpus import FOLDER_VERDICT, diagnosed, graded_as, language_submissions
from tests.judge.test_hostile import (  # noqa: F401 (canary and listener are fixtures)
    WATCHED,
    canary,
    digest,
    listener,
    sandbox_processes,
    saw_connection,
)

FOLDERS = (*FOLDER_VERDICT, "hostile")
CORPUS = [s for language in ("java", "kotlin") for s in language_submissions(language, *FOLDERS)]


def available(language: str) -> bool:
    try:
        get_language(language).version()
    except LanguageUnavailable:
        return False
    return True


def test_the_corpus_has_what_the_issue_asks_for():
    names = {s.id for s in CORPUS}
    assert "java/accepted/footholds_minimax_port.java" in names
    assert "kotlin/accepted/footholds_data_class_enum.kt" in names
    stdio = {s.id for s in CORPUS if s.style == "stdio" and s.folder == "accepted"}
    assert {"java/accepted/numbergame_whole_program.java"} <= stdio
    for language in ("java", "kotlin"):
        for folder in FOLDERS:
            assert any(s.language == language and s.folder == folder for s in CORPUS), folder
        accepted = {s.problem for s in CORPUS if s.language == language and s.folder == "accepted"}
        assert accepted == set(problems.registry())


@pytest.mark.parametrize("submission", CORPUS, ids=lambda s: s.id)
def test_jvm_corpus_verdict(
    submission,
    sandbox,
    listener,  # noqa: F811 (a fixture)
    canary,  # noqa: F811 (a fixture)
    tmp_path,
    build_cache,
):
    if not available(submission.language):
        pytest.fail(f"{submission.language} is required and not installed (make setup installs it)")
    if submission.folder != "hostile":
        assert submission.expected == {FOLDER_VERDICT[submission.folder]}, "first line disagrees"
    before = digest([*WATCHED, canary])
    result = grade(
        graded_as(submission.problem, submission.expected),
        submission.path.read_bytes(),
        seed=20261201,
        random_count=2,
        sandbox=sandbox,
        language=submission.language,
        style=submission.style,
        build_cache=build_cache,
        diagnose=diagnosed(submission.folder),
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
        assert "/box" not in result.message and "/usr/lib/jvm" not in result.message
        assert "Judge__Driver" not in result.message
    else:
        assert result.passed < result.total
    if submission.folder == "hostile":
        assert "host secret" not in repr(result.to_dict())
        assert digest([*WATCHED, canary]) == before
        assert list(tmp_path.iterdir()) == [canary]
        assert not saw_connection(listener)
        assert sandbox_processes() == []

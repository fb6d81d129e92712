"""The C++ corpus (tests/submissions/cpp/): every submission gets its verdict through the real
sandbox, compiled there; the hostile ones also leave nothing behind (the checks of
test_hostile.py, reused)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import judge
from judge import problems
from judge.grading.grade import grade
from judge.verdict import Verdict
from tests.judge.corpus import CORRECT, FOLDER_VERDICT, diagnosed, graded_as, language_submissions
from tests.judge.test_hostile import (  # noqa: F401 (fixtures)
    LISTENER_PORT,
    WATCHED,
    canary,
    digest,
    listener,
    sandbox_processes,
    saw_connection,
)

FOLDERS = (
    "accepted",
    "wrong_answer",
    "time_limit",
    "runtime_error",
    "compile_error",
    "memory_limit",
)
CORPUS = language_submissions("cpp", *FOLDERS)
HOSTILE = language_submissions("cpp", "hostile")
# The judge's own source, as the hostile include names it in the corpus file.
JUDGE_FILE_IN_CORPUS = b"/work/main/judge/harness.py"
JUDGE_FILE = str(Path(judge.__file__).resolve().parent / "harness.py").encode()
# What no compile error may show: directories of the judge, the sandbox, the toolchain.
QUOTED = re.compile(r"^\s+\d*\s*\|")  # a source line and its caret, under a diagnostic
NOT_IN_MESSAGES = ("/box", "/usr/", "/tmp/", str(Path(judge.__file__).parent), "judge_driver")


def failures(result):
    return [(t.index, t.verdict.value, t.message[:200]) for t in result.tests if t.verdict != "AC"]


def test_corpus_covers_every_folder_problem_and_style():
    # Every folder for the two problems the corpus is built around; the other packages bring
    # their own submissions/, and each has an accepted and a wrong one at least.
    for folder in FOLDERS:
        got = {s.problem for s in CORPUS if s.folder == folder}
        assert {"footholds", "numbergame"} <= got, f"{folder} lacks one of the first two"
    for folder in ("accepted", "wrong_answer"):
        got = {s.problem for s in CORPUS if s.folder == folder}
        assert set(problems.registry()) <= got, f"{folder} lacks {set(problems.registry()) - got}"
    stdio = {(s.folder, s.problem) for s in CORPUS if s.style == "stdio"}
    assert {("accepted", "numbergame"), ("wrong_answer", "numbergame")} <= stdio


@pytest.mark.parametrize("submission", CORPUS, ids=lambda s: s.id)
def test_cpp_corpus_verdict(submission, sandbox, build_cache):
    assert submission.expected == {FOLDER_VERDICT[submission.folder]}, "first line disagrees"
    result = grade(
        graded_as(submission.problem, submission.expected),
        submission.path.read_bytes(),
        seed=20261201,
        # Every test of a memory hog fails in a process of its own (~0.25 s each): two random
        # boards, as the JVM corpus, instead of the default plan's (47 tests for footholds).
        random_count=2 if submission.folder == "memory_limit" else None,
        sandbox=sandbox,
        language="cpp",
        style=submission.style,
        diagnose=diagnosed(submission.folder),
        build_cache=build_cache,
    )
    assert result.verdict in submission.expected, (result.message, failures(result))
    assert result.sandboxed
    if result.verdict is Verdict.AC:
        assert result.passed == result.total > len(problems.get(submission.problem).SAMPLES)
    elif result.verdict is Verdict.CE:
        assert result.message.startswith("solution.cpp") and result.tests == []
        assert not any(text in result.message for text in NOT_IN_MESSAGES), result.message
    else:
        assert result.passed < result.total


@pytest.mark.parametrize("submission", HOSTILE, ids=lambda s: s.path.stem)
def test_cpp_hostile_submission_is_contained(
    submission,
    sandbox,
    listener,  # noqa: F811 (a fixture)
    canary,  # noqa: F811 (a fixture)
    tmp_path,
    build_cache,
):
    before = digest([*WATCHED, canary])
    port = str(listener.getsockname()[1]).encode()
    source = (
        submission.path.read_bytes()
        .replace(LISTENER_PORT, port)
        .replace(JUDGE_FILE_IN_CORPUS, JUDGE_FILE)
    )
    result = grade(
        graded_as(submission.problem, submission.expected),
        source,
        seed=7,
        random_count=2,
        sandbox=sandbox,
        language="cpp",
        style=submission.style,
        build_cache=build_cache,
    )
    assert result.verdict in submission.expected, (result.message, failures(result))
    if result.verdict is Verdict.CE:
        # The compiler quotes the student's own line (with the path they wrote): left out.
        said = [line for line in result.message.splitlines() if not QUOTED.match(line)]
        assert not any(text in line for text in NOT_IN_MESSAGES for line in said), said
        if b'#include "/' in source:  # a file outside the compiler's sandbox: never found
            assert "No such file or directory" in result.message, result.message
    assert "host secret" not in repr(result.to_dict())
    assert digest([*WATCHED, canary]) == before
    assert list(tmp_path.iterdir()) == [canary]
    assert not saw_connection(listener)
    assert sandbox_processes() == []
    after = grade("footholds", CORRECT, seed=7, random_count=3, sandbox=sandbox)
    assert after.verdict is Verdict.AC, after.tests

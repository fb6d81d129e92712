"""Runs before submitting, printed output and "where is the bug", through the real sandbox."""

from __future__ import annotations

import pytest

from judge import problems
from judge.execution.runners.function import _printed
from judge.grading.grade import SUBMISSION_OUTPUT_CHARS, grade
from judge.grading.runs import MAX_CASES, OUTPUT_LIMIT, run_cases
from judge.problems import InvalidCase
from judge.verdict import TestKind, Verdict
from tests.judge.corpus import PACKAGES

FOOTHOLDS = problems.get("footholds")
NUMBERGAME = problems.get("numbergame")

PRINTING = """
import sys
def solution(board):
    print("row of", len(board))
    print("debug", board[0], file=sys.stderr)
    return sum(board)
"""

# Min and max swapped: the winner stalls and the loser hurries.
SWAPPED = """
from functools import lru_cache
def solution(board):
    @lru_cache(None)
    def best(i, j):
        if i == j:
            return 0
        options = [board[i] - best(i + 1, j), board[j - 1] - best(i, j - 1)]
        if j - i >= 2:
            options += [-best(i + 2, j), -best(i, j - 2)]
        return min(options)
    return best(0, len(board))
"""


def test_a_run_on_the_samples_reports_answers_expected_values_and_what_each_call_printed(
    sandbox,
):
    result = run_cases("numbergame", PRINTING, sandbox=sandbox)
    assert result.status == "done"
    shown = result.to_dict()["results"]
    assert [r["input"] for r in shown] == [s["input"] for s in NUMBERGAME.SAMPLES]
    assert [r["expected"] for r in shown] == [s["answer"] for s in NUMBERGAME.SAMPLES]
    for r in shown:
        board = r["input"]["board"]
        assert r["answer"] == sum(board)
        assert r["verdict"] == ("AC" if sum(board) == r["expected"] else "WA")
        assert r["stdout"] == f"row of {len(board)}\n"
        assert r["stderr"] == f"debug {board[0]}\n"
        assert r["output_cut"] is False


def test_a_run_on_own_cases_checks_them_and_keeps_errors_apart(sandbox):
    source = "def solution(board):\n    return 10 // (len(board) - 2)\n"
    cases = [{"board": [1, 2, 3]}, {"board": [4, 5]}]
    result = run_cases("numbergame", source, cases, sandbox=sandbox)
    first, second = result.to_dict()["results"]
    assert (first["verdict"], first["answer"], first["expected"]) == ("WA", 10, 2)
    assert second["verdict"] == "RE" and second["answer"] is None
    assert second["error"].startswith("ZeroDivisionError")
    assert 'File "solution.py", line 2' in second["traceback"]
    assert all(t.kind is TestKind.CUSTOM for t in result.results)


def test_a_run_refuses_bad_cases_before_running(sandbox):
    with pytest.raises(InvalidCase, match=r"must have 1\.\.50"):
        run_cases("numbergame", PRINTING, [{"board": []}], sandbox=sandbox)
    with pytest.raises(ValueError, match=f"at most {MAX_CASES} cases"):
        run_cases("numbergame", PRINTING, [{"board": [1]}] * (MAX_CASES + 1), sandbox=sandbox)


def test_a_run_of_code_that_does_not_compile_says_so(sandbox):
    result = run_cases("numbergame", "def solution(board) return 1", sandbox=sandbox)
    assert result.status == "compile_error" and "SyntaxError at line 1" in result.message
    assert result.results == []


def test_printed_output_is_cut_and_said_to_be(sandbox):
    source = "def solution(board):\n    print('x' * 100_000)\n    return 0\n"
    result = run_cases("numbergame", source, [{"board": [0]}], sandbox=sandbox)
    (case,) = result.to_dict()["results"]
    assert case["stdout"] == "x" * OUTPUT_LIMIT and case["output_cut"] is True
    assert case["verdict"] == "AC"


def test_forged_output_fields_are_cleaned_or_dropped():
    assert _printed({"stdout": "a\x00b\x1b[2J"}, "stdout") == ("a\ufffdb\ufffd[2J", False)
    assert _printed({"stdout": 12345}, "stdout") == ("", False)
    assert _printed({"stdout": "y" * (OUTPUT_LIMIT + 1)}, "stdout") == ("y" * OUTPUT_LIMIT, True)


def test_graded_visible_tests_keep_printed_output_and_hidden_tests_never_do(sandbox):
    hidden = [{"input": {"board": [7, 8, 9]}}]
    result = grade(
        "numbergame", PRINTING, hidden_cases=hidden, seed=3, random_count=2, sandbox=sandbox
    )
    visible = [t for t in result.tests if t.kind.visible and t.kind is not TestKind.SMALL]
    assert visible and all(t.stdout == f"row of {len(t.input['board'])}\n" for t in visible)
    (hidden_test,) = [t for t in result.tests if t.kind is TestKind.HIDDEN]
    assert hidden_test.verdict is not Verdict.SKIPPED
    assert (hidden_test.stdout, hidden_test.stderr, hidden_test.output_cut) == ("", "", False)


def test_a_wrong_combination_rule_is_found_below_the_failing_board(sandbox):
    result = grade("numbergame", SWAPPED, seed=1, random_count=0, sandbox=sandbox)
    assert result.verdict is Verdict.WA
    failing = next(t for t in result.tests if t.verdict is not Verdict.AC)
    found = failing.diagnosis
    assert found is not None
    assert found["expected"] == NUMBERGAME.reference(found["case"]) != found["got"]
    assert found["children"] == [
        {"case": c, "expected": NUMBERGAME.reference(c), "got": NUMBERGAME.reference(c)}
        for c in NUMBERGAME.game_tree.children(found["case"])
    ]
    assert "your value here does not follow from your values one move later" in found["summary"]
    others = [t for t in result.tests if t is not failing]
    assert all(t.diagnosis is None for t in others)


# The same bug (min for max) made in each compiled language's accepted numbergame solution:
# the search asks the built program about the positions below the failing board, as it asks
# a Python one.
ACCEPTED = PACKAGES / "numbergame" / "submissions" / "accepted"
SWAPPED_COMPILED = {
    language: (ACCEPTED / name).read_text().replace(max_, max_.replace("max", "min"))
    for language, name, max_ in [
        ("cpp", "numbergame_interval_dp.cpp", "max("),
        ("java", "numbergame_memo.java", "Math.max("),
        ("kotlin", "numbergame_memo.kt", "maxOf("),
    ]
}


@pytest.mark.parametrize("language", sorted(SWAPPED_COMPILED))
def test_the_search_finds_the_bug_in_a_compiled_program(language, sandbox, build_cache):
    source = SWAPPED_COMPILED[language]
    assert "min" in source and "max" not in source  # every max of the solution made min
    result = grade(
        "numbergame",
        source,
        seed=1,
        random_count=0,
        sandbox=sandbox,
        language=language,
        build_cache=build_cache,
    )
    assert result.verdict is Verdict.WA, result.message
    failing = next(t for t in result.tests if t.verdict is not Verdict.AC)
    found = failing.diagnosis
    assert found is not None, failing
    assert found["expected"] == NUMBERGAME.reference(found["case"]) != found["got"]
    assert "your value here does not follow from your values one move later" in found["summary"]


def test_the_search_can_be_turned_off(sandbox):
    off = grade("numbergame", SWAPPED, seed=1, random_count=0, sandbox=sandbox, diagnose=False)
    assert off.verdict is Verdict.WA and all(t.diagnosis is None for t in off.tests)


def test_wide_characters_are_cut_to_fit_and_never_change_the_verdict(sandbox):
    source = (
        "import sys\ndef solution(board):\n"
        "    print('\\U0001F7E9' * 6000)\n    print('\\u2500' * 6000, file=sys.stderr)\n"
        "    return 0\n"
    )
    result = run_cases("numbergame", source, [{"board": [0]}, {"board": [5]}], sandbox=sandbox)
    first, second = result.to_dict()["results"]
    assert (first["verdict"], second["verdict"]) == ("AC", "WA")
    for case in (first, second):
        assert case["output_cut"] is True
        assert 1000 < len(case["stdout"]) < 6000 and set(case["stdout"]) == {"\U0001f7e9"}
        assert 1000 < len(case["stderr"]) < 6000 and set(case["stderr"]) == {"\u2500"}


def test_the_usual_ways_of_writing_to_stdout_work_while_output_is_kept(sandbox):
    source = (
        "import os, sys\ndef solution(board):\n"
        "    sys.stdout.writelines(['a\\n', 'b\\n'])\n"
        "    sys.stdout.buffer.write(b'bytes\\n')\n"
        "    assert isinstance(sys.stdout.fileno(), int) and not sys.stdout.closed\n"
        "    sys.stdout.flush()\n"
        "    return sum(board)\n"
    )
    result = run_cases("numbergame", source, [{"board": [1, 2]}], sandbox=sandbox)
    (case,) = result.to_dict()["results"]
    assert case["verdict"] == "WA" and case["answer"] == 3
    assert case["stdout"] == "a\nb\nbytes\n"


def test_after_a_time_out_the_other_cases_are_skipped(sandbox):
    source = "def solution(board):\n    while board[0] == 1:\n        pass\n    return 0\n"
    cases = [{"board": [0]}, {"board": [1]}, {"board": [0]}]
    result = run_cases("numbergame", source, cases, sandbox=sandbox)
    verdicts = [case["verdict"] for case in result.to_dict()["results"]]
    assert verdicts == ["AC", "TLE", "SKIPPED"]


def test_a_grading_keeps_a_bounded_amount_of_printed_output(sandbox):
    source = "def solution(board):\n    print('z' * 20_000)\n    return sum(board)\n"
    result = grade("numbergame", source, seed=2, random_count=5, sandbox=sandbox)
    printed = [len(t.stdout) + len(t.stderr) for t in result.tests]
    assert sum(printed) == SUBMISSION_OUTPUT_CHARS
    assert printed[0] == OUTPUT_LIMIT and all(t.output_cut for t in result.tests if t.kind.visible)

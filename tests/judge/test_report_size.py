"""A list answer too large for a report line, in every language: reported as too large (a
wrong type), never a malformed report, and charged alike by every driver.

    zeros(n: int, first: long) -> long[]     [first, 0, 0, ...], n values
    marks(n: int, first: str) -> str[]       [first, "é😀", "é😀", ...], n values

Each value is charged its whole report in compact JSON, wrapping and comma included, against
MAX_REPORTED_BYTES: n = 2620 with a 12-digit `first` takes exactly the budget, a 13-digit one
a byte more. A character beyond ASCII is charged its escape, 6 bytes (12 beyond the BMP),
also by the C++ driver, which writes it as UTF-8: `marks` checks that in Python and C++.
Each compiled language builds one source for `zeros` (Kotlin costs about ten seconds)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from judge.answers import INT, LONG, STR, ValueType, list_of
from judge.grading.runs import DONE, run_cases
from judge.languages import LanguageUnavailable, get_language
from judge.languages.drivers import cpp_driver, harness
from judge.languages.jvm import (
    java_driver,
    java_driver_runtime,
    kotlin_driver,
    kotlin_driver_runtime,
)
from judge.problems import Case, InvalidCase, Limits, ProblemSpec, View
from judge.sandbox.limits import RunLimits


def _validate(case: Case) -> None:
    if not 1 <= case["n"] <= 10_000:
        raise InvalidCase("n must be 1..10000")


def _problem(slug: str, item: ValueType, rest: Any) -> ProblemSpec:
    """[first] + [rest] * (n - 1), a list of `item`s."""

    def reference(case: Case) -> list[Any]:
        return [case["first"]] + [rest] * (case["n"] - 1)

    sample = {"n": 1, "first": rest}
    return ProblemSpec(
        SLUG=slug,
        TITLE=slug,
        STATEMENT="",
        PARAMS=("n", "first"),
        PARAM_TYPES={"n": INT, "first": item},
        ANSWER=list_of(item),
        VIEW=View("none"),
        # A run's budget includes its compile: kotlinc alone took over a minute when the
        # suite loads the machine, and this test is about report sizes, not time.
        LIMITS=Limits(time_s=2.0, memory_mb=256, total_s=300.0),
        SAMPLES=[{"input": sample, "answer": reference(sample)}],
        PROFILES={"any": 1.0},
        RANDOM_COUNT=0,
        validate=_validate,
        generate=lambda rng, profile: sample,
        reference=reference,
        check=lambda case, expected, got: list_of(item).check(expected, got),
        explain=lambda case: {},
        shrink=lambda case: [],
    )


ZEROS = _problem("zeros", LONG, 0)
MARKS = _problem("marks", STR, "é😀")

AT_BUDGET = {"n": 2620, "first": 10**11}  # 26 + 2619 commas + 35 + 2619 * 24 = 65,536
CASES = [
    {"n": 2000, "first": 5},
    AT_BUDGET,  # and both printed streams at their own budget: the longest result line
    {"n": 2620, "first": 10**12},  # one byte over
    {"n": 9000, "first": 0},
]
VERDICTS = ["AC", "AC", "WA", "WA"]
TOO_LARGE = "expected a long[], got <a list too large to report> (list)"

SOURCES = {
    "python": "import sys\n"
    "def solution(n, first):\n"
    "    if n == 2620 and first == 10**11:\n"  # a '"' takes two bytes of JSON
    "        print('\"' * 9000)\n"
    "        print('\"' * 9000, file=sys.stderr)\n"
    "    return [first] + [0] * (n - 1)\n",
    "cpp": "#include <bits/stdc++.h>\nusing namespace std;\n"
    "vector<long long> solution(int n, long long first) {\n"
    "  if (n == 2620 && first == 100000000000LL) {\n"
    "    string q(9000, '\"');\n"
    "    cout << q;\n"
    "    cerr << q;\n"
    "  }\n"
    "  vector<long long> out(n, 0);\n"
    "  out[0] = first;\n"
    "  return out;\n}\n",
    "java": "class Solution {\n"
    "    public long[] solution(int n, long first) {\n"
    "        if (n == 2620 && first == 100000000000L) {\n"
    '            String q = "\\"".repeat(9000);\n'
    "            System.out.print(q);\n"
    "            System.err.print(q);\n"
    "        }\n"
    "        long[] out = new long[n];\n"
    "        out[0] = first;\n"
    "        return out;\n    }\n}\n",
    "kotlin": "class Solution {\n"
    "    fun solution(n: Int, first: Long): LongArray {\n"
    "        if (n == 2620 && first == 100000000000L) {\n"
    '            val q = "\\"".repeat(9000)\n'
    "            print(q)\n"
    "            System.err.print(q)\n"
    "        }\n"
    "        val out = LongArray(n)\n"
    "        out[0] = first\n"
    "        return out\n    }\n}\n",
}


# 26 + 1559 commas + (23 + 9) + 1559 * 41 = 65,536: a 9-character `first` fits, 10 do not
MARKS_CASES = [{"n": 1560, "first": "x" * 9}, {"n": 1560, "first": "x" * 10}]
MARKS_SOURCES = {
    "python": "def solution(n, first):\n    return [first] + ['é😀'] * (n - 1)\n",
    "cpp": "#include <bits/stdc++.h>\nusing namespace std;\n"
    "vector<string> solution(int n, string first) {\n"
    '  vector<string> out(n, "é😀");\n'
    "  out[0] = first;\n"
    "  return out;\n}\n",
}


def _compact_size(value: Any) -> int:
    return len(harness.compact(harness.encode_answer(value)))


def test_the_python_harness_charges_each_value_its_compact_report() -> None:
    values = [0, -(10**40), True, False, "", 'a"b\\c', "été", "😀x", "😀" * 1000, 1.5, None]
    values += ["a\x00", "x" * 1001, 2**20000, [1, [2]]]
    for value in values:
        for report in harness.encode_answer([value])["items"]:
            if report["type"] != "list":
                assert harness.reported_bytes(report) == len(harness.compact(report)), value
    assert _compact_size(ZEROS.reference(AT_BUDGET)) == harness.MAX_REPORTED_BYTES
    assert _compact_size(MARKS.reference(MARKS_CASES[0])) == harness.MAX_REPORTED_BYTES
    assert harness.encode_answer(ZEROS.reference(CASES[2])) == {
        "type": "list",
        "repr": "<a list too large to report>",
    }


def test_a_report_line_at_every_bound_stays_under_the_line_limit() -> None:
    # The answer, two printed streams and the figures (event, i, cpu, wall, rss_kb, output_cut)
    limit = RunLimits(cpu_s=1.0, wall_s=1.0, memory_bytes=1).result_line_bytes
    figures = len(
        json.dumps({"event": "result", "i": 10**9, "answer": None, "output_cut": False})
    ) + 3 * len(',"cpu":1234567890.123456789')
    line = harness.MAX_REPORTED_BYTES + 2 * (harness.OUTPUT_JSON_BUDGET + 12) + figures
    assert line < limit - 16 * 1024  # with margin
    assert cpp_driver.OUTPUT_JSON_BUDGET == harness.OUTPUT_JSON_BUDGET


def test_every_driver_is_given_the_harness_bounds() -> None:
    bounds = (str(harness.MAX_REPORTED_VALUES), str(harness.MAX_REPORTED_BYTES))
    cpp = cpp_driver.driver_source(ZEROS)
    assert f"kMaxValues = {bounds[0]};" in cpp and f"kMaxBytes = {bounds[1]};" in cpp
    for source in (
        java_driver_runtime("Solution.java"),
        kotlin_driver_runtime("Solution.kt"),
    ):
        assert bounds[0] in source and f"MAX_BYTES = {bounds[1]}" in source
        assert "@" + "MAX_" not in source
    for glue in (java_driver(ZEROS, 256, "solution"), kotlin_driver(ZEROS, 256, "solution")):
        assert not re.search(r"@[A-Z_]+@", glue.decode())  # every placeholder filled


def _installed(language: str) -> None:
    try:
        get_language(language).version()
    except LanguageUnavailable:
        pytest.skip(f"{language} is not installed")


@pytest.mark.parametrize("language", list(SOURCES))
def test_a_list_too_large_to_report_is_a_wrong_type_in_every_language(
    language: str, sandbox, build_cache
) -> None:
    _installed(language)
    result = run_cases(
        ZEROS, SOURCES[language], CASES, sandbox=sandbox, language=language, build_cache=build_cache
    )
    assert result.status == DONE, result.message
    got = [(t.verdict.value, t.message) for t in result.results]
    assert [verdict for verdict, _ in got] == VERDICTS, got
    assert [message for verdict, message in got if verdict == "WA"] == [TOO_LARGE] * 2
    longest = result.results[1]
    assert longest.output_cut and longest.stdout.startswith('""') and longest.stderr


@pytest.mark.parametrize("language", list(MARKS_SOURCES))
def test_a_character_beyond_ascii_is_charged_its_escape_in_every_driver(
    language: str, sandbox, build_cache
) -> None:
    _installed(language)
    source = MARKS_SOURCES[language]
    result = run_cases(
        MARKS, source, MARKS_CASES, sandbox=sandbox, language=language, build_cache=build_cache
    )
    assert result.status == DONE, result.message
    assert [(t.verdict.value, t.message) for t in result.results] == [
        ("AC", ""),
        ("WA", "expected a str[], got <a list too large to report> (list)"),
    ]


def test_a_python_list_of_9000_for_an_int_is_too_large_not_malformed(sandbox) -> None:
    source = "def solution(board):\n    return [0] * 9000\n"
    result = run_cases("numbergame", source, [{"board": [1, 2]}], sandbox=sandbox)
    assert result.status == DONE, result.message
    [test] = result.results
    assert (test.verdict.value, test.message) == (
        "WA",
        "expected an int, got <a list too large to report> (list)",
    )

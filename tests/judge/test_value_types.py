"""The value types bool, str, long and lists of them, through the real sandbox in every
language: two tiny problems declared here, graded with run_cases on cases of their own.

    pick(words: str[], upper: bool, at: long) -> str     words[at % len(words)], upper-cased
                                                        when `upper`
    has(words: str[], upper: bool, at: long) -> bool     whether some word is longer than `at`

`at` goes beyond 32 bits, and the words hold spaces and non-ASCII letters, so a driver
reading them wrong fails. Compiling costs seconds (Kotlin about ten): each compiled language
builds three sources, a right `pick`, a `has` that is wrong on one case and a `has` that
returns an int."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from judge.answers import BOOL, LONG, STR, list_of, parse_type, to_json
from judge.diagnosis.tree_search import answer_json
from judge.execution.runners import Outcome
from judge.grading.hidden_tier import outcome_from_wire, outcome_to_wire
from judge.grading.runs import DONE, run_cases
from judge.languages import LanguageUnavailable, Style, get_language
from judge.languages.drivers.cpp_driver import cpp_type
from judge.languages.drivers.cpp_driver import signature as cpp_signature
from judge.languages.jvm import java_type, kotlin_type
from judge.languages.tests_text import encode_case
from judge.problems import Case, InvalidCase, Limits, ProblemSpec, View
from judge.problems import get as get_problem
from judge.verdict import Verdict

PARAMS = ("words", "upper", "at")
PARAM_TYPES = {"words": list_of(STR), "upper": BOOL, "at": LONG}


def _pick(case: Case) -> str:
    word = case["words"][case["at"] % len(case["words"])]
    return word.upper() if case["upper"] else word


def _has(case: Case) -> bool:
    return any(len(word) > case["at"] for word in case["words"])


def _validate(case: Case) -> None:
    if not case.get("words"):
        raise InvalidCase("words must not be empty")


def _problem(slug: str, answer: Any, reference: Callable[[Case], Any]) -> ProblemSpec:
    sample = {"words": ["a"], "upper": False, "at": 0}
    return ProblemSpec(
        SLUG=slug,
        TITLE=slug,
        STATEMENT="",
        PARAMS=PARAMS,
        PARAM_TYPES=PARAM_TYPES,
        ANSWER=answer,
        VIEW=View("none"),
        # A run's budget includes its compile: kotlinc alone took over a minute when the
        # suite loads the machine, and these tests are about values, not time.
        LIMITS=Limits(time_s=2.0, memory_mb=256, total_s=300.0),
        SAMPLES=[{"input": sample, "answer": reference(sample)}],
        PROFILES={"any": 1.0},
        RANDOM_COUNT=0,
        validate=_validate,
        generate=lambda rng, profile: sample,
        reference=reference,
        check=lambda case, expected, got: answer.check(expected, got),
        explain=lambda case: {},
        shrink=lambda case: [],
    )


PICK = _problem("pick", STR, _pick)
HAS = _problem("has", BOOL, _has)

CASES = [
    {"words": ["ab", "c d", "été"], "upper": True, "at": 3 * 2**40 + 1},  # at % 3 == 1
    {"words": ["ab", "c d", "été"], "upper": True, "at": 2**62 + 2},  # at % 3 == 0
    {"words": ["x", "été"], "upper": False, "at": -(2**63)},
    {"words": [" ", "long word"], "upper": False, "at": 4},
]
EXPECTED_PICK = ["C D", "AB", "x", " "]
EXPECTED_HAS = [False, False, True, True]
# `has` wrong on the last case (counts bytes, not characters, on the others: all ASCII there)
WRONG_ON = 3

SOURCES = {
    "python": {
        "pick": "def solution(words, upper, at):\n"
        "    word = words[at % len(words)]\n"
        "    return word.upper() if upper else word\n",
        "has_wrong": "def solution(words, upper, at):\n"
        "    return any(len(w) > at for w in words) and at != 4\n",
        "has_int": "def solution(words, upper, at):\n"
        "    return int(any(len(w) > at for w in words))\n",
    },
    "cpp": {
        "pick": "#include <bits/stdc++.h>\nusing namespace std;\n"
        "string solution(vector<string> words, bool upper, long long at) {\n"
        "  long long n = words.size();\n"
        "  string word = words[((at % n) + n) % n];\n"
        "  if (upper) for (auto& c : word) c = toupper((unsigned char)c);\n"
        "  return word;\n}\n",
        "has_wrong": "#include <bits/stdc++.h>\nusing namespace std;\n"
        "bool solution(const vector<string>& words, bool upper, long long at) {\n"
        "  for (auto& w : words) if ((long long)w.size() > at && at != 4) return true;\n"
        "  return false;\n}\n",
        "has_int": "#include <bits/stdc++.h>\nusing namespace std;\n"
        "int solution(vector<string> words, bool upper, long long at) {\n"
        "  for (auto& w : words) if ((long long)w.size() > at) return 1;\n"
        "  return 0;\n}\n",
    },
    "java": {
        "pick": "class Solution {\n"
        "    public String solution(String[] words, boolean upper, long at) {\n"
        "        String word = words[(int) Math.floorMod(at, (long) words.length)];\n"
        "        return upper ? word.toUpperCase() : word;\n    }\n}\n",
        "has_wrong": "class Solution {\n"
        "    public boolean solution(String[] words, boolean upper, long at) {\n"
        "        for (String w : words) if (w.length() > at && at != 4) return true;\n"
        "        return false;\n    }\n}\n",
        "has_int": "class Solution {\n"
        "    public int solution(String[] words, boolean upper, long at) {\n"
        "        for (String w : words) if (w.length() > at) return 1;\n"
        "        return 0;\n    }\n}\n",
    },
    "kotlin": {
        "pick": "class Solution {\n"
        "    fun solution(words: Array<String>, upper: Boolean, at: Long): String {\n"
        "        val word = words[Math.floorMod(at, words.size.toLong()).toInt()]\n"
        "        return if (upper) word.toUpperCase() else word\n    }\n}\n",
        "has_wrong": "class Solution {\n"
        "    fun solution(words: Array<String>, upper: Boolean, at: Long): Boolean =\n"
        "        words.any { it.length > at } && at != 4L\n}\n",
        "has_int": "class Solution {\n"
        "    fun solution(words: Array<String>, upper: Boolean, at: Long): Int =\n"
        "        if (words.any { it.length > at }) 1 else 0\n}\n",
    },
}


def test_signatures_name_the_types_in_each_language() -> None:
    assert get_language("java").signature(PICK) == (
        "public String solution(String[] words, boolean upper, long at)"
    )
    assert get_language("kotlin").signature(HAS) == (
        "fun solution(words: Array<String>, upper: Boolean, at: Long): Boolean"
    )
    assert cpp_signature(PICK) == "string solution(vector<string> words, bool upper, long long at)"
    nested = (parse_type("str[][]"), parse_type("bool[][]"), parse_type("long[]"))
    assert [java_type(t) for t in nested] == ["String[][]", "boolean[][]", "long[]"]
    assert [kotlin_type(t) for t in nested] == [
        "Array<Array<String>>",
        "Array<BooleanArray>",
        "LongArray",
    ]
    assert [cpp_type(t, "") for t in nested] == [
        "vector<vector<string>>",
        "vector<vector<bool>>",
        "vector<long long>",
    ]
    assert 'return ""\n' in get_language("python").template(PICK, Style.FUNCTION)
    assert 'String answer = "";' in get_language("java").template(PICK, Style.FUNCTION)


def _run(
    problem: ProblemSpec, language: str, source: str, sandbox, build_cache=None
) -> list[tuple[str, Any]]:
    """Each case's verdict, and what the student reads: the message of a failure, the
    answer (as stored) of a success."""
    try:
        get_language(language).version()
    except LanguageUnavailable:
        pytest.skip(f"{language} is not installed")
    result = run_cases(
        problem, source, CASES, sandbox=sandbox, language=language, build_cache=build_cache
    )
    assert result.status == DONE, result.message
    return [(t.verdict.value, t.message or t.got) for t in result.results]


@pytest.mark.parametrize("language", list(SOURCES))
def test_str_bool_and_long_reach_the_solution_and_come_back(
    language: str, sandbox, build_cache
) -> None:
    got = _run(PICK, language, SOURCES[language]["pick"], sandbox, build_cache)
    assert got == [("AC", to_json(word)) for word in EXPECTED_PICK]

    got = _run(HAS, language, SOURCES[language]["has_wrong"], sandbox, build_cache)
    right = [("AC", to_json(answer)) for answer in EXPECTED_HAS]
    assert got == [*right[:WRONG_ON], ("WA", "expected True, got False")]

    got = _run(HAS, language, SOURCES[language]["has_int"], sandbox, build_cache)
    assert got == [("WA", f"expected a bool, got {int(a)} (int)") for a in EXPECTED_HAS]


def test_python_answers_of_the_wrong_type_or_invalid_strs_are_wrong_types(sandbox) -> None:
    source = "def solution(words, upper, at):\n    return 'a\\x00b' if upper else 'x' * 5000\n"
    got = _run(PICK, "python", source, sandbox)
    control = "expected a str, got <a str holding a control character ('a\\x00b')> (str)"
    oversize = "expected a str, got <a str of 5000 characters (at most 1000)> (str)"
    assert got == [("WA", control)] * 2 + [("WA", oversize)] * 2
    source = "def solution(words, upper, at):\n    return str(at < 0)\n"
    got = _run(HAS, "python", source, sandbox)
    assert got[2] == ("WA", "expected a bool, got 'True' (str)")


def test_the_reference_agrees_with_the_expected_answers() -> None:
    assert [_pick(case) for case in CASES] == EXPECTED_PICK
    assert [_has(case) for case in CASES] == EXPECTED_HAS


def test_the_tests_text_carries_strs_by_their_utf8_size_and_bools_as_bits() -> None:
    assert encode_case(PICK, CASES[0]) == "3 2 ab 3 c d 5 été 1 3298534883329\n".encode()
    assert encode_case(PICK, {"words": [""], "upper": False, "at": -(2**63)}) == (
        b"1 0  0 -9223372036854775808\n"
    )


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ({"words": ["a\nb"], "upper": True, "at": 0}, "not a valid str"),
        ({"words": ["x" * 1001], "upper": True, "at": 0}, "not a valid str"),
        ({"words": ["a"], "upper": 1, "at": 0}, "bool argument that is not one"),
        ({"words": ["a"], "upper": True, "at": 2**63}, "long argument out of range"),
        ({"words": ["a"], "upper": True, "at": True}, "long argument out of range"),
    ],
)
def test_a_value_outside_its_type_never_reaches_a_driver(case: Case, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        encode_case(PICK, case)


def test_an_int_argument_beyond_32_bits_never_reaches_a_driver() -> None:
    numbergame = get_problem("numbergame")
    assert (
        encode_case(numbergame, {"board": [2**31 - 1, -(2**31)]}) == b"2 2147483647 -2147483648\n"
    )
    for board in ([2**31], [-(2**31) - 1]):
        with pytest.raises(ValueError, match="int argument out of range"):
            encode_case(numbergame, {"board": board})


def test_bools_and_strs_cross_from_a_hidden_host_and_are_named_by_the_bug_search() -> None:
    for got in (True, False, "c d", ["a", "b"], [[True]], 2**40):
        outcome = Outcome(Verdict.AC, "", got=got)
        back = outcome_from_wire(json.loads(json.dumps(outcome_to_wire(outcome))))
        assert back.got == got and type(back.got) is type(got)
    assert answer_json(True) == "True (bool)" and answer_json("ab") == "'ab' (str)"
    assert answer_json(7) == 7

"""Answer types: what the harness reports, what the judge decodes outside the sandbox, and the
types a problem declares (its answer, its parameters) deciding what passes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from judge import answers, problems
from judge.answers import INT, list_of, parse_type
from judge.grading.grade import grade
from judge.languages.drivers import harness
from tests.judge import corpus


class LyingInt(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


class LyingList(list):
    pass


def returned(value: Any) -> Any:
    """`value` as the judge sees it after the harness reported it through a JSON line."""
    return answers.decode(json.loads(json.dumps(harness.encode_answer(value))))


@pytest.mark.parametrize("name", ["int", "int[]", "int[][]"])
def test_a_type_is_named_as_a_signature_writes_it(name: str) -> None:
    assert parse_type(name).name == name
    assert str(parse_type(name)) == name


def test_an_unknown_type_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown value type 'float'"):
        parse_type("float")


def test_the_declared_types_are_the_exact_ones() -> None:
    assert parse_type("int[][]") == list_of(list_of(INT))
    grid = list_of(list_of(INT))
    assert grid.accepts([[1, 0], [0, 1]]) and grid.accepts([])
    assert not grid.accepts([1, 0])
    assert not grid.accepts([[1, True]])
    assert not grid.accepts([(1, 0)])
    assert not INT.accepts(True) and not INT.accepts(5.0) and not INT.accepts(LyingInt(5))


@pytest.mark.parametrize(
    "value",
    [5, -(10**3999), [], [1, -2, 3], [[1, 0], [0, 1]], [[], [7]]],
)
def test_ints_and_lists_of_them_come_back_as_they_were(value: Any) -> None:
    got = returned(value)
    assert got == value
    assert parse_type("int").accepts(got) == (type(value) is int)


@pytest.mark.parametrize(
    ("value", "expected", "message"),
    [
        (True, 1, "expected an int, got True (bool)"),
        (5.0, 5, "expected an int, got 5.0 (float)"),
        ("5", 5, "expected an int, got '5' (str)"),
        (None, 0, "expected an int, got None (NoneType)"),
        (LyingInt(5), 5, "expected an int, got 5 (LyingInt)"),
        ([5], 5, "expected an int, got [5] (list)"),
        (6, 5, "expected 5, got 6"),
        (5, 5, "correct: 5"),
    ],
)
def test_an_int_answer_is_as_strict_as_ever(value: Any, expected: int, message: str) -> None:
    assert INT.check(expected, returned(value)) == (message.startswith("correct"), message)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([[1, 0], [0, 1]], "correct: [[1, 0], [0, 1]]"),
        ([[1, 0], [0, 2]], "expected [[1, 0], [0, 1]], got [[1, 0], [0, 2]]"),
        ([[1, 0], [0, True]], "expected an int[][], got [[1, 0], [0, True]] (list)"),
        ([[1, 0], LyingList([0, 1])], "expected an int[][], got [[1, 0], [0, 1]] (list)"),
        (LyingList([[1, 0], [0, 1]]), "expected an int[][], got [[1, 0], [0, 1]] (LyingList)"),
        ([[1, 0], (0, 1)], "expected an int[][], got [[1, 0], (0, 1)] (list)"),
    ],
)
def test_a_list_answer_is_checked_item_by_item(value: Any, message: str) -> None:
    grid = list_of(list_of(INT))
    assert grid.check([[1, 0], [0, 1]], returned(value)) == (message.startswith("correct"), message)


def test_a_huge_or_deep_list_is_reported_by_its_repr_alone() -> None:
    too_many, too_long = [0] * (harness.MAX_REPORTED_VALUES + 1), [10**3000] * 22  # 66,576 bytes
    for value in (too_many, too_long, [0] * 9000, [[[[1]]]]):
        line = json.dumps(harness.encode_answer(value))
        assert len(line) < 64 << 10
        got = answers.decode(json.loads(line))
        assert not list_of(INT).accepts(got) and not parse_type("int[][]").accepts(got)
        assert answers.to_json(got)["type"] == "list"


def test_a_forged_report_nested_too_deep_is_malformed() -> None:
    report: dict[str, Any] = {"type": "int", "int": "1"}
    for _ in range(answers.MAX_LIST_DEPTH + 1):
        report = {"type": "list", "items": [report]}
    with pytest.raises(answers.MalformedReport, match="deeper"):
        answers.decode(report)


def test_stored_answers_keep_their_form() -> None:
    """An int is stored as itself; anything else, lists too, as its type and a short repr."""
    assert answers.to_json(returned(12)) == 12
    assert answers.to_json(returned([1, 2])) == {"type": "list", "repr": "[1, 2]"}
    assert answers.to_json(returned(True)) == {"type": "bool", "repr": "True"}


def test_every_problem_declares_its_signature() -> None:
    for problem in problems.registry().values():
        assert tuple(problem.PARAM_TYPES) == problem.PARAMS
        for sample in problem.SAMPLES:
            assert problem.ANSWER.accepts(sample["answer"])
            assert all(t.accepts(sample["input"][p]) for p, t in problem.PARAM_TYPES.items())


# An accepted solution whose last line returns `dp[0][n]`, the answer, as an exact int.
ROW_SOLVER = corpus.ROOT / "accepted" / "numbergame_dp.py"


@pytest.mark.parametrize(
    ("returns", "message"),
    [
        ("dp[0][n]", ""),  # accepted: nothing to say
        ("[dp[0][n]]", "expected an int, got [-1000] (list)"),
        ("Row([dp[0][n]])", "expected an int, got [-1000] (Row)"),
        ("dp[0][n] == -1000", "expected an int, got True (bool)"),
    ],
)
def test_the_declared_answer_type_holds_through_the_sandbox(
    returns: str, message: str, sandbox
) -> None:
    """The first sample of numbergame, through the real harness: only an exact int passes."""
    accepted = ROW_SOLVER.read_text()
    assert "    return dp[0][n]\n" in accepted
    row_class = "class Row(list):\n    pass\n\n\n"
    source = row_class + accepted.replace("return dp[0][n]", f"return {returns}")
    result = grade("numbergame", source.encode(), seed=1, random_count=0, sandbox=sandbox)
    first = result.tests[0]
    assert (first.verdict.value, first.message) == ("WA" if message else "AC", message)


def test_answer_lines_are_read_strictly():
    from judge.answers import INT, BadAnswerLine, list_of

    assert [INT.parse_line(t) for t in ("5", "-3", "0", " 12\t", "7\r")] == [5, -3, 0, 12, 7]
    for bad in ("5.0", "05", "-0", "+5", "", "   ", "five", "1 2", "5e3", "٣", "9" * 4001):
        with pytest.raises(BadAnswerLine):
            INT.parse_line(bad)
    assert list_of(INT).parse_line("1 -2 3") == [1, -2, 3] and list_of(INT).parse_line("") == []
    with pytest.raises(BadAnswerLine):
        list_of(INT).parse_line("1  2")  # items separated by one space


# -- bool, str, long and lists of them ------------------------------------------------------

BOOL, LONG, STR = answers.BOOL, answers.LONG, answers.STR


@pytest.mark.parametrize(
    "name", ["bool", "str", "long", "bool[]", "str[]", "str[][]", "long[]", "long[][]"]
)
def test_the_new_types_are_named_as_signatures_write_them(name: str) -> None:
    assert parse_type(name).name == name


def test_an_unknown_type_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"known: int, long, bool, str, and lists of them"):
        parse_type("string")
    with pytest.raises(ValueError, match="unknown value type 'char'"):
        parse_type("char[]")


def test_bool_and_int_never_pass_for_each_other() -> None:
    assert BOOL.accepts(True) and BOOL.accepts(False)
    assert not BOOL.accepts(1) and not BOOL.accepts(0) and not BOOL.accepts("true")
    assert not INT.accepts(True) and not LONG.accepts(False)
    assert BOOL.check(True, returned(1)) == (False, "expected a bool, got 1 (int)")
    assert INT.check(1, returned(True)) == (False, "expected an int, got True (bool)")
    assert BOOL.check(True, returned(False)) == (False, "expected True, got False")
    assert BOOL.check(False, returned(False)) == (True, "correct: False")
    assert list_of(BOOL).check([True], returned([1])) == (
        False,
        "expected a bool[], got [1] (list)",
    )


def test_long_is_64_bits_and_int_is_unbounded_in_python() -> None:
    top, bottom = 2**63 - 1, -(2**63)
    assert LONG.accepts(top) and LONG.accepts(bottom)
    assert not LONG.accepts(top + 1) and not LONG.accepts(bottom - 1) and not LONG.accepts(1.0)
    assert INT.accepts(top + 1)
    assert LONG.check(5, returned(2**63)) == (False, f"expected a long, got {2**63} (int)")
    assert LONG.check(2**40, returned(2**40)) == (True, f"correct: {2**40}")


def test_a_str_is_bounded_text_without_control_characters() -> None:
    assert STR.accepts("") and STR.accepts("c d été 🙂") and STR.accepts("x" * 1000)
    for bad in ("x" * 1001, "a\x00b", "tab\there", "line\n", "\x1b[2J", "\x7f", "\x9b", "\ud800"):
        assert not STR.accepts(bad), repr(bad)
    assert not STR.accepts(5) and not STR.accepts(["a"]) and not STR.accepts(b"a")
    assert STR.check("ab", returned("ab")) == (True, "correct: 'ab'")
    assert STR.check("ab", returned("ba")) == (False, "expected 'ab', got 'ba'")
    assert STR.check("5", returned(5)) == (False, "expected a str, got 5 (int)")
    ok, message = STR.check("x" * 300 + "a", returned("x" * 300 + "b"))
    assert not ok and message.endswith("(they differ from character 301 on)")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a\x00b", r"expected a str, got <a str holding a control character ('a\x00b')> (str)"),
        ("x" * 1001, "expected a str, got <a str of 1001 characters (at most 1000)> (str)"),
        ("\ud83d", r"expected a str, got <a str holding a control character ('\ud83d')> (str)"),
    ],
)
def test_an_invalid_str_answer_is_a_wrong_type_said_plainly(value: str, message: str) -> None:
    got = returned(value)
    assert isinstance(got, answers.Opaque)
    assert STR.check("a", got) == (False, message)
    assert answers.to_json(got)["type"] == "str"


def test_strs_and_bools_come_back_as_they_were_in_lists_too() -> None:
    for value in (True, False, "", "c d été 🙂", [True, False], ["a", "b c"], [["x"], []]):
        assert returned(value) == value and type(returned(value)) is type(value)
    assert parse_type("str[][]").accepts(returned([["x"], []]))


@pytest.mark.parametrize(
    ("report", "decoded"),
    [
        ({"type": "bool", "bool": True}, True),
        ({"type": "bool", "bool": 1, "repr": "1"}, answers.Opaque("bool", "1")),  # an int as bool
        ({"type": "int", "int": "1"}, 1),  # a bool reported as an int is an int: no bool
        ({"type": "str", "str": "ok"}, "ok"),
        (
            {"type": "str", "str": "x" * 5000},
            answers.Opaque("str", "<a str of 5000 characters (at most 1000)>"),
        ),
        ({"type": "str", "str": 5, "repr": "5"}, answers.Opaque("str", "5")),
        (
            {"type": "list", "items": [{"type": "str", "str": "a\x00"}]},
            [answers.Opaque("str", r"<a str holding a control character ('a\x00')>")],
        ),
    ],
)
def test_forged_bool_and_str_reports_decode_strictly(report: dict[str, Any], decoded: Any) -> None:
    got = answers.decode(report)
    assert got == decoded and type(got) is type(decoded)
    assert not BOOL.accepts(answers.decode({"type": "int", "int": "1"}))


@pytest.mark.parametrize(
    "report",
    [
        {"type": "bool", "bool": 1},  # neither a bool nor a repr
        {"type": "str", "str": None},
        {"type": "str"},
        {
            "type": "list",
            "items": [
                {
                    "type": "list",
                    "items": [{"type": "list", "items": [{"type": "list", "items": []}]}],
                }
            ],
        },
    ],
)
def test_forged_reports_without_a_value_or_nested_too_deep_are_malformed(report: Any) -> None:
    with pytest.raises(answers.MalformedReport):
        answers.decode(report)


def test_a_str_list_beyond_the_reported_bytes_is_reported_by_its_repr_alone() -> None:
    wide = ["é" * 1000] * 40  # 40,000 characters, each 6 once escaped
    line = json.dumps(harness.encode_answer(wide))
    assert len(line) < 128 << 10
    assert not list_of(STR).accepts(answers.decode(json.loads(line)))
    assert returned(["x" * 1000] * 60) == ["x" * 1000] * 60  # 61,465 bytes: within the bound
    quotes = ['"' * 1000] * 40  # 40,000 characters, 80,000 once escaped
    assert not list_of(STR).accepts(returned(quotes))


def test_shown_and_stored_strs_are_quoted_and_bounded() -> None:
    assert answers.show("a'b\n") == '"a\'b\\n"'
    assert len(answers.show("x" * 1000)) == 200
    assert answers.describe("ab") == "'ab' (str)" and answers.describe(False) == "False (bool)"
    assert answers.to_json("ab") == {"type": "str", "repr": "'ab'"}
    assert answers.to_json(True) == {"type": "bool", "repr": "True"}
    assert answers.to_json(["a"]) == {"type": "list", "repr": "['a']"}


def test_bool_str_and_long_lines_are_read_strictly() -> None:
    assert [BOOL.parse_line(t) for t in ("true", "false", "True", " FALSE\r")] == [
        True,
        False,
        True,
        False,
    ]
    for bad in ("1", "0", "yes", "", "true false", "t"):
        with pytest.raises(answers.BadAnswerLine, match="expected a bool"):
            BOOL.parse_line(bad)
    assert STR.parse_line("  hello world \r") == "hello world" and STR.parse_line("") == ""
    for bad in ("a\x00b", "a\tb", "x" * 1001):
        with pytest.raises(answers.BadAnswerLine, match="expected a str"):
            STR.parse_line(bad)
    assert LONG.parse_line("-9223372036854775808") == -(2**63)
    for bad in ("9223372036854775808", "1.0", "05", ""):
        with pytest.raises(answers.BadAnswerLine, match="expected a long"):
            LONG.parse_line(bad)
    assert list_of(STR).parse_line("ab c été") == ["ab", "c", "été"]
    assert list_of(BOOL).parse_line("true False") == [True, False]
    assert list_of(STR).parse_line("") == [] and list_of(LONG).parse_line("1 -2") == [1, -2]
    for bad in ("a  b", "a\tb"):
        with pytest.raises(answers.BadAnswerLine):
            list_of(STR).parse_line(bad)
    with pytest.raises(answers.BadAnswerLine, match="cannot be read from a line"):
        parse_type("str[][]").parse_line("a b")

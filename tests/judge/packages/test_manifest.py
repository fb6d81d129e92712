"""problem.toml read into a Manifest, statement.md and boards/: the contract's example whole,
each kind of problem with its exact message, and every problem of a package reported at once."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import judge
from judge.answers import INT, list_of
from judge.problems import Limits, View, manifest
from judge.problems.manifest import (
    Board,
    Manifest,
    ManifestError,
    Param,
    parse_manifest,
    read_boards,
    read_manifest,
    read_statement,
    strict_json,
)

# The contract's example, comments and all.
TICTACTOE = """\
slug = "tictactoe"                 # ^[a-z][a-z0-9_]{1,31}$, unique in a service
title = "Tic-tac-toe"

[signature]                        # solution(board) -> int in every language
params = [{ name = "board", type = "int[][]" }]
returns = "int"                    # types: int, int[], int[][] (more may be offered later)

[limits]
time_s = 1.0                       # CPU seconds per test (per case)
memory_mb = 256
total_s = 60                       # wall budget of a whole grading

[plan]
random = 40                        # random boards per submission
profiles = { opening = 1.0, late = 2.0 }   # generate()'s profile names and their weights

[view]
kind = "json"                      # how pages draw and edit a case; "json" (an editor made from
                                   # the signature) always works; "grid-two-pieces", "number-row"
                                   # and others the judge offers may be named

[[samples]]
input = { board = [[0, 0, 0], [0, 0, 0], [0, 0, 0]] }
answer = 0
"""

EMPTY_BOARD = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]


def problems_of(text: str, **kwargs) -> list[str]:
    with pytest.raises(ManifestError) as caught:
        parse_manifest(text, **kwargs)
    assert str(caught.value) == "\n".join(caught.value.problems)
    return caught.value.problems


def assert_problems(found: list[str], expected: list[str]) -> None:
    assert len(found) == len(expected), found
    for got, want in zip(found, expected, strict=True):
        # parse_type's message goes on to list the types it knows, which will grow
        assert got == want or got.startswith(want + " (known: "), (got, want)


def edited(old: str, new: str) -> str:
    assert old in TICTACTOE, old
    return TICTACTOE.replace(old, new, 1)


# ---- manifests that are read -------------------------------------------------------------------


def test_the_contracts_example_is_read_whole():
    assert parse_manifest(TICTACTOE) == Manifest(
        slug="tictactoe",
        title="Tic-tac-toe",
        params=(Param("board", list_of(list_of(INT))),),
        returns=INT,
        limits=Limits(time_s=1.0, memory_mb=256, total_s=60.0),
        random_count=40,
        profiles={"opening": 1.0, "late": 2.0},
        view=View("json", {}),
        samples=({"input": {"board": EMPTY_BOARD}, "answer": 0},),
    )


def test_the_manifest_gives_the_signature_as_a_problem_spec_declares_it():
    found = parse_manifest(
        edited(
            '"board", type = "int[][]" }',
            '"board", type = "int[][]" }, { name = "n", type = "int" }',
        ).replace("input = { board = ", "input = { n = 3, board = ")
    )
    assert found.param_names == ("board", "n")
    assert found.param_types == {"board": list_of(list_of(INT)), "n": INT}
    assert isinstance(found.limits.time_s, float)
    assert isinstance(found.limits.total_s, float)


def test_limits_and_view_may_be_left_out():
    text = TICTACTOE.split("[limits]")[0] + "[plan]" + TICTACTOE.split("[plan]")[1]
    text = text.split("[view]")[0] + "[[samples]]" + text.split("[[samples]]")[1]
    found = parse_manifest(text)
    assert found.limits == manifest.DEFAULT_LIMITS == Limits(1.0, 256, 60.0)
    assert found.view == View("json", {})
    found = parse_manifest(edited("time_s = 1.0 ", "time_s = 2 "))
    assert found.limits == Limits(2.0, 256, 60.0)


def test_a_named_view_kind_with_bounds():
    found = parse_manifest(edited('kind = "json"', 'kind = "number-row"\nbounds = { max_abs = 9 }'))
    assert found.view == View("number-row", {"max_abs": 9})


def test_the_view_kinds_are_a_parameter():
    text = edited('kind = "json"', 'kind = "hex-grid"')
    assert parse_manifest(text, view_kinds=("json", "hex-grid")).view.kind == "hex-grid"
    assert problems_of(text) == [
        "view.kind: unknown view kind 'hex-grid' (known: json, grid-two-pieces, number-row)"
    ]


def test_the_known_view_kinds_are_json_and_the_renderers_of_the_pages():
    script = Path(judge.__file__).parents[1] / "api" / "web" / "static" / "js" / "boards.js"
    views = script.read_text().split("export const VIEWS = {", 1)[1].split("};", 1)[0]
    assert set(manifest.VIEW_KINDS) == {"json", *re.findall(r'"([a-z-]+)":', views)}


def test_a_byte_order_mark_is_forgiven():
    assert parse_manifest("\ufeff" + TICTACTOE).slug == "tictactoe"


# ---- each kind of problem ----------------------------------------------------------------------


SLUG_FORM = manifest.SLUG[1]
NAME_FORM = manifest.PARAM_NAME[1]
PROFILE_FORM = manifest.PROFILE_NAME[1]
TOP_KEYS = "slug, title, signature, limits, plan, view, samples"
BOARD_INPUT = "input = { board = [[0, 0, 0], [0, 0, 0], [0, 0, 0]] }"
PROFILES = "profiles = { opening = 1.0, late = 2.0 }"

# (text in the example, its replacement, the problems it makes)
EDITS = [
    ('slug = "tictactoe"', 'slug = "Tic"', f'slug: must be {SLUG_FORM} (got "Tic")'),
    ('slug = "tictactoe"', 'slug = "t"', f'slug: must be {SLUG_FORM} (got "t")'),
    ('slug = "tictactoe"', "slug = 7", "slug: must be a string (got 7)"),
    (
        'title = "Tic-tac-toe"',
        'title = " "',
        'title: must be one line of 1 to 80 characters (got " ")',
    ),
    (
        'title = "Tic-tac-toe"',
        'title = "a\\nb"',
        'title: must be one line of 1 to 80 characters (got "a\\nb")',
    ),
    (
        'title = "Tic-tac-toe"',
        'titel = "Tic-tac-toe"',
        [f"problem.toml: unknown key 'titel' (known: {TOP_KEYS})", "title: missing (required)"],
    ),
    ('title = "Tic-tac-toe"', "", "title: missing (required)"),
    ('type = "int[][]"', 'type = "float"', "signature.params[0].type: unknown value type 'float'"),
    ('type = "int[][]"', "type = 3", "signature.params[0].type: must be a string (got 3)"),
    (
        'type = "int[][]"',
        'type = "int' + "[]" * 20 + '"',
        "signature.params[0].type: must be a type name of at most 40 characters",
    ),
    (
        'type = "int[][]"',
        'typ = "int[][]"',
        [
            "signature.params[0]: unknown key 'typ' (known: name, type)",
            "signature.params[0].type: missing (required)",
        ],
    ),
    (
        'name = "board"',
        'name = "2board"',
        [
            f'signature.params[0].name: must be {NAME_FORM} (got "2board")',
            # the samples are checked against the name as written
            "samples[0].input: missing parameter '2board'",
            "samples[0].input: unknown parameter 'board'",
        ],
    ),
    (
        '[{ name = "board", type = "int[][]" }]',
        "[]",
        "signature.params: must list 1 to 8 parameters (got [])",
    ),
    ('returns = "int"', 'returns = "int{}"', "signature.returns: unknown value type 'int{}'"),
    ('returns = "int"', "", "signature.returns: missing (required)"),
    ("time_s = 1.0 ", 'time_s = "1s" ', 'limits.time_s: must be a positive number (got "1s")'),
    ("time_s = 1.0 ", "time_s = 0 ", "limits.time_s: must be a positive number (got 0)"),
    ("time_s = 1.0 ", "time_s = nan ", "limits.time_s: must be a positive number (got nan)"),
    ("time_s = 1.0 ", "time_s = true ", "limits.time_s: must be a positive number (got true)"),
    ("time_s = 1.0 ", "time_s = 10.5 ", "limits.time_s: must be at most 10 s (got 10.5)"),
    ("time_s = 1.0 ", "time_s = 61 ", "limits.time_s: must be at most 10 s (got 61)"),
    ("memory_mb = 256", "memory_mb = 256.0", "limits.memory_mb: must be an integer (got 256.0)"),
    ("memory_mb = 256", "memory_mb = 16", "limits.memory_mb: must be between 32 and 1024 (got 16)"),
    (
        "memory_mb = 256",
        "memory_mb = 4096",
        "limits.memory_mb: must be between 32 and 1024 (got 4096)",
    ),
    ("total_s = 60 ", "total_s = inf ", "limits.total_s: must be a positive number (got inf)"),
    ("total_s = 60 ", "total_s = 601 ", "limits.total_s: must be at most 600 s (got 601)"),
    ("total_s = 60 ", "total_s = 0.5 ", "limits.total_s: must be at least limits.time_s (1 s)"),
    (
        "total_s = 60 ",
        "total_seconds = 60 ",
        "limits: unknown key 'total_seconds' (known: time_s, memory_mb, total_s)",
    ),
    ("random = 40 ", "random = -1 ", "plan.random: must be between 0 and 500 (got -1)"),
    ("random = 40 ", "random = 501 ", "plan.random: must be between 0 and 500 (got 501)"),
    ("random = 40 ", "", "plan.random: missing (required)"),
    ("opening = 1.0", "opening = 0", "plan.profiles.opening: must be a positive number (got 0)"),
    (
        "opening = 1.0",
        "opening = -inf",
        "plan.profiles.opening: must be a positive number (got -inf)",
    ),
    (
        "opening = 1.0",
        '"open ing" = 1.0',
        f'plan.profiles."open ing": a profile name must be {PROFILE_FORM}',
    ),
    (PROFILES, "profiles = {}", "plan.profiles: must name 1 to 32 profiles with their weights"),
    ('kind = "json"', "kind = 1", "view.kind: must be a string (got 1)"),
    (
        'kind = "json"',
        'kind = "json"\nbounds = { max_side = 7.5 }',
        "view.bounds.max_side: must be an integer (got 7.5)",
    ),
    (
        'kind = "json"',
        'kind = "json"\ncolour = "red"',
        "view: unknown key 'colour' (known: kind, bounds)",
    ),
    (
        BOARD_INPUT,
        "input = { bord = [] }",
        [
            "samples[0].input: missing parameter 'board'",
            "samples[0].input: unknown parameter 'bord'",
        ],
    ),
    (
        BOARD_INPUT,
        "input = { board = [[0, 0, 0], [0, 1.5, 0]] }",
        "samples[0].input.board[1][1]: must be an int (got 1.5)",
    ),
    (
        BOARD_INPUT,
        "input = { board = [[0, 0, 0], [0, false, 0]] }",
        "samples[0].input.board[1][1]: must be an int (got false)",
    ),
    (
        BOARD_INPUT,
        "input = { board = [0, 0, 0] }",
        "samples[0].input.board[0]: must be an int[] (got 0)",
    ),
    (
        BOARD_INPUT,
        'input = { board = "x" }',
        'samples[0].input.board: must be an int[][] (got "x")',
    ),
    (
        BOARD_INPUT,
        "input = [1]",
        "samples[0].input: must be an object keyed by the parameters (board), got [1]",
    ),
    ("answer = 0", "answer = 0.0", "samples[0].answer: must be an int (got 0.0)"),
    ("answer = 0", 'answer = "0"', 'samples[0].answer: must be an int (got "0")'),
    (
        "answer = 0",
        "answer = 0\nexplanation = 'x'",
        "samples[0]: unknown key 'explanation' (known: input, answer)",
    ),
    ("answer = 0", "", "samples[0].answer: missing (required)"),
]


@pytest.mark.parametrize(("old", "new", "problems"), EDITS)
def test_each_problem_is_named_by_its_key_path(old, new, problems):
    expected = [problems] if isinstance(problems, str) else problems
    assert_problems(problems_of(edited(old, new)), expected)


def test_a_table_that_is_not_one():
    text = TICTACTOE.split("[limits]")[0] + "[plan]" + TICTACTOE.split("[plan]")[1]
    text = text.replace('title = "Tic-tac-toe"', 'title = "Tic-tac-toe"\nlimits = 5')
    assert problems_of(text) == ["limits: must be a table (got 5)"]


def test_a_missing_table_is_named():
    assert problems_of(TICTACTOE.split("[[samples]]")[0]) == ["samples: missing (required)"]
    no_plan = TICTACTOE.split("[plan]")[0] + "[view]" + TICTACTOE.split("[view]")[1]
    assert problems_of(no_plan) == ["plan: missing (required)"]


def test_an_unknown_parameter_in_a_sample_is_named():
    text = edited("input = { board = ", "input = { extra = 1, board = ")
    assert problems_of(text) == ["samples[0].input: unknown parameter 'extra'"]


def test_a_parameter_named_twice():
    text = edited(
        '"board", type = "int[][]" }',
        '"board", type = "int[][]" }, { name = "board", type = "int" }',
    )
    assert problems_of(text) == ["signature.params[1].name: 'board' names two parameters"]


def test_text_that_is_not_toml():
    (problem,) = problems_of('slug = "tictactoe\ntitle = 1')
    assert problem.startswith("problem.toml: not valid TOML: ")
    assert "line 1" in problem


def test_every_problem_is_reported_at_once():
    text = """\
slug = "X"
titel = "typo"

[signature]
params = [{ name = "board", type = "float" }, { name = "n", type = "int" }]
returns = "int[]"

[limits]
time_s = "1s"
memory_mb = 8

[plan]
random = 40
profiles = { opening = 0 }

[view]
kind = "hex"

[[samples]]
input = { bord = [], n = 1.0 }
answer = [1, true]

[[samples]]
input = { board = [], n = 2 }
"""
    assert_problems(
        problems_of(text),
        [
            f"problem.toml: unknown key 'titel' (known: {TOP_KEYS})",
            "title: missing (required)",
            f'slug: must be {SLUG_FORM} (got "X")',
            "signature.params[0].type: unknown value type 'float'",
            'limits.time_s: must be a positive number (got "1s")',
            "limits.memory_mb: must be between 32 and 1024 (got 8)",
            "plan.profiles.opening: must be a positive number (got 0)",
            "view.kind: unknown view kind 'hex' (known: json, grid-two-pieces, number-row)",
            "samples[0].input: missing parameter 'board'",
            "samples[0].input: unknown parameter 'bord'",
            "samples[0].input.n: must be an int (got 1.0)",
            "samples[0].answer[1]: must be an int (got true)",
            "samples[1].answer: missing (required)",
        ],
    )


# ---- the files of a package --------------------------------------------------------------------


@pytest.fixture
def package(tmp_path: Path) -> Path:
    (tmp_path / "problem.toml").write_text(TICTACTOE)
    (tmp_path / "statement.md").write_text("# Tic-tac-toe\n\nWho wins?\n")
    return tmp_path


def file_problems(read, *args) -> list[str]:
    with pytest.raises(ManifestError) as caught:
        read(*args)
    return caught.value.problems


def test_read_manifest_reads_problem_toml(package):
    assert read_manifest(package) == parse_manifest(TICTACTOE)


def test_problem_toml_that_cannot_be_read(package):
    (package / "problem.toml").write_bytes(b'slug = "tic\xfftactoe"\n')
    assert file_problems(read_manifest, package) == ["problem.toml: not valid UTF-8 (at byte 11)"]
    (package / "problem.toml").write_bytes(b"#" * (manifest.MAX_MANIFEST_BYTES + 1))
    assert file_problems(read_manifest, package) == ["problem.toml: over 1048576 bytes"]
    (package / "problem.toml").unlink()
    assert file_problems(read_manifest, package) == ["problem.toml: missing"]
    (package / "problem.toml").mkdir()
    assert file_problems(read_manifest, package) == ["problem.toml: must be a file"]


def test_read_statement(package):
    assert read_statement(package) == "# Tic-tac-toe\n\nWho wins?\n"
    (package / "statement.md").write_bytes("\ufeff# Über\n".encode())
    assert read_statement(package) == "# Über\n"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b" \n\t\n", "statement.md: empty"),
        (b"# Tic\xe9\n", "statement.md: not valid UTF-8 (at byte 5)"),
        (b"# Tic\n\nbad\x00byte\n", "statement.md: control character U+0000 on line 3"),
        (b"\x1b[2J# Tic\n", "statement.md: control character U+001B on line 1"),
        (b"#" * (manifest.MAX_STATEMENT_BYTES + 1), "statement.md: over 262144 bytes"),
    ],
)
def test_a_statement_that_is_refused(package, data, problem):
    (package / "statement.md").write_bytes(data)
    assert file_problems(read_statement, package) == [problem]


def test_a_missing_statement(package):
    (package / "statement.md").unlink()
    assert file_problems(read_statement, package) == ["statement.md: missing"]


def write_boards(package: Path, files: dict[str, str | bytes]) -> None:
    (package / "boards").mkdir()
    for name, data in files.items():
        path = package / "boards" / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())


def test_boards_are_read_in_order_of_their_names(package):
    tictactoe = parse_manifest(TICTACTOE)
    assert read_boards(package, tictactoe) == []
    full = [[1, 2, 1], [2, 1, 2], [2, 1, 2]]
    write_boards(
        package,
        {
            "b2.json": json.dumps({"board": full}),
            "b1.json": json.dumps({"board": EMPTY_BOARD}),
            ".DS_Store": b"Bud1",
            ".b3.json.swp": b"\0",
        },
    )
    assert read_boards(package, tictactoe) == [
        Board("b1.json", {"board": EMPTY_BOARD}),
        Board("b2.json", {"board": full}),
    ]


def test_every_refused_board_is_named_with_its_problem(package):
    write_boards(
        package,
        {
            "01-ok.json": '{"board": [[0]]}',
            "02-nan.json": '{"board": [[NaN]]}',
            "03-inf.json": '{"board": [[-Infinity]]}',
            "04-twice.json": '{"board": [[0]], "board": [[1]]}',
            "05-float.json": '{"board": [[0, 1.0]]}',
            "06-missing.json": '{"bord": [[0]]}',
            "07-not-json.json": '{"board": [[0]]',
            "08-list.json": "[[0]]",
            "09-bytes.json": b'{"board": [[0]]}\xff',
            "10-big.json": "[" * (manifest.MAX_BOARD_BYTES + 1),
            "11-deep.json": "[" * 100_000 + "]" * 100_000,
            "12-notes.txt": "a board",
        },
    )
    assert file_problems(read_boards, package, parse_manifest(TICTACTOE)) == [
        "boards/02-nan.json: not valid JSON: NaN is not a JSON number",
        "boards/03-inf.json: not valid JSON: -Infinity is not a JSON number",
        "boards/04-twice.json: not valid JSON: key 'board' appears twice in an object",
        "boards/05-float.json: board[0][1]: must be an int (got 1.0)",
        "boards/06-missing.json: missing parameter 'board'",
        "boards/06-missing.json: unknown parameter 'bord'",
        "boards/07-not-json.json: not valid JSON: Expecting ',' delimiter: line 1 column 16 "
        "(char 15)",
        "boards/08-list.json: must be an object keyed by the parameters (board), got [[0]]",
        "boards/09-bytes.json: not valid UTF-8 (at byte 16)",
        "boards/10-big.json: over 1048576 bytes",
        "boards/11-deep.json: not valid JSON: nested too deeply",
        "boards/12-notes.txt: not a .json file (boards/ holds one JSON file per case)",
    ]


def test_too_many_boards(package):
    write_boards(package, {f"{i:03}.json": '{"board": []}' for i in range(manifest.MAX_BOARDS + 1)})
    assert file_problems(read_boards, package, parse_manifest(TICTACTOE)) == [
        "boards: 501 files, at most 500"
    ]


def test_boards_that_is_not_a_folder(package):
    (package / "boards").write_text("{}")
    assert file_problems(read_boards, package, parse_manifest(TICTACTOE)) == [
        "boards: must be a folder"
    ]


def test_strict_json_refuses_what_python_would_accept():
    assert strict_json('{"a": [1, -2, 3]}') == {"a": [1, -2, 3]}
    for text, message in [
        ("NaN", "NaN is not a JSON number"),
        ("[Infinity]", "Infinity is not a JSON number"),
        ('{"a": 1, "a": 1}', "key 'a' appears twice in an object"),
        ("1" * 5000, "Exceeds the limit"),
    ]:
        with pytest.raises(ValueError, match=message):
            strict_json(text)

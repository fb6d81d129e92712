"""The blockgame package (problems/blockgame/): problem.py's reference (Sprague-Grundy over the
regions of empty cells, memoized on canonical shapes) against an independent brute force, a
plain memoized game-tree search over sets of (row, column) cells written here, on every small
position and on generated cases of every profile; validate's messages; generate's
determinism; the optional functions; the manifest; and problem.py in the real sandbox."""

from __future__ import annotations

import random
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from judge.problems import InvalidCase
from judge.problems.host import ProblemHost
from judge.problems.manifest import read_manifest, read_statement
from tests.judge.packages.problem_module import problem_module

FOLDER = Path(__file__).resolve().parents[3] / "problems" / "blockgame"
SEEDS = range(30)
BRUTE_MAX_EMPTY = 14  # the brute force answers boards up to this many empty cells quickly


@cache
def package() -> ModuleType:
    return problem_module(FOLDER, "blockgame_package")


# --- an independent brute force ----------------------------------------------------------------

SHAPES = (
    ((0, 0), (0, 1)),  # straight, horizontal
    ((0, 0), (1, 0)),  # straight, vertical
    ((0, 0), (0, 1), (1, 0)),  # the four Ls: a 2x2 square less one cell
    ((0, 0), (0, 1), (1, 1)),
    ((0, 0), (1, 0), (1, 1)),
    ((0, 1), (1, 0), (1, 1)),
)


def placements(empty: frozenset[tuple[int, int]]) -> list[frozenset[tuple[int, int]]]:
    out = []
    for r in range(5):
        for c in range(5):
            for shape in SHAPES:
                cells = frozenset((r + dr, c + dc) for dr, dc in shape)
                if cells <= empty:
                    out.append(cells)
    return out


@cache
def brute_wins(empty: frozenset[tuple[int, int]]) -> bool:
    """The player to move wins iff some placement leaves a board the other player loses."""
    return any(not brute_wins(empty - cells) for cells in placements(empty))


def empty_cells(board: list[str]) -> frozenset[tuple[int, int]]:
    return frozenset((r, c) for r in range(5) for c in range(5) if board[r][c] == ".")


def brute(case: dict[str, Any]) -> str:
    return "WINNING" if brute_wins(empty_cells(case["board"])) else "LOSING"


def test_the_brute_force_knows_the_rules():
    assert brute({"board": ["#####"] * 5}) == "LOSING"
    assert brute({"board": ["#..##", "#####", "#####", "#####", "#####"]}) == "WINNING"
    # a row's last cell and the next row's first are not neighbours
    assert brute({"board": ["####.", ".####", "#####", "#####", "#####"]}) == "LOSING"
    assert brute({"board": ["#....", "#####", "#####", "#####", "#####"]}) == "WINNING"


# --- the reference against it ------------------------------------------------------------------


def test_reference_equals_the_brute_force_on_every_small_case():
    p = package()
    cases = p.small_cases()
    assert 5000 < len(cases) < 8000
    for case in cases:
        p.validate(case)
        assert p.reference(case) == brute(case), case


def generated_cases(profile: str) -> list[dict[str, Any]]:
    return [package().generate(random.Random(seed), profile) for seed in SEEDS]


@pytest.mark.parametrize("profile", package().PROFILES)
def test_reference_equals_the_brute_force_on_generated_cases(profile):
    """Boards up to BRUTE_MAX_EMPTY empty cells against the brute force; larger ones (the
    sparse profile's) against the rule over their children, each answered by the reference
    (whose answers on smaller boards the brute force checks): a board is WINNING iff some
    child is LOSING."""
    p = package()
    compared = 0
    for case in generated_cases(profile):
        p.validate(case)
        answer = p.reference(case)
        assert answer in ("WINNING", "LOSING")
        if len(empty_cells(case["board"])) <= BRUTE_MAX_EMPTY:
            assert answer == brute(case), case
            compared += 1
        else:
            kids = [p.reference(child) for child in p.children(case)]
            assert answer == ("WINNING" if "LOSING" in kids else "LOSING"), case
    if profile in ("tiny", "regions"):
        assert compared == len(SEEDS)


@pytest.mark.slow  # about 12 s of a core: every position's Grundy value
def test_the_grundy_values_decide_as_the_short_search():
    p = package()
    for profile in p.PROFILES:
        for case in generated_cases(profile)[:10]:
            free = p.free_mask(case["board"])
            assert p.wins(free) == (p.grundy(free) != 0)


def test_the_worst_cases_and_the_empty_board():
    p = package()
    # Known: on the empty 5x5 board the player to move loses.
    assert p.reference({"board": ["....."] * 5}) == "LOSING"
    for case in p.WORST_CASES:
        p.validate(case)
        kids = [p.reference(child) for child in p.children(case)]
        assert p.reference(case) == ("WINNING" if "LOSING" in kids else "LOSING")


def test_mirror_positions_are_lost():
    """A board equal to its mirror image, with the cells a block could share with its own
    image filled, is lost: the second player copies every move."""
    p = package()
    for seed in SEEDS:
        rng = random.Random(seed)
        half = ["".join(rng.choice("#.") for _ in range(2)) for _ in range(5)]
        board = [row + "#" + row[::-1] for row in half]
        assert p.reference({"board": board}) == "LOSING", board


# --- validate ----------------------------------------------------------------------------------

MALFORMED = [
    ([], "case must be an object with keys ['board']"),
    ({}, "case is missing key 'board'"),
    ({"board": ["....."] * 5, "turn": 1}, "case has unexpected key 'turn'"),
    ({"board": "....."}, "board must be a list of 5 strs"),
    ({"board": ["....."] * 4}, "board has 4 rows, must have exactly 5"),
    ({"board": ["....."] * 6}, "board has 6 rows, must have exactly 5"),
    ({"board": ["....."] * 4 + [["."] * 5]}, "board[4] must be a str of 5 characters"),
    ({"board": ["....."] * 4 + [True]}, "board[4] must be a str of 5 characters"),
    ({"board": ["...."] + ["....."] * 4}, "board[0] is '....': 4 characters, must be 5"),
    ({"board": ["......"] + ["....."] * 4}, "board[0] is '......': 6 characters"),
    ({"board": ["....."] * 2 + ["..x.."] + ["....."] * 2}, "board[2][2] is 'x'"),
    ({"board": ["....."] * 2 + [".. .."] + ["....."] * 2}, "board[2][2] is ' '"),
]


@pytest.mark.parametrize(("case", "message"), MALFORMED)
def test_validate_names_what_is_wrong(case, message):
    with pytest.raises(ValueError) as refused:
        package().validate(case)
    assert message in str(refused.value)


def test_validate_accepts_every_board_of_the_two_characters():
    p = package()
    p.validate({"board": ["#####"] * 5})
    p.validate({"board": ["....."] * 5})
    p.validate({"board": ["#.#.#", ".#.#.", "#.#.#", ".#.#.", "#.#.#"]})


# --- generate, the small tier, the optional functions ------------------------------------------


@pytest.mark.parametrize("profile", package().PROFILES)
def test_generate_is_deterministic_per_seed(profile):
    p = package()
    for seed in SEEDS:
        assert p.generate(random.Random(seed), profile) == p.generate(random.Random(seed), profile)
    assert len({str(case) for case in generated_cases(profile)}) > 1


def test_generate_refuses_an_unknown_profile():
    with pytest.raises(ValueError, match="unknown blockgame profile 'huge'"):
        package().generate(random.Random(0), "huge")


def test_sparse_boards_have_few_filled_cells():
    for case in generated_cases("sparse"):
        assert len(empty_cells(case["board"])) >= 22


def transformed(board: list[str], t: int) -> list[str]:
    rows = [list(row) for row in board]
    if t & 4:
        rows = [list(col) for col in zip(*rows, strict=True)]
    if t & 1:
        rows = rows[::-1]
    if t & 2:
        rows = [row[::-1] for row in rows]
    return ["".join(row) for row in rows]


def test_canonical_is_the_same_for_the_same_game():
    p = package()
    for profile in p.PROFILES:
        for case in generated_cases(profile)[:10]:
            key = p.canonical(case)
            for t in range(8):
                image = {"board": transformed(case["board"], t)}
                assert p.canonical(image) == key
                assert p.reference(image) == p.reference(case)
    # moved: the same shape of empty cells elsewhere on the board
    a = {"board": ["..###", ".####", "#####", "#####", "#####"]}
    b = {"board": ["#####", "#####", "##..#", "##.##", "#####"]}
    assert p.canonical(a) == p.canonical(b)
    assert p.canonical(a) != p.canonical({"board": ["...##", "#####", "#####", "#####", "#####"]})


def test_small_cases_are_distinct_valid_and_ordered():
    p = package()
    cases = p.small_cases()
    boards = [tuple(c["board"]) for c in cases]
    assert len(set(boards)) == len(boards)
    sizes = [len(empty_cells(c["board"])) for c in cases]
    assert sizes == sorted(sizes)
    assert ("####.", ".####", "#####", "#####", "#####") in boards  # the wrap
    classes = {p.canonical(c) for c in cases}
    assert len(classes) < len(cases) // 3


def test_explain_plays_a_legal_optimal_line():
    p = package()
    cases = [s["input"] for s in read_manifest(FOLDER).samples] + generated_cases("random")[:5]
    for case in cases:
        told = p.explain(case)
        assert told["answer"] == p.reference(case)
        empty = set(empty_cells(case["board"]))
        for number, move in enumerate(told["moves"]):
            assert move["player"] == ("first", "second")[number % 2]
            cells = {tuple(cell) for cell in move["cells"]}
            assert frozenset(cells) in placements(frozenset(empty))
            assert move["block"] == ("L" if len(cells) == 3 else "domino")
            empty -= cells
            assert empty_cells(move["board"]) == empty
        assert not placements(frozenset(empty))  # the game is over
        winner = "first" if len(told["moves"]) % 2 else "second"
        assert told["winner"] == winner
        assert (winner == "first") == (told["answer"] == "WINNING")


def test_shrink_gives_valid_smaller_games():
    p = package()
    for case in [*generated_cases("random")[:5], {"board": ["....."] * 5}]:
        smaller = list(p.shrink(case))
        assert smaller
        for candidate in smaller:
            p.validate(candidate)
            assert empty_cells(candidate["board"]) < empty_cells(case["board"])
    assert list(p.shrink({"board": ["#####"] * 5})) == []


def test_children_are_the_boards_one_placement_later():
    p = package()
    for case in generated_cases("tiny")[:10] + generated_cases("random")[:5]:
        kids = p.children(case)
        empty = empty_cells(case["board"])
        expected = sorted(sorted(empty - cells) for cells in placements(empty))
        assert sorted(sorted(empty_cells(k["board"])) for k in kids) == expected
        for kid in kids:
            p.validate(kid)
    assert "LOSING" in p.COMBINE_RULE and "WINNING" in p.COMBINE_RULE


def test_write_input_is_algospots_format():
    p = package()
    cases = [s["input"] for s in read_manifest(FOLDER).samples[:2]]
    text = p.write_input(cases)
    assert text == "2\n" + "".join(row + "\n" for case in cases for row in case["board"])


# --- the declarations --------------------------------------------------------------------------


def test_the_manifest_and_its_samples():
    p = package()
    manifest = read_manifest(FOLDER)
    assert manifest.slug == "blockgame"
    assert manifest.param_names == ("board",)
    assert str(manifest.returns) == "str"
    assert list(manifest.profiles) == list(p.PROFILES)
    assert manifest.limits.time_s <= 3.0
    for sample in manifest.samples:
        p.validate(sample["input"])
        assert sample["answer"] == p.reference(sample["input"])
        if len(empty_cells(sample["input"]["board"])) <= BRUTE_MAX_EMPTY:
            assert sample["answer"] == brute(sample["input"])
    assert read_statement(FOLDER).startswith("# Block game")


# --- in the sandbox ----------------------------------------------------------------------------


def test_problem_py_loads_and_answers_in_the_sandbox(sandbox):
    p = package()
    manifest = read_manifest(FOLDER)
    limits = manifest.limits
    with ProblemHost.for_folder(
        sandbox, FOLDER, time_s=limits.time_s, memory_mb=limits.memory_mb
    ) as host:
        assert host.defined == {
            "validate",
            "generate",
            "reference",
            "explain",
            "shrink",
            "small_cases",
            "canonical",
            "children",
            "write_input",
            "WORST_CASES",
            "COMBINE_RULE",
        }
        samples = manifest.samples
        answers = host.call_many("reference", [[s["input"]] for s in samples])
        assert answers == [s["answer"] for s in samples]
        worst = host.attribute("WORST_CASES")
        assert worst == p.WORST_CASES
        assert host.call_many("reference", [[c] for c in worst]) == [p.reference(c) for c in worst]
        for profile in p.PROFILES:
            assert host.call("generate", 7, profile) == p.generate(random.Random(7), profile)
        with pytest.raises(InvalidCase, match="board has 4 rows"):
            host.call("validate", {"board": ["....."] * 4})
        assert host.call("small_cases") == p.small_cases()
        case = samples[0]["input"]
        assert host.call("canonical", case) == p.canonical(case)
        assert host.call("explain", case) == p.explain(case)
        assert host.call("children", case) == p.children(case)
        assert host.call("write_input", [case]) == p.write_input([case])
    assert host.output == ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))

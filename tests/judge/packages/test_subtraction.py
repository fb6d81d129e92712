"""The subtraction game package (problems/subtraction/): its problem.py, imported from its file,
against a plain game-tree search written here (no Grundy values, no XOR): on every small
position, and on every profile's generated cases (whole when they are small, and cut down to
what a search can finish: their move sets with two piles of up to 100 stones and three of up
to 30). Also: validate's messages, generate's determinism, the samples and the statement's
table, explain's line of play, shrink, children, write_input, and problem.py in the sandbox."""

from __future__ import annotations

import json
import random
import re
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

FOLDER = Path(__file__).resolve().parents[3] / "problems" / "subtraction"
SEEDS = range(30)  # generated cases per profile


@cache
def package() -> ModuleType:
    return problem_module(FOLDER, "subtraction_package")


# --- the brute force: a memoized search of the game tree ------------------------------------


@cache
def wins(piles: tuple[int, ...], moves: tuple[int, ...]) -> bool:
    """The player to move wins when some move leads to a position the other player loses.
    `piles` sorted (the order of the piles changes nothing), so positions are shared."""
    for i, pile in enumerate(piles):
        for m in moves:
            if m <= pile:
                after = tuple(sorted((*piles[:i], pile - m, *piles[i + 1 :])))
                if not wins(after, moves):
                    return True
    return False


def brute(case: dict[str, Any]) -> bool:
    return wins(tuple(sorted(case["piles"])), tuple(sorted(case["moves"])))


def searchable(case: dict[str, Any]) -> bool:
    """Small enough for the search: few piles, few stones."""
    piles = case["piles"]
    return (len(piles) <= 3 and max(piles) <= 30) or (len(piles) <= 2 and max(piles) <= 100)


def cut_down(case: dict[str, Any]) -> list[dict[str, Any]]:
    """A generated case's move set on positions the search can finish: its first two piles
    capped at 100 stones, and its first three capped at 30."""
    piles, moves = case["piles"], case["moves"]
    return [
        {"piles": [min(p, 100) for p in piles[:2]], "moves": moves},
        {"piles": [min(p, 30) for p in piles[:3]], "moves": moves},
    ]


def generated() -> list[tuple[str, int, dict[str, Any]]]:
    module = package()
    return [
        (profile, seed, module.generate(random.Random(seed), profile))
        for profile in module.PROFILES
        for seed in SEEDS
    ]


@pytest.fixture(autouse=True, scope="module")
def deep_enough():
    """The search recurses once per move: up to 200 moves deep on two piles of 100."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 5000))
    yield
    sys.setrecursionlimit(old)


# --- the reference against the search --------------------------------------------------------


def test_the_brute_force_knows_the_textbook_positions():
    assert wins((7,), (1, 3, 4)) is False  # the statement's worked example
    assert wins((6,), (1, 3, 4)) is True
    assert wins((4, 4), (1, 3, 4)) is False  # mirrored
    assert wins((0, 0), (1,)) is False  # no move
    assert wins((5,), (1, 2)) is True and wins((6,), (1, 2)) is False  # Bachet: n mod 3


def test_the_reference_answers_every_small_position_as_the_search():
    module = package()
    cases = module.small_cases()
    assert len(cases) == 8 * (7 + 7**2 + 7**3)
    assert len({module.canonical(c) for c in cases}) == 8 * (7 + 28 + 84)
    answers = {True: 0, False: 0}
    for case in cases:
        module.validate(case)
        answer = module.reference(case)
        assert answer is brute(case), case
        answers[answer] += 1
    assert min(answers.values()) > len(cases) // 5  # both answers well represented


def test_canonical_is_the_same_game():
    module = package()
    case = {"piles": [5, 0, 3], "moves": [4, 1]}
    same = {"piles": [3, 5, 0], "moves": [1, 4]}
    assert module.canonical(case) == module.canonical(same)
    assert module.canonical(case) != module.canonical({"piles": [5, 3], "moves": [1, 4]})
    assert module.canonical(case) != module.canonical({"piles": [5, 0, 3], "moves": [1, 3]})
    hash(module.canonical(case))


def test_the_reference_answers_generated_cases_as_the_search():
    module = package()
    for profile, seed, case in generated():
        answer = module.reference(case)
        if searchable(case):
            assert answer is brute(case), (profile, seed, case)
        for smaller in cut_down(case):
            module.validate(smaller)
            assert module.reference(smaller) is brute(smaller), (profile, seed, smaller)


def test_the_reference_follows_from_its_children_on_generated_and_worst_cases():
    """One ply of the search over the reference itself: the combine rule holds everywhere."""
    module = package()
    cases = [case for _, _, case in generated()] + module.WORST_CASES
    for case in cases:
        below = [module.reference(child) for child in module.children(case)]
        assert module.reference(case) is any(not b for b in below), case


def test_every_profile_gives_both_answers_and_the_lost_profile_mostly_lost():
    module = package()
    by_profile: dict[str, list[bool]] = {}
    for profile, _, case in generated():
        by_profile.setdefault(profile, []).append(module.reference(case))
    for profile, answers in by_profile.items():
        assert True in answers and False in answers, profile
    assert by_profile["lost"].count(False) >= 0.8 * len(SEEDS)


def test_worst_cases_are_the_largest_and_answered_quickly():
    module = package()
    answers = []
    for case in module.WORST_CASES:
        module.validate(case)
        assert len(case["piles"]) == module.MAX_PILES
        assert max(case["piles"]) >= 990
        answers.append(module.reference(case))
    assert answers == [False, False, False, False, True, True]
    # the first is the longest game: 8000 moves of one stone
    assert module.explain(module.WORST_CASES[0])["summary"].startswith(
        "the second player wins after 8000 moves"
    )


# --- the usual wrong solutions are caught by the fixed tests alone ---------------------------


def plain_nim(case):
    total = 0
    for p in case["piles"]:
        total ^= p
    return total != 0


def mod_max_plus_one(case):
    k = max(case["moves"]) + 1
    total = 0
    for p in case["piles"]:
        total ^= p % k
    return total != 0


def mex_as_max_plus_one(case):
    top = max(case["piles"])
    g = [0] * (top + 1)
    for n in range(1, top + 1):
        seen = [g[n - m] for m in case["moves"] if m <= n]
        g[n] = max(seen) + 1 if seen else 0
    total = 0
    for p in case["piles"]:
        total ^= g[p]
    return total != 0


def table_one_short(case):
    top = max(case["piles"])
    g = [0] * (top + 1)
    for n in range(1, top):
        seen = {g[n - m] for m in case["moves"] if m <= n}
        g[n] = min(v for v in range(len(seen) + 1) if v not in seen)
    total = 0
    for p in case["piles"]:
        total ^= g[p]
    return total != 0


@pytest.mark.parametrize(
    "wrong", [plain_nim, mod_max_plus_one, mex_as_max_plus_one, table_one_short]
)
def test_each_shortcut_fails_the_small_tier_the_worst_cases_and_most_profiles(wrong):
    module = package()
    small = module.small_cases()
    assert any(wrong(c) != module.reference(c) for c in small)
    assert any(wrong(c) != module.reference(c) for c in module.WORST_CASES)
    failing = {p for p, _, c in generated() if wrong(c) != module.reference(c)}
    assert len(failing) >= len(module.PROFILES) - 1, failing


# --- declarations: problem.toml, the statement, the samples ---------------------------------


def test_the_manifest_samples_and_statement_agree_with_the_reference():
    module = package()
    manifest = read_manifest(FOLDER)
    assert manifest.slug == "subtraction"
    assert manifest.param_names == module.PARAMS
    assert [t.name for t in manifest.param_types.values()] == ["int[]", "int[]"]
    assert manifest.returns.name == "bool"
    assert tuple(manifest.profiles) == module.PROFILES
    assert 30 <= manifest.random_count <= 40
    assert manifest.limits.time_s <= 2
    for sample in manifest.samples:
        module.validate(sample["input"])
        assert module.reference(sample["input"]) is sample["answer"]
        if searchable(sample["input"]):
            assert brute(sample["input"]) is sample["answer"]
    # the statement's examples table lists the samples, in order
    statement = read_statement(FOLDER)
    rows = re.findall(r"^\| `(\[[^`]*\])` \| `(\[[^`]*\])` \| (true|false) \|$", statement, re.M)
    table = [
        ({"piles": json.loads(piles), "moves": json.loads(moves)}, answer == "true")
        for piles, moves, answer in rows
    ]
    assert table == [(s["input"], s["answer"]) for s in manifest.samples]


# --- validate ---------------------------------------------------------------------------------

MALFORMED = [
    ([1, 2], "case must be an object with keys ['piles', 'moves'], got [1, 2] (list)"),
    ({"piles": [1]}, "case is missing key 'moves' (expected keys ['piles', 'moves'])"),
    (
        {"piles": [1], "moves": [1], "extra": 0},
        "case has unexpected key 'extra' (expected keys ['piles', 'moves'])",
    ),
    ({"piles": 5, "moves": [1]}, "piles must be a list of ints, got 5 (int)"),
    ({"piles": (5,), "moves": [1]}, "piles must be a list of ints, got (5,) (tuple)"),
    ({"piles": [], "moves": [1]}, "piles has 0 numbers, must have 1..8"),
    ({"piles": [1] * 9, "moves": [1]}, "piles has 9 numbers, must have 1..8"),
    ({"piles": [1, True], "moves": [1]}, "piles[1] must be an int, got True (bool)"),
    ({"piles": [1.0], "moves": [1]}, "piles[0] must be an int, got 1.0 (float)"),
    ({"piles": ["3"], "moves": [1]}, "piles[0] must be an int, got '3' (str)"),
    ({"piles": [-1], "moves": [1]}, "piles[0] is -1, must be between 0 and 1000"),
    ({"piles": [0, 1001], "moves": [1]}, "piles[1] is 1001, must be between 0 and 1000"),
    ({"piles": [1], "moves": []}, "moves has 0 numbers, must have 1..5"),
    ({"piles": [1], "moves": [1, 2, 3, 4, 5, 6]}, "moves has 6 numbers, must have 1..5"),
    ({"piles": [1], "moves": [False]}, "moves[0] must be an int, got False (bool)"),
    ({"piles": [1], "moves": [0]}, "moves[0] is 0, must be between 1 and 20"),
    ({"piles": [1], "moves": [3, 21]}, "moves[1] is 21, must be between 1 and 20"),
    (
        {"piles": [1], "moves": [3, 1, 3]},
        "moves[2] is 3, which moves[0] already is: the allowed amounts must be distinct",
    ),
    ({"piles": [2**70], "moves": [1]}, f"piles[0] is {2**70}, must be between 0 and 1000"),
]


@pytest.mark.parametrize(("bad", "message"), MALFORMED)
def test_validate_names_what_is_wrong(bad, message):
    with pytest.raises(ValueError) as refused:
        package().validate(bad)
    assert str(refused.value) == message


def test_validate_accepts_the_edges():
    module = package()
    for case in (
        {"piles": [0], "moves": [20]},
        {"piles": [1000] * 8, "moves": [20, 19, 18, 17, 16]},
        {"piles": [0, 0, 0], "moves": [1]},
    ):
        assert module.validate(case) is None


# --- generate ---------------------------------------------------------------------------------


def test_generate_is_deterministic_per_seed_and_valid():
    module = package()
    for profile in module.PROFILES:
        cases = [module.generate(random.Random(seed), profile) for seed in SEEDS]
        assert cases == [module.generate(random.Random(seed), profile) for seed in SEEDS]
        for case in cases:
            module.validate(case)
        assert len({repr(c) for c in cases}) > len(SEEDS) // 2, profile  # they vary
    with pytest.raises(ValueError, match="unknown subtraction profile 'nope'"):
        module.generate(random.Random(1), "nope")


def test_the_long_game_profile_is_hopeless_for_a_search():
    module = package()
    for seed in SEEDS:
        case = module.generate(random.Random(seed), "long_game")
        assert len(case["piles"]) >= 6 and min(case["piles"]) >= 900


# --- explain, shrink, children, write_input ---------------------------------------------------


def replay(case: dict[str, Any], line: list[dict[str, Any]]) -> list[int]:
    """The piles after the line's moves, each checked legal and as reported."""
    piles = list(case["piles"])
    for number, move in enumerate(line):
        assert move["player"] == ("first", "second")[number % 2]
        assert move["take"] in case["moves"] and piles[move["pile"]] >= move["take"]
        piles[move["pile"]] -= move["take"]
        assert move["piles"] == piles
    return piles


def test_explain_gives_a_legal_line_that_the_winner_wins():
    module = package()
    cases = [c for _, _, c in generated()[::7]] + [
        s for s in module.small_cases()[::37] if max(s["piles"]) > 0
    ]
    for case in cases:
        result = module.explain(case)
        answer = module.reference(case)
        assert result["answer"] is answer
        assert result["winner"] == ("first" if answer else "second")
        line = result["moves"]
        piles = replay(case, line)
        if len(line) < module.SHOWN_MOVES:  # the whole line: it ends when nobody can move
            assert not module.children({"piles": piles, "moves": case["moves"]})
            assert len(line) % 2 == (1 if answer else 0)
        # the winner's moves always leave a lost position
        for move in line:
            if move["player"] == result["winner"]:
                assert not module.reference({"piles": move["piles"], "moves": case["moves"]})
    nobody = module.explain({"piles": [4, 0, 1], "moves": [5]})
    assert nobody["moves"] == []
    assert nobody["summary"] == "the first player cannot move: the second player wins"


def test_shrink_gives_smaller_valid_cases():
    module = package()
    for _, _, case in generated()[::5]:
        size = (len(case["piles"]), len(case["moves"]), sum(case["piles"]))
        for smaller in module.shrink(case):
            module.validate(smaller)
            assert (len(smaller["piles"]), len(smaller["moves"]), sum(smaller["piles"])) != size
            assert len(smaller["piles"]) <= size[0] and len(smaller["moves"]) <= size[1]
            assert sum(smaller["piles"]) <= size[2]
    assert list(module.shrink({"piles": [0], "moves": [1]})) == []


def test_children_are_the_positions_one_move_later():
    module = package()
    case = {"piles": [3, 1], "moves": [1, 3]}
    assert module.children(case) == [
        {"piles": [2, 1], "moves": [1, 3]},
        {"piles": [0, 1], "moves": [1, 3]},
        {"piles": [3, 0], "moves": [1, 3]},
    ]
    assert module.children({"piles": [2, 2], "moves": [2]}) == [
        {"piles": [0, 2], "moves": [2]},
        {"piles": [2, 0], "moves": [2]},
    ]
    assert module.children({"piles": [1, 0], "moves": [2, 5]}) == []
    assert module.COMBINE_RULE == "a position is won when some move leads to a lost position"
    for _, _, case in generated()[::3]:
        for child in module.children(case):
            module.validate(child)
            assert sum(child["piles"]) < sum(case["piles"])


def test_write_input_is_the_stdio_format():
    module = package()
    cases = [{"piles": [7], "moves": [1, 3, 4]}, {"piles": [2, 5], "moves": [3, 2]}]
    assert module.write_input(cases) == "2\n1 3\n7\n1 3 4\n2 2\n2 5\n3 2\n"
    assert module.write_input([]) == "0\n"
    # stdio.md's example is this input
    assert module.write_input(cases) in (FOLDER / "stdio.md").read_text(encoding="utf-8")


# --- in the sandbox ---------------------------------------------------------------------------


def test_problem_py_loads_and_answers_in_the_sandbox(sandbox):
    module = package()
    limits = read_manifest(FOLDER).limits
    with ProblemHost.for_folder(
        sandbox, FOLDER, time_s=limits.time_s, memory_mb=limits.memory_mb
    ) as host:
        assert host.defined == {
            "WORST_CASES",
            "COMBINE_RULE",
            "validate",
            "generate",
            "reference",
            "small_cases",
            "canonical",
            "shrink",
            "explain",
            "children",
            "write_input",
        }
        samples = read_manifest(FOLDER).samples
        answers = host.call_many("reference", [[s["input"]] for s in samples])
        assert answers == [s["answer"] for s in samples]
        worst = host.attribute("WORST_CASES")
        assert worst == module.WORST_CASES
        assert host.call_many("reference", [[c] for c in worst]) == [
            module.reference(c) for c in worst
        ]
        assert host.attribute("COMBINE_RULE") == module.COMBINE_RULE
        for profile in module.PROFILES:
            expected = module.generate(random.Random(7), profile)
            assert host.call("generate", 7, profile) == expected
        with pytest.raises(InvalidCase) as refused:
            host.call("validate", {"piles": [True], "moves": [1]})
        assert str(refused.value) == "piles[0] must be an int, got True (bool)"
        assert host.call("small_cases") == module.small_cases()
        case = samples[1]["input"]
        assert host.call("canonical", case) == [list(part) for part in module.canonical(case)]
        assert host.call("explain", case) == module.explain(case)
        assert host.call("children", case) == module.children(case)
        assert host.call("write_input", [case]) == module.write_input([case])
    assert host.output == ""

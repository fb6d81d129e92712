"""The stonegame package (problems/stonegame/): its problem.py imported from its file and checked
against a game-tree search written here, on every small position and on generated cases of
every profile; validate's messages on malformed cases; generate deterministic per seed; explain
a legal optimal line; shrink, write_input and the declarations consistent with problem.toml.
One test loads problem.py in the real sandbox through the problem host."""

from __future__ import annotations

import random
import sys
import time
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from judge.problems import InvalidCase
from judge.problems.host import ProblemHost
from judge.problems.manifest import read_manifest, read_statement
from tests.judge.packages.problem_module import problem_module

FOLDER = Path(__file__).resolve().parents[3] / "problems" / "stonegame"
SEEDS = range(40)  # generated cases per profile compared with the brute force


@cache
def package() -> ModuleType:
    return problem_module(FOLDER, "stonegame_package")


# --- an independent solver: the game tree, each player maximising its own stones ----------


def brute_force(piles: list[int]) -> int:
    """Alice's stones, by searching every line of play. The state is (next pile, M, player to
    move); each node returns both players' totals and the mover picks the move that gives it
    the most stones of its own. No suffix sums and no zero-sum argument: the search only
    follows the rules. Memoized on the state, which changes nothing but the speed."""
    n = len(piles)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * n + 100))

    @cache
    def play(i: int, m: int, mover: int) -> tuple[int, int]:
        if i == n:
            return (0, 0)
        options = []
        for x in range(1, 2 * m + 1):
            if i + x > n:
                break
            totals = list(play(i + x, max(m, x), 1 - mover))
            totals[mover] += sum(piles[i : i + x])
            options.append(tuple(totals))
        return max(options, key=lambda totals: totals[mover])

    return play(0, 1, 0)[0]


def plain_search(piles: list[int], i: int = 0, m: int = 1) -> int:
    """The mover's most stones with no memo at all: for rows of a few piles only."""
    if i == len(piles):
        return 0
    rest = sum(piles[i:])
    return max(
        rest - plain_search(piles, i + x, max(m, x))
        for x in range(1, min(2 * m, len(piles) - i) + 1)
    )


def test_the_brute_forces_agree_with_hand_worked_games():
    # [2, 7, 9, 4, 4]: Alice [2], Bob [7, 9], Alice [4, 4] (the statement's explanation)
    for solve in (brute_force, plain_search):
        assert solve([2, 7, 9, 4, 4]) == 10
        assert solve([1, 2, 3, 4, 5, 100]) == 104
        assert solve([5]) == 5
        assert solve([1, 9]) == 10  # two piles: Alice takes both
        assert solve([1, 1, 9]) == 2  # three: whatever Alice takes, Bob takes the 9
        assert solve([9, 1, 1]) == 10


# --- the reference ------------------------------------------------------------------------


def test_every_small_position_is_answered_as_the_game_tree_search_answers():
    module = package()
    cases = module.small_cases()
    assert len(cases) == 3012  # 3 + 9 + ... + 729 rows of 1..3, 128 + ... + 1024 of 1..2
    for case in cases:
        module.validate(case)
        piles = case["piles"]
        assert module.reference(case) == brute_force(piles), piles
    for case in cases[:1092]:  # up to 6 piles: also the search without memo
        assert module.reference(case) == plain_search(case["piles"]), case


def test_generated_cases_of_every_profile_are_answered_as_the_search_answers():
    module = package()
    for profile in module.PROFILES:
        for seed in SEEDS:
            case = module.generate(random.Random(seed), profile)
            module.validate(case)
            assert module.reference(case) == brute_force(case["piles"]), (profile, seed)


def test_samples_and_worst_cases_are_answered_as_the_search_answers():
    module, manifest = package(), read_manifest(FOLDER)
    for sample in manifest.samples:
        module.validate(sample["input"])
        assert module.reference(sample["input"]) == sample["answer"]
        assert brute_force(sample["input"]["piles"]) == sample["answer"]
    for case in module.WORST_CASES:
        module.validate(case)
        assert len(case["piles"]) == module.MAX_N
        assert module.reference(case) == brute_force(case["piles"])
    # the worst cases check the answer too: they differ
    assert len({module.reference(case) for case in module.WORST_CASES}) == 3


def test_the_reference_is_fast_on_the_largest_cases():
    module = package()
    cases = list(module.WORST_CASES)
    cases += [module.generate(random.Random(seed), "large") for seed in range(10)]
    for case in cases:
        start = time.process_time()
        module.reference(case)
        assert time.process_time() - start < 0.25  # time_s is 1 s


def test_a_bug_in_how_m_changes_is_caught_by_the_small_tier():
    """Why the small tier has rows of 7 to 10 piles: M = X instead of max(M, X) answers every
    row of up to 8 piles right, and some rows of 9 and 10 wrong."""
    module = package()

    def m_becomes_x(piles: list[int]) -> int:
        n = len(piles)

        @cache
        def best(i: int, m: int) -> int:
            if i + 2 * m >= n:
                return sum(piles[i:])
            return sum(piles[i:]) - min(best(i + x, x) for x in range(1, 2 * m + 1))

        return best(0, 1)

    wrong = [c for c in module.small_cases() if m_becomes_x(c["piles"]) != module.reference(c)]
    assert wrong
    assert min(len(c["piles"]) for c in wrong) == 9


# --- validate ------------------------------------------------------------------------------

MALFORMED: list[tuple[Any, str]] = [
    ("piles", "case must be an object with keys ['piles'], got 'piles' (str)"),
    ([[1, 2]], "case must be an object with keys ['piles'], got [[1, 2]] (list)"),
    ({}, "case is missing key 'piles' (expected keys ['piles'])"),
    ({"board": [1]}, "case is missing key 'piles' (expected keys ['piles'])"),
    ({"piles": [1], "m": 1}, "case has unexpected key 'm' (expected keys ['piles'])"),
    ({"piles": [1], 2: 3}, "case has unexpected key 2 (expected keys ['piles'])"),
    ({"piles": "1 2 3"}, "piles must be a list of ints, got '1 2 3' (str)"),
    ({"piles": (1, 2)}, "piles must be a list of ints, got (1, 2) (tuple)"),
    ({"piles": None}, "piles must be a list of ints, got None (NoneType)"),
    ({"piles": []}, "piles has 0 piles, must have 1..100"),
    ({"piles": [1] * 101}, "piles has 101 piles, must have 1..100"),
    ({"piles": [1, True]}, "piles[1] must be an int, got True (bool)"),
    ({"piles": [1.0]}, "piles[0] must be an int, got 1.0 (float)"),
    ({"piles": [3, "4"]}, "piles[1] must be an int, got '4' (str)"),
    ({"piles": [[1]]}, "piles[0] must be an int, got [1] (list)"),
    ({"piles": [0]}, "piles[0] is 0, must be between 1 and 10000"),
    ({"piles": [5, -1]}, "piles[1] is -1, must be between 1 and 10000"),
    ({"piles": [10_001]}, "piles[0] is 10001, must be between 1 and 10000"),
    ({"piles": [2**70]}, "piles[0] is 1180591620717411303424, must be between 1 and 10000"),
    (
        {"piles": ["x" * 200]},
        "piles[0] must be an int, got '" + "x" * 56 + "... (str)",
    ),
]


@pytest.mark.parametrize(("bad", "message"), MALFORMED)
def test_validate_names_what_is_wrong(bad, message):
    with pytest.raises(ValueError) as refused:
        package().validate(bad)
    assert str(refused.value) == message


def test_validate_accepts_the_bounds():
    module = package()
    for piles in ([1], [10_000], [1] * 100, [10_000] * 100):
        assert module.validate({"piles": piles}) is None


# --- generate --------------------------------------------------------------------------------


def test_generate_is_deterministic_per_seed_and_valid():
    module = package()
    assert tuple(module.PROFILES) == tuple(read_manifest(FOLDER).profiles)
    for profile in module.PROFILES:
        first = [module.generate(random.Random(seed), profile) for seed in range(60)]
        again = [module.generate(random.Random(seed), profile) for seed in range(60)]
        assert first == again, profile
        for case in first:
            module.validate(case)
        assert len({tuple(c["piles"]) for c in first}) > 10, profile  # the seed matters


def test_the_profiles_stress_what_they_say():
    module = package()

    def cases(profile: str) -> list[list[int]]:
        return [module.generate(random.Random(s), profile)["piles"] for s in range(60)]

    assert all(len(p) <= 8 and max(p) <= 10 for p in cases("tiny"))
    assert all(90 <= len(p) <= 100 for p in cases("large"))
    assert all(len(p) >= 20 for p in cases("slow_growth"))
    assert all(p.count(10_000) == 1 and len(p) >= 2 for p in cases("one_big"))
    shapes = cases("shapes")
    assert any(len(p) == 1 for p in shapes) and any(len(p) == 100 for p in shapes)
    assert any(len(set(p)) == 1 for p in shapes)


def test_generate_refuses_an_unknown_profile():
    with pytest.raises(ValueError) as refused:
        package().generate(random.Random(1), "no_such_profile")
    assert str(refused.value) == (
        "unknown stonegame profile 'no_such_profile' "
        "(known: tiny, random, large, shapes, slow_growth, one_big)"
    )


# --- the optional functions --------------------------------------------------------------------


def replay(piles: list[int], moves: list[dict[str, Any]]) -> int:
    """Alice's stones after the moves, each checked against the rules."""
    i, m, totals = 0, 1, [0, 0]
    for turn, move in enumerate(moves):
        x = move["x"]
        assert move["player"] == ("Alice", "Bob")[turn % 2]
        assert 1 <= x <= 2 * m and i + x <= len(piles)
        assert move["piles"] == piles[i : i + x]
        assert move["stones"] == sum(piles[i : i + x])
        m = max(m, x)
        assert move["m"] == m
        totals[turn % 2] += move["stones"]
        assert move["total"] == totals[turn % 2]
        i += x
    assert i == len(piles)  # every pile taken
    return totals[0]


def test_explain_gives_a_legal_optimal_line():
    module = package()
    cases = module.small_cases()[::50] + list(module.WORST_CASES)
    cases += [module.generate(random.Random(s), p) for p in module.PROFILES for s in range(5)]
    for case in cases:
        explained = module.explain(case)
        answer = module.reference(case)
        assert explained["answer"] == answer
        assert replay(case["piles"], explained["moves"]) == answer
        bob = sum(case["piles"]) - answer
        assert explained["summary"].startswith(f"Alice gets {answer} stones and Bob {bob}, ")


def test_explain_on_the_first_example():
    moves = package().explain({"piles": [2, 7, 9, 4, 4]})["moves"]
    assert [(m["player"], m["piles"], m["m"]) for m in moves] == [
        ("Alice", [2], 1),
        ("Bob", [7, 9], 2),
        ("Alice", [4, 4], 2),
    ]


def test_shrink_gives_smaller_valid_cases():
    module = package()
    assert list(module.shrink({"piles": [1]})) == []
    assert list(module.shrink({"piles": [5]})) == [{"piles": [2]}]
    for case in [module.generate(random.Random(s), "random") for s in range(20)]:
        piles = case["piles"]
        smaller = list(module.shrink(case))
        assert smaller
        for candidate in smaller:
            module.validate(candidate)
            shorter = len(candidate["piles"]) < len(piles)
            assert shorter or sum(candidate["piles"]) < sum(piles)
        assert case["piles"] == piles  # the case is not modified


def test_small_cases_are_distinct_and_canonical_is_the_row():
    module = package()
    cases = module.small_cases()
    assert len({module.canonical(c) for c in cases}) == len(cases)
    assert module.canonical({"piles": [1, 2, 3]}) == (1, 2, 3)
    assert module.canonical({"piles": [3, 2, 1]}) != module.canonical({"piles": [1, 2, 3]})
    lengths = [len(c["piles"]) for c in cases]
    assert lengths == sorted(lengths)  # fewest piles first


def test_write_input_matches_stdio_md():
    module = package()
    cases = [{"piles": [2, 7, 9, 4, 4]}, {"piles": [1, 2, 3, 4, 5, 100]}]
    text = module.write_input(cases)
    assert text == "2\n5\n2 7 9 4 4\n6\n1 2 3 4 5 100\n"
    assert text.strip() in (FOLDER / "stdio.md").read_text(encoding="utf-8")
    assert module.write_input([]) == "0\n"


def test_the_declarations_match_problem_py():
    module, manifest = package(), read_manifest(FOLDER)
    assert manifest.slug == "stonegame"
    assert manifest.param_names == module.PARAMS
    assert str(manifest.returns) == "int"
    assert manifest.view.kind == "json"
    assert abs(sum(manifest.profiles.values()) - 1.0) < 1e-9
    statement = read_statement(FOLDER)
    for sample in manifest.samples:  # every sample is one of the statement's examples
        assert f"`{sample['input']['piles']}` | {sample['answer']} |" in statement
    for name in ("children", "COMBINE_RULE", "check"):  # no game tree: M is no parameter
        assert not hasattr(module, name)


# --- in the sandbox -------------------------------------------------------------------------------


def test_problem_py_loads_and_answers_in_the_sandbox(sandbox):
    module, manifest = package(), read_manifest(FOLDER)
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
            "WORST_CASES",
            "write_input",
        }
        answers = host.call_many("reference", [[s["input"]] for s in manifest.samples])
        assert answers == [s["answer"] for s in manifest.samples]
        worst = host.attribute("WORST_CASES")
        assert worst == module.WORST_CASES
        assert host.call_many("reference", [[c] for c in worst]) == [
            module.reference(c) for c in worst
        ]
        for profile in module.PROFILES:
            assert host.call("generate", 7, profile) == module.generate(random.Random(7), profile)
        for bad, message in MALFORMED[2:5]:
            with pytest.raises(InvalidCase) as refused:
                host.call("validate", bad)
            assert str(refused.value) == message
        assert host.call("small_cases") == module.small_cases()
        case = manifest.samples[0]["input"]
        assert host.call("canonical", case) == list(module.canonical(case))
        assert host.call("explain", case) == module.explain(case)
        cases = [s["input"] for s in manifest.samples]
        assert host.call("write_input", cases) == module.write_input(cases)
    assert host.output == ""  # it printed nothing

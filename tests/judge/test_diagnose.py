"""Where is the bug: the positions one move later, and the search run on the mutant library.

The submission here is a mutant called in-process: the search only needs answers, and the
mutants are the judge's own catalogue of plausible student bugs."""

from __future__ import annotations

import dataclasses
import random

import pytest

from judge.diagnosis import tree_search as dg
from judge.problems import get
from judge.strength import mutants

SLUGS = ("footholds", "numbergame")
FOOTHOLDS, NUMBERGAME = get("footholds"), get("numbergame")  # the specs the judge grades with


def footholds_from_children(case):
    """The value of a footholds position rebuilt from its children's reference values."""
    board, (ar, ac), bloc = case["board"], case["aloc"], case["bloc"]
    rows, cols = len(board), len(board[0])
    moves = [
        (nr, nc)
        for nr, nc in ((ar - 1, ac), (ar + 1, ac), (ar, ac - 1), (ar, ac + 1))
        if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc]
    ]
    if not moves:
        return 0
    if list(bloc) == [ar, ac]:
        return 1  # B's foothold vanishes under it as A steps off: A wins in one move
    after = [FOOTHOLDS.reference(child) + 1 for child in FOOTHOLDS.game_tree.children(case)]
    wins = [n for n in after if n % 2]
    return min(wins) if wins else max(after)


def numbergame_from_children(case):
    board = case["board"]

    def value(row):
        return NUMBERGAME.reference({"board": row}) if row else 0

    options = [board[0] - value(board[1:]), board[-1] - value(board[:-1])]
    if len(board) >= 2:
        options += [-value(board[2:]), -value(board[:-2])]
    return max(options)


def sample_cases(slug, count=300):
    problem = get(slug)
    rng = random.Random(7)
    profiles = list(problem.PROFILES)
    cases = [s["input"] for s in problem.SAMPLES] + problem.small_tier.cases()[:200]
    return cases + [problem.generate(rng, rng.choice(profiles)) for _ in range(count)]


@pytest.mark.parametrize(
    ("slug", "rebuild"),
    [("footholds", footholds_from_children), ("numbergame", numbergame_from_children)],
)
def test_children_are_valid_and_determine_the_value(slug, rebuild):
    problem = get(slug)
    for case in sample_cases(slug):
        for child in problem.game_tree.children(case):
            problem.validate(child)
        assert rebuild(case) == problem.reference(case), case


def test_footholds_children_swap_the_roles_and_vanish_the_old_cell():
    case = {"board": [[1, 1, 1]], "aloc": [0, 1], "bloc": [0, 2]}
    assert FOOTHOLDS.game_tree.children(case) == [
        {"board": [[1, 0, 1]], "aloc": [0, 2], "bloc": [0, 0]},
        {"board": [[1, 0, 1]], "aloc": [0, 2], "bloc": [0, 2]},
    ]
    shared = {"board": [[1, 1]], "aloc": [0, 0], "bloc": [0, 0]}
    assert FOOTHOLDS.game_tree.children(shared) == []  # B falls as A steps off: not a valid case


def test_numbergame_children_are_the_distinct_shorter_rows():
    assert NUMBERGAME.game_tree.children({"board": [1, 2, 3]}) == [
        {"board": [2, 3]},
        {"board": [1, 2]},
        {"board": [3]},
        {"board": [1]},
    ]
    assert NUMBERGAME.game_tree.children({"board": [5, 5]}) == [{"board": [5]}]
    assert NUMBERGAME.game_tree.children({"board": [5]}) == []


def asker(mutant):
    calls = []

    def ask(cases):
        calls.append(len(cases))
        return [mutants.run(mutant, dict(case)) for case in cases]

    return ask, calls


def first_failure(slug, mutant):
    problem = get(slug)
    for case in (
        [s["input"] for s in problem.SAMPLES]
        + problem.small_tier.cases()
        + list(problem.WORST_CASES)
    ):
        got = mutants.run(mutant, dict(case))
        if not problem.check(case, problem.reference(case), got)[0]:
            return case, got
    return None


def mutant_params():
    return [(slug, name) for slug in SLUGS for name in mutants.mutants(slug)]


@pytest.mark.parametrize(("slug", "name"), mutant_params())
def test_the_search_names_a_wrong_position_whose_children_are_right(slug, name):
    problem = get(slug)
    mutant = mutants.mutants(slug)[name]
    failure = first_failure(slug, mutant)
    assert failure is not None, f"{name} passes every sample, small and worst case"
    case, got = failure
    ask, calls = asker(mutant)
    found = dg.diagnose(problem, case, ask, got=got)
    assert found is not None, name
    wrong = found.wrong
    assert wrong.expected == problem.reference(wrong.case)
    assert wrong.got == mutants.run(mutant, dict(wrong.case))
    assert not problem.check(wrong.case, wrong.expected, wrong.got)[0]
    assert [c.case for c in found.children] == problem.game_tree.children(wrong.case)
    for child in found.children:
        assert child.got == child.expected == problem.reference(child.case)
    assert found.calls == sum(calls) <= dg.DEFAULT_MAX_CALLS
    report = found.to_json()
    assert report["case"] == wrong.case and report["summary"] == found.summary
    assert all(c["got"] == c["expected"] for c in report["children"])


def test_a_swapped_min_and_max_is_blamed_on_how_children_combine():
    mutant = mutants.mutants("footholds")["min_max_swapped"]
    case = FOOTHOLDS.SAMPLES[0]["input"]
    ask, _ = asker(mutant)
    found = dg.diagnose(FOOTHOLDS, case, ask, got=mutants.run(mutant, dict(case)))
    assert found is not None and found.children
    values = ", ".join(str(c.expected) for c in found.children)
    assert f"(values {values})" in found.summary
    assert (
        "does not follow from your values one move later. The rule: a player who can win takes"
        in found.summary
    )
    assert f"expected {found.wrong.expected}, returned {found.wrong.got}" in found.summary


def test_a_wrong_end_of_game_is_named_as_such():
    mutant = mutants.mutants("footholds")["stuck_end_plus_one"]
    case = {"board": [[1, 1, 0, 1]], "aloc": [0, 0], "bloc": [0, 3]}
    ask, _ = asker(mutant)
    found = dg.diagnose(FOOTHOLDS, case, ask, got=mutants.run(mutant, dict(case)))
    assert found is not None
    assert found.children == ()
    assert found.summary.endswith("a position with no moves: the game ends here.")
    assert found.depth == 1  # A's only move leaves B stuck: the mutant counts B's turn


def test_a_raising_child_is_followed_and_said_in_words():
    def solve(case):
        if len(case["board"]) == 1:
            raise IndexError("list index out of range")
        return NUMBERGAME.reference(case)

    ask, _ = asker(mutants.Mutant("raises on one number", solve))
    case = {"board": [3, -1, 4]}
    got = 99
    found = dg.diagnose(NUMBERGAME, case, ask, got=got)
    assert found is not None
    assert found.wrong.case["board"] in ([-1], [3], [4])
    assert found.children == ()
    assert "raised IndexError" in found.summary
    assert found.to_json()["got"] == "raised IndexError"


def test_an_error_on_every_call_is_said_so_and_points_at_the_traceback():
    # Not "check how your function scores a move that ends the game": no move is to blame.
    def solve(case):
        raise TypeError("unsupported operand")

    ask, _ = asker(mutants.Mutant("raises always", solve))
    found = dg.diagnose(NUMBERGAME, {"board": [3, -1, 4]}, ask, got=dg.UNKNOWN)
    assert found is not None
    assert found.summary.startswith("Your function raised TypeError on every position")
    assert "traceback" in found.summary
    assert "ends the game" not in found.summary and "combines" not in found.summary


def test_a_wrong_wrapper_is_described_as_observed_not_blamed_on_combining():
    # A right recursion whose wrapper is wrong on long rows only: the search cannot see the
    # wrapper, so it says what it saw of the values.
    def solve(case):
        value = NUMBERGAME.reference(case)
        return value + 1 if len(case["board"]) == 3 else value

    ask, _ = asker(mutants.Mutant("wrapper", solve))
    case = {"board": [3, -1, 4]}
    found = dg.diagnose(NUMBERGAME, case, ask, got=solve(case))
    assert found is not None and found.children
    assert "your value here does not follow from your values one move later" in found.summary
    assert "combines them" not in found.summary


def test_one_position_one_move_later_is_said_in_the_singular():
    case = {"board": [5, 5]}  # one child: [5]
    found = dg.diagnose(NUMBERGAME, case, lambda cs: [5 for _ in cs], got=99)
    assert found is not None and len(found.children) == 1
    assert "right on the position one move later (value 5)" in found.summary


def test_the_search_stops_at_its_call_budget_and_on_a_stopped_sandbox():
    mutant = mutants.mutants("numbergame")["greedy"]
    case, got = first_failure("numbergame", mutant)
    ask, _ = asker(mutant)
    assert dg.diagnose(NUMBERGAME, case, ask, got=got, max_calls=0) is None

    def stopped(cases):
        raise dg.Stopped

    assert dg.diagnose(NUMBERGAME, case, stopped, got=got) is None


def test_a_right_answer_or_a_problem_without_children_gives_no_diagnosis():
    case = NUMBERGAME.SAMPLES[0]["input"]
    assert dg.diagnose(NUMBERGAME, case, lambda cs: [], got=NUMBERGAME.reference(case)) is None

    assert dg.offers_diagnosis(NUMBERGAME)
    assert not dg.offers_diagnosis(dataclasses.replace(NUMBERGAME, game_tree=None))


@pytest.mark.parametrize("name", ["min_max_swapped", "winner_maximises", "depth_cap_10"])
def test_diving_down_a_line_of_play_needs_few_batches(name):
    mutant = mutants.mutants("footholds")[name]
    case = FOOTHOLDS.WORST_CASES[0]
    plain_ask, plain_batches = asker(mutant)
    dive_ask, dive_batches = asker(mutant)
    plain = dg.diagnose(FOOTHOLDS, case, plain_ask)  # its answer on `case` asked too
    dived = dg.diagnose(FOOTHOLDS, case, dive_ask, dive=True)
    assert plain is not None and dived is not None
    assert not FOOTHOLDS.check(dived.wrong.case, dived.wrong.expected, dived.wrong.got)[0]
    assert [c.case for c in dived.children] == FOOTHOLDS.game_tree.children(dived.wrong.case)
    assert all(c.got == c.expected for c in dived.children)
    assert dived.depth >= plain.depth  # it jumps as deep as the line allows
    assert plain_batches[0] == 1  # the starting position alone
    assert len(dive_batches) <= 4 < len(plain_batches)
    assert dived.calls == sum(dive_batches) <= dg.DEFAULT_MAX_CALLS


def test_a_forged_answer_is_shown_short():
    huge = [10**3999] * 15  # what a submission may return one move below
    case = {"board": [3, -1, 4]}

    def ask(cases):
        return [huge for _ in cases]

    found = dg.diagnose(NUMBERGAME, case, ask, got=99)
    assert found is not None
    report = found.to_json()
    assert len(report["got"]) <= dg.SHOWN_CHARS and len(found.summary) < 1000

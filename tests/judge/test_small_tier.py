"""The small tier (every position up to a size, reduced by symmetry) and the worst cases.

A solution wrong on a single small position is rejected whatever the seed, with that position
shown; a solution too slow only on the longest games gets TLE whatever the seed; the symmetry
reduction keeps one position of every class and the classes really are the same game.
"""

from __future__ import annotations

import json

import pytest

from judge import problems
from judge.grading.grade import grade
from judge.grading.plan import plan_size, plan_tests, small_positions
from judge.strength.mutants.accepted import SOURCES
from judge.verdict import TestKind, Verdict
from tests.judge.corpus import short_limit

FOOTHOLDS = problems.get("footholds")
NUMBERGAME = problems.get("numbergame")

# Correct solutions written as a student would (the ones generated mutants grow from).
CORRECT_FOOTHOLDS = SOURCES["footholds"]
CORRECT_NUMBERGAME = SOURCES["numbergame"]


def wrong_on(correct: str, position: dict) -> str:
    """The correct solution, but one more than the answer on exactly this position."""
    args = ", ".join(position)
    return (
        correct
        + f"""
_right = solution
_WRONG = {json.dumps(position)}

def solution({args}):
    given = dict(zip({list(position)!r}, [{args}]))
    return _right({args}) + (given == _WRONG)
"""
    )


def pick(problem, test) -> dict:
    """The first position of the reduced small tier that passes `test`."""
    return next(case for case in small_positions(problem) if test(case))


SEEDS = (0, 1, 2)


@pytest.mark.parametrize(
    ("problem", "correct", "position"),
    [
        # The rare bug: a 3x3 board with 7 footholds.
        (
            FOOTHOLDS,
            CORRECT_FOOTHOLDS,
            pick(
                FOOTHOLDS,
                lambda c: (
                    len(c["board"]) == 3 == len(c["board"][0])
                    and sum(map(sum, c["board"])) == 7
                    and c["aloc"] != c["bloc"]
                ),
            ),
        ),
        # Both pieces on one cell of a 2x2 board.
        (
            FOOTHOLDS,
            CORRECT_FOOTHOLDS,
            pick(
                FOOTHOLDS,
                lambda c: (
                    len(c["board"]) == 2
                    and c["aloc"] == c["bloc"]
                    and sum(map(sum, c["board"])) == 3
                ),
            ),
        ),
        # A row of five with a tie, a zero and an extreme.
        (
            NUMBERGAME,
            CORRECT_NUMBERGAME,
            pick(
                NUMBERGAME,
                lambda c: (
                    len(c["board"]) == 5
                    and c["board"].count(0) == 1
                    and c["board"].count(-1000) == 2
                ),
            ),
        ),
    ],
    ids=["footholds-3x3-seven-footholds", "footholds-2x2-shared-start", "numbergame-five"],
)
def test_a_solution_wrong_on_one_small_position_is_rejected_in_every_seed(
    sandbox, problem, correct, position
):
    source = wrong_on(correct, position)
    count = len(small_positions(problem))
    number = small_positions(problem).index(position) + 1
    for seed in SEEDS:
        result = grade(problem, source, seed=seed, random_count=3, sandbox=sandbox)
        assert result.verdict is Verdict.WA, (seed, result.tests)
        failing = next(t for t in result.tests if t.verdict is not Verdict.AC)
        assert failing.kind is TestKind.SMALL and failing.input == position
        assert failing.positions == number and f"small position {number} of {count}" in (
            failing.message
        )
        expected = problem.reference(position)
        assert failing.expected == expected and failing.got == expected + 1
        cx = failing.counterexample
        assert cx is not None and cx.input == position and cx.explanation["answer"] == expected
        # Everything else ran and passed: only that position is wrong.
        assert result.passed == result.total - 1


def test_a_correct_solution_passes_every_small_position_in_one_test(sandbox):
    seen = []
    result = grade(
        NUMBERGAME,
        CORRECT_NUMBERGAME,
        seed=4,
        random_count=2,
        sandbox=sandbox,
        on_test=seen.append,
    )
    assert result.verdict is Verdict.AC and result.total == plan_size(NUMBERGAME, 0, 2)
    small = [t for t in seen if t.kind is TestKind.SMALL]
    assert len(small) == 1 and small[0].positions == len(small_positions(NUMBERGAME))
    assert small[0].message == f"all {small[0].positions} small positions passed"
    assert [t.kind for t in result.tests][:5] == [TestKind.SAMPLE] * 3 + [
        TestKind.SMALL,
        TestKind.WORST,
    ]


def test_a_process_dying_on_a_small_position_costs_one_restart_not_one_per_position(sandbox):
    # Kills its own process on every small position: a fresh sandbox per position would take
    # minutes; the tier ends at its first failure and grading goes on past it.
    source = (
        CORRECT_NUMBERGAME
        + """
import os
_right = solution
def solution(board):
    if len(board) <= 5 and set(board) <= {-1000, -1, 0, 1000}:  # the small positions only
        os._exit(3)
    return _right(board)
"""
    )
    result = grade(NUMBERGAME, source, seed=2, random_count=2, sandbox=sandbox)
    small = next(t for t in result.tests if t.kind is TestKind.SMALL)
    assert small.verdict is Verdict.RE and small.positions == 1
    assert "exited with code 3" in small.message
    assert all(t.verdict is Verdict.AC for t in result.tests if t.kind is TestKind.WORST)


def test_a_process_failing_a_small_position_does_not_answer_the_tiers_rest(sandbox):
    # Raises on the first small position (a JVM's stack overflow is such an error: slow to
    # raise), then takes 0.2 s on each further one: answering the tier's 700-odd remaining
    # positions would eat the whole budget and skip the tests after the tier.
    first = small_positions(NUMBERGAME)[0]["board"]
    source = (
        CORRECT_NUMBERGAME
        + f"""
import time
_right = solution
def solution(board):
    if board == {first!r}:
        raise RecursionError("maximum recursion depth exceeded")
    if len(board) <= 5 and set(board) <= {{-1000, -1, 0, 1000}}:  # the small positions
        time.sleep(0.2)
    return _right(board)
"""
    )
    result = grade(NUMBERGAME, source, seed=2, random_count=2, sandbox=sandbox)
    small = next(t for t in result.tests if t.kind is TestKind.SMALL)
    assert small.verdict is Verdict.RE and small.positions == 1
    later = [t for t in result.tests if t.index > small.index]
    assert later and all(t.verdict is Verdict.AC for t in later), [t.verdict for t in later]


def test_a_solution_slow_only_on_the_longest_rows_gets_tle_in_every_seed(sandbox):
    source = (
        CORRECT_NUMBERGAME
        + """
_right = solution
def solution(board):
    while len(board) == 50:
        pass
    return _right(board)
"""
    )
    for seed in SEEDS:
        # No random board at all: the worst cases alone catch it (at the corpus's short limit
        # for what times out: a TLE stops at the limit, whatever it is).
        result = grade(
            short_limit("numbergame"), source, seed=seed, random_count=0, sandbox=sandbox
        )
        assert result.verdict is Verdict.TLE, (seed, result.tests)
        failing = next(t for t in result.tests if t.verdict is not Verdict.AC)
        assert failing.kind is TestKind.WORST


@pytest.mark.parametrize("problem", [FOOTHOLDS, NUMBERGAME], ids=lambda p: p.SLUG)
def test_the_symmetry_reduction_keeps_every_position_class(problem):
    reduced = problem.small_tier.cases()
    full = problem.small_tier.cases(reduced=False)
    keys = [problem.small_tier.canonical(case) for case in reduced]
    assert len(set(keys)) == len(keys) == len(reduced) < len(full)
    answer_of = {key: problem.reference(case) for key, case in zip(keys, reduced, strict=True)}
    for case in full:
        key = problem.small_tier.canonical(case)
        assert key in answer_of, case  # its class is tried
        assert problem.reference(case) == answer_of[key], case  # and is the same game
    for case in reduced:
        problem.validate(case)


def test_footholds_small_tier_is_every_board_up_to_three_by_three():
    full = FOOTHOLDS.small_tier.cases(reduced=False)
    shapes = {(len(c["board"]), len(c["board"][0])) for c in full}
    assert shapes == {(r, c) for r in range(1, 4) for c in range(1, 4)}
    # Every foothold pattern with every ordered pair of start cells, shared ones included:
    # the sum over patterns of (footholds)^2 is n(n+1)2^(n-2) for n cells.
    assert len(full) == sum(
        n * (n + 1) * 2**n // 4 for n in (r * c for r in range(1, 4) for c in range(1, 4))
    )
    sizes = [sum(map(sum, c["board"])) for c in FOOTHOLDS.small_tier.cases()]
    assert sizes == sorted(sizes)  # fewest footholds first: the first failure is the smallest


def test_the_plan_counts_itself_and_fixes_the_worst_cases():
    for problem in (FOOTHOLDS, NUMBERGAME):
        for seed in (1, 2):
            plan = plan_tests(problem, [{"input": problem.SAMPLES[0]["input"]}], seed, 5)
            assert len(plan) == plan_size(problem, 1, 5)
            worst = [t.input for t in plan if t.kind is TestKind.WORST]
            assert worst == list(problem.WORST_CASES) and worst

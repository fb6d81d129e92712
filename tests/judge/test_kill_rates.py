"""Generated mutants: the operators, the accepted solutions they grow from, the CPU alarm, and
the kill rates by how often a mutant is wrong (100 seeds in docs/strength.md; a few here)."""

from __future__ import annotations

from collections import Counter

import pytest

from judge import problems
from judge.grading.plan import small_answers, small_positions
from judge.strength.kill_rates import BANDS, band_of, generated_report
from judge.strength.mutants import Mutant, Raised, run
from judge.strength.mutants.accepted import SOURCES
from judge.strength.mutants.generated import bounded, generated, mutate

FOOTHOLDS = problems.get("footholds")
NUMBERGAME = problems.get("numbergame")


@pytest.mark.parametrize("problem", [FOOTHOLDS, NUMBERGAME], ids=lambda p: p.SLUG)
def test_the_accepted_solution_is_right_on_every_small_position_and_sample(problem):
    namespace = {}
    exec(SOURCES[problem.SLUG], namespace)
    solution = namespace["solution"]
    for case, answer in zip(small_positions(problem), small_answers(problem), strict=True):
        assert solution(*(case[p] for p in problem.PARAMS)) == answer, case
    for sample in problem.SAMPLES:
        assert solution(*(sample["input"][p] for p in problem.PARAMS)) == sample["answer"]


def test_every_operator_finds_places_to_change():
    operators = Counter(op for slug in SOURCES for op, _, _ in mutate(SOURCES[slug]))
    expected = {"comparison", "constant", "arithmetic", "boolean", "negated", "deleted"}
    expected |= {"min_max", "arguments", "element"}
    assert expected <= set(operators), operators
    # Leaving one of the four directions out gives four mutants of footholds.
    directions = [text for op, text, _ in mutate(SOURCES["footholds"]) if op == "element"]
    assert len(directions) == 4 and all("of 4 left out" in text for text in directions)


def test_each_generated_mutant_is_one_distinct_change_that_compiles():
    library = generated("footholds")
    assert len(library) > 50
    assert all(name.startswith("gen_") for name in library)
    assert all(m.description.startswith("generated: line ") for m in library.values())
    # One change: the mutant differs from the accepted solution on some small position, or is
    # counted as probably equivalent later; either way it answers or raises, never hangs.
    case = small_positions(FOOTHOLDS)[-1]
    for mutant in library.values():
        run(mutant, case)


def test_a_mutant_past_the_time_limit_counts_as_raising():
    def endless(board):
        while True:
            board = board[::-1]

    slow = bounded(endless, ("board",), budget_s=0.05)
    got = run(Mutant("loops", slow), {"board": [1, 2]})
    assert isinstance(got, Raised) and got.error == "TooSlow"


def test_bands():
    assert [band_of(r) for r in (0.5, 0.1, 0.05, 0.01, 0.005, 0.001, 0.0004, 0.0)] == [
        ">=10%",
        ">=10%",
        "1-10%",
        "1-10%",
        "0.1-1%",
        "0.1-1%",
        "rarer",
        "rarer",
    ]
    assert [name for name, _ in BANDS][-1] == "rarer"


def test_numbergame_kill_rates_over_a_few_seeds():
    seeds = 4
    report = generated_report(NUMBERGAME, seeds)
    counted = [m for m in report.mutants if not m.equivalent]
    assert sum(b.mutants for b in report.bands) == len(counted) > 20
    for m in report.mutants:
        assert 0 <= m.wrong <= m.boards and 0 <= m.seeds_killed <= seeds
        if m.equivalent:  # never wrong on anything tried: small positions, random boards
            assert m.fixed is None and m.wrong == 0
        if m.rate >= 0.01:  # the goal: wrong on 1% of boards, rejected in every seed
            assert m.seeds_killed == seeds, m
    for band in report.bands:
        members = [m for m in counted if band_of(m.rate) == band.band]
        assert band.killed_every_seed == sum(m.seeds_killed == seeds for m in members)
    assert report.survivors == [m.name for m in counted if m.seeds_killed < seeds]

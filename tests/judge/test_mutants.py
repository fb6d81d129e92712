"""The mutant libraries: real, distinct, plausible bugs that finish fast and behave."""

from __future__ import annotations

import copy
import cProfile
import itertools
import random

import pytest

from judge import problems
from judge.strength.analysis import Killer
from judge.strength.mutants import Mutant, Raised, mutants, run
from judge.strength.mutants import footholds as fm
from judge.strength.mutants import numbergame as nm

SLUGS = ("footholds", "numbergame")
MINIMUM = {"footholds": 15, "numbergame": 8}


HEAVY = {"dense_large", "long_game"}  # footholds profiles whose boards take ~0.1 s per mutant


def battery(
    slug: str, count: int = 100, heavy: int = 4, seed: int = 0, skip: tuple[str, ...] = ()
) -> list[dict]:
    """Samples plus generated boards of every profile but `skip`: `count` of each cheap
    profile, then `heavy` of each expensive one (big footholds boards), cheap boards first."""
    problem = problems.get(slug)
    rng = random.Random(f"battery-{slug}-{seed}")
    cases = [s["input"] for s in problem.SAMPLES]
    for profile in sorted(problem.PROFILES, key=lambda p: p in HEAVY):
        if profile in skip:
            continue
        n = heavy if profile in HEAVY else count
        cases += [problem.generate(rng, profile) for _ in range(n)]
    return cases


@pytest.fixture(scope="module")
def killers():
    return {slug: Killer(problems.get(slug)) for slug in SLUGS}


@pytest.mark.parametrize("slug", SLUGS)
def test_library_size_and_shape(slug):
    library = mutants(slug)
    assert len(library) >= MINIMUM[slug]
    for name, mutant in library.items():
        assert isinstance(mutant, Mutant)
        assert name.isidentifier() and name == name.lower()
        assert 10 <= len(mutant.description) <= 100


def test_footholds_library_covers_the_issue_list():
    names = set(mutants("footholds"))
    for wanted in (
        "winner_maximises",  # min and max swapped for the winner
        "loser_minimises",  # ... or the loser
        "vanish_rule_ignored",
        "no_flag_longest",  # no win/lose flag
        "stuck_end_plus_one",  # moves counted off by one at the end
        "no_up",  # a direction missing
        "bounds_rows_cols_swapped",  # rows and columns confused on rectangular boards
        "memo_forgets_opponent",  # memo keys that forget a piece
        "first_player_wins",
        "no_stepping_on_opponent",
    ):
        assert wanted in names
    assert len([n for n in names if n.startswith("depth_cap_")]) >= 3


def test_unknown_problem_has_no_mutants():
    assert mutants("no_such_problem") == {}


@pytest.mark.parametrize("slug", SLUGS)
def test_the_bug_free_variant_is_the_reference(slug):
    """Mutants are one bug away from a correct solver, so their kills mean something."""
    problem = problems.get(slug)
    module = {"footholds": fm, "numbergame": nm}[slug]
    for case in battery(slug, 100, heavy=10, seed=1):
        assert module.play(case, module.CORRECT) == problem.reference(case), case


@pytest.mark.parametrize("slug", SLUGS)
def test_every_mutant_differs_from_the_reference_on_some_valid_case(slug, killers):
    """Found by search over generated boards; the proof is the case itself."""
    problem = problems.get(slug)
    judge = killers[slug]
    proof = {}
    for name in judge.mutants:
        for case in battery(slug):
            if judge.kills(name, case):
                proof[name] = case
                break
    missing = sorted(set(judge.mutants) - set(proof))
    assert not missing, f"no case tells these mutants from the reference: {missing}"
    for name, case in proof.items():
        problem.validate(case)
        got = run(judge.mutants[name], case)
        assert isinstance(got, Raised) or got != problem.reference(case), name


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_mutants_are_pairwise_distinct(slug, killers):
    """No two mutants are the same bug in disguise: some board tells them apart."""
    judge = killers[slug]
    cases = battery(slug, 30, heavy=4, skip=("long_game",))
    signature = {
        name: tuple(str(judge.outcome(name, case)) for case in cases) for name in judge.mutants
    }
    same = [(a, b) for a, b in itertools.combinations(signature, 2) if signature[a] == signature[b]]
    assert not same


@pytest.mark.parametrize("slug", SLUGS)
def test_mutants_leave_the_case_alone_and_are_deterministic(slug):
    for name, mutant in mutants(slug).items():
        for case in battery(slug, 3, heavy=0, seed=3):
            before = copy.deepcopy(case)
            first = run(mutant, case)
            assert case == before, name
            assert run(mutant, case) == first, name


def python_calls(action, *args) -> int:
    """How many Python function calls `action` makes: a cost that does not depend on how
    busy the machine is (counted by cProfile, whose hook is C, not a Python one per call)."""
    profiler = cProfile.Profile(builtins=False)
    profiler.runcall(action, *args)
    return sum(entry.callcount for entry in profiler.getstats())


@pytest.mark.slow
def test_mutants_finish_fast_on_the_worst_boards():
    # The strength report runs every mutant on many boards: none may blow up. The costliest
    # makes about 1.1 million calls on a full 5x5 board (a few seconds at most).
    worst = {
        "footholds": {"board": [[1] * 5 for _ in range(5)], "aloc": [0, 0], "bloc": [4, 4]},
        "numbergame": {"board": [(-1) ** k * (k * 37 % 1000) for k in range(50)]},
    }
    for slug, case in worst.items():
        for name, mutant in mutants(slug).items():
            assert python_calls(run, mutant, case) < 2_000_000, name


def test_a_raising_mutant_counts_as_killed(killers):
    """A bad bounds check raises IndexError on some board, as the student's program would."""
    judge = killers["footholds"]
    case = {"board": [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1]], "aloc": [1, 0], "bloc": [0, 4]}
    got = run(mutants("footholds")["bounds_rows_cols_swapped"], case)
    assert got == Raised("IndexError") and str(got) == "raised IndexError"
    assert judge.kills("bounds_rows_cols_swapped", case)


def test_depth_caps_only_fail_on_long_games(killers):
    judge = killers["footholds"]
    for case in battery("footholds", 20, heavy=0, seed=4):
        if problems.get("footholds").reference(case) < 6:
            assert not judge.kills("depth_cap_6", case), case

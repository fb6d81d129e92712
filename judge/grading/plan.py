"""The plan: which tests a submission gets, in which order, and how many.

Samples, every small position (one test), the worst cases, random boards drawn from a seed,
then hidden boards. Pure: nothing here runs a submission, so the API may count a plan's
tests (`plan_size`) and the mutation analysis draw the same boards without the sandbox.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from judge.problems import ProblemSpec
from judge.verdict import TestKind


@dataclass
class PlannedTest:
    kind: TestKind
    input: dict[str, Any] | None  # None for the small tier until a position fails
    expected: Any  # the small tier: the list of every position's answer
    profile: str | None = None
    ref: Any = None  # the caller's id for a hidden board
    positions: list[dict[str, Any]] | None = None  # the small tier: every position, in order

    @property
    def case(self) -> dict[str, Any]:
        """The input of a test of any tier but the small one (which has many)."""
        if self.input is None:
            raise ValueError(f"a {self.kind} test has no single input")
        return self.input

    @property
    def small_positions(self) -> list[dict[str, Any]]:
        """Every position of the small tier's test."""
        if self.positions is None:
            raise ValueError(f"a {self.kind} test has no positions")
        return self.positions


def allocate(weights: Mapping[str, float], count: int) -> list[str]:
    """`count` profile names in proportion to `weights` (largest remainder, deterministic)."""
    total = sum(weights.values())
    shares = {name: count * w / total for name, w in weights.items()}
    counts = {name: math.floor(s) for name, s in shares.items()}
    by_remainder = sorted(shares, key=lambda n: (counts[n] - shares[n], n))
    for name in by_remainder[: count - sum(counts.values())]:
        counts[name] += 1
    return [name for name in weights for _ in range(counts[name])]


# The small tier is the same for every submission: enumerated and solved once per process.
# Callers only read these lists.
@cache
def small_positions(problem: ProblemSpec) -> list[dict[str, Any]]:
    """Every small position the problem declares, smallest first (none without a small tier)."""
    return [] if problem.small_tier is None else problem.small_tier.cases()


@cache
def small_answers(problem: ProblemSpec) -> list[Any]:
    """The small tier's answers, asked for in one batch."""
    return problem.answers(small_positions(problem))


def plan_size(problem: ProblemSpec, hidden_count: int = 0, random_count: int | None = None) -> int:
    """How many tests `plan_tests` plans (the small tier is one test)."""
    count = problem.RANDOM_COUNT if random_count is None else random_count
    small = 1 if small_positions(problem) else 0
    worst = len(problem.WORST_CASES)
    return len(problem.SAMPLES) + small + worst + count + hidden_count


def plan_tests(
    problem: ProblemSpec,
    hidden_cases: Iterable[Mapping[str, Any]] = (),
    seed: int = 0,
    random_count: int | None = None,
    solve: bool = True,
) -> list[PlannedTest]:
    """Samples, every small position (one test), the worst cases, random boards drawn from
    `seed`, then hidden boards.

    The small tier comes first after the samples: a failure there is the smallest
    counterexample there is. Hidden boards come last: visible and hidden tests run in
    separate sandboxes (see `judge.grading.grade.grade`), each tier in one contiguous run, and a
    student's first failure is a visible one, with its input and a counterexample, whenever
    there is one.
    With solve=False, answers not already known are left None, to be computed later.
    """
    tests = [PlannedTest(TestKind.SAMPLE, s["input"], s["answer"]) for s in problem.SAMPLES]
    if small_positions(problem):
        expected = small_answers(problem) if solve else None
        tests.append(
            PlannedTest(TestKind.SMALL, None, expected, positions=small_positions(problem))
        )
    rest = [PlannedTest(TestKind.WORST, case, None) for case in problem.WORST_CASES]
    count = problem.RANDOM_COUNT if random_count is None else random_count
    rng = random.Random(seed)
    for profile in allocate(problem.PROFILES, count):
        rest.append(PlannedTest(TestKind.RANDOM, problem.generate(rng, profile), None, profile))
    for hidden in hidden_cases:
        problem.validate(hidden["input"])
        answer, ref = hidden.get("answer"), hidden.get("id")
        rest.append(PlannedTest(TestKind.HIDDEN, hidden["input"], answer, ref=ref))
    if solve:  # in one batch: one round trip to a package's problem host
        _solve([t for t in rest if t.expected is None], problem)
    tests += rest
    return tests


def _solve(tests: list[PlannedTest], problem: ProblemSpec) -> None:
    for test, answer in zip(tests, problem.answers([t.case for t in tests]), strict=True):
        test.expected = answer

"""Time a grading takes beyond the problem's own limits: known to the runner and the shrinker,
and to the queue, which sets its task time limits from them without loading either."""

from __future__ import annotations

from collections.abc import Iterable

from judge.problems import ProblemSpec

STARTUP_S = 5.0  # starting Python and loading the solution, beyond the test's limit
# The same for a hidden tier: the visible tier loaded the same program already, and wall time
# a hidden run could spend asleep before its first answer would encode what it read.
HIDDEN_STARTUP_S = 1.0
SHRINK_BUDGET_S = 6.0  # wall time spent minimising one counterexample
DIAGNOSIS_BUDGET_S = 5.0  # wall time spent on "where is the bug" below one failure


def longest_grading_s(problems: Iterable[ProblemSpec]) -> float:
    """The longest one grading may take: the slowest problem's total budget plus shrinking
    and the search for where the bug is."""
    slowest = max(problem.LIMITS.total_s for problem in problems)
    return slowest + SHRINK_BUDGET_S + DIAGNOSIS_BUDGET_S + STARTUP_S

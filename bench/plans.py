"""Test plans the benchmarks compare: the problem without its fixed tiers.

Its own small module (the standard library only) because the command-line benchmark imports
it into a fresh `python -m judge`-like process, whose start-up is what it measures.
"""

from __future__ import annotations

import dataclasses


def without_fixed_tiers(problem, keep_worst: bool = False):
    """The problem as it was before the small tier and the worst cases: same rules, boards
    and random plan, nothing fixed beyond the samples (what the tiers add is the difference).
    `keep_worst`: without the small tier only."""
    worst = problem.WORST_CASES if keep_worst else ()
    return dataclasses.replace(problem, small_tier=None, WORST_CASES=worst)

"""Test plans the benchmarks compare: the problem without its fixed tiers.

Its own small module (the standard library only) because the command-line benchmark imports
it into a fresh `python -m judge`-like process, whose start-up is what it measures.
"""

from __future__ import annotations

import types


def without_fixed_tiers(problem) -> types.ModuleType:
    """The problem as it was before the small tier and the worst cases: same rules, boards
    and random plan, nothing fixed beyond the samples (what the tiers add is the difference)."""
    bare = types.ModuleType(problem.__name__)
    bare.__dict__.update(
        {k: v for k, v in vars(problem).items() if k not in ("small_cases", "canonical")}
    )
    bare.WORST_CASES = []
    return bare

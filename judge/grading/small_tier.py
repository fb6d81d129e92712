"""The small tier: every position of a small board, answered by the submission one by one but
reported as one test (all passed, or the first failing position, the smallest counterexample
there is), and the cases of a tier with its positions spread out among them.

A tier's tests become one case each, except the small tier's, which becomes one case per
position; `TierCases.owners` maps a case back to its test (and position). Positions are the
judge's own enumeration, with nothing to hide from each other, so a runner may hand them over
together (`TierCases.together`); every other case goes on its own.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from judge import answers
from judge.execution.runners import Outcome
from judge.grading.plan import PlannedTest
from judge.grading.results import output_of
from judge.problems import ProblemSpec
from judge.verdict import Counterexample, TestKind, TestResult, Verdict

log = logging.getLogger(__name__)


@dataclass
class SmallGroup:
    """The small tier's positions folded into one test: all passed, or the first failure."""

    index: int  # the test's place in the plan
    first: int  # where its positions start among the tier's cases
    count: int
    tried: int = 0
    cpu_s: float = 0.0  # the slowest position's (the limit is per position)
    wall_s: float = 0.0  # all positions'
    rss_kb: int = 0
    done: bool = False

    def record(self, outcome: Outcome) -> bool:
        """Count one position's outcome; True when the tier is decided by it (it failed, or
        it was the last). The positions after the first failure do not count, and the
        process is ended rather than let it answer them (a JVM overflowing its stack on each
        would spend seconds): the next one resumes past the tier (`TierCases.resume`)."""
        self.tried += 1
        self.cpu_s = max(self.cpu_s, outcome.cpu_s)
        self.wall_s += outcome.wall_s
        self.rss_kb = max(self.rss_kb, outcome.rss_kb)
        if outcome.verdict is Verdict.AC and self.tried < self.count:
            return False
        self.done = True
        if self.tried < self.count:
            outcome.fatal = True
        return True


class Owner(NamedTuple):
    test: int  # the test's place in the plan
    group: SmallGroup | None  # the small tier's, for one of its positions
    number: int  # the position's number in the tier


@dataclass
class TierCases:
    """One tier's cases, in plan order, and whose each one is."""

    cases: list[dict[str, Any]] = field(default_factory=list)
    owners: list[Owner] = field(default_factory=list)

    @classmethod
    def of(cls, planned: list[PlannedTest], tier: list[int]) -> TierCases:
        spread = cls()
        for i in tier:
            positions = planned[i].positions
            if positions is None:
                spread.cases.append(planned[i].case)
                spread.owners.append(Owner(i, None, 0))
            else:
                group = SmallGroup(i, len(spread.cases), len(positions))
                spread.cases.extend(positions)
                spread.owners.extend(Owner(i, group, n) for n in range(len(positions)))
        return spread

    def together(self, k: int) -> int:
        """Where the cases handed over with case k end: the small tier's positions go
        together, up to the tier's end; any other case on its own."""
        group = self.owners[k].group
        return k + 1 if group is None else group.first + group.count

    def resume(self, k: int) -> int:
        """After a process died on a small position that failed, go on past the tier's
        positions (a fresh sandbox for each of them would cost a start each)."""
        group = self.owners[k].group if k < len(self.owners) else None
        return group.first + group.count if group is not None and group.done else k


def small_result(
    module: ProblemSpec, group: SmallGroup, test: PlannedTest, want: Any, outcome: Outcome
) -> TestResult:
    """The small tier as one test: how many positions were tried and, when one failed, that
    position with its optimal line."""
    test_result = TestResult(
        index=group.index,
        kind=TestKind.SMALL,
        verdict=outcome.verdict,
        time_ms=round(group.cpu_s * 1000, 3),
        wall_ms=round(group.wall_s * 1000, 3),
        memory_kb=group.rss_kb,
        message=f"all {group.count} small positions passed",
        positions=group.tried,
        **output_of(TestKind.SMALL, outcome),  # the last position's: the failing one, if any
    )
    if outcome.verdict is Verdict.AC:
        return test_result
    position = test.small_positions[group.tried - 1]
    test_result.message = f"small position {group.tried} of {group.count} failed: {outcome.message}"
    test_result.input, test_result.expected = position, want
    test_result.got = answers.to_json(outcome.got)
    if outcome.verdict in (Verdict.WA, Verdict.RE):
        try:
            explanation = module.explain(position)
        except Exception:
            log.exception("explaining a small position failed")
        else:
            test_result.counterexample = Counterexample(
                input=position,
                expected=want,
                got=test_result.got,
                verdict=outcome.verdict,
                message=outcome.message,
                explanation=explanation,
            )
    return test_result

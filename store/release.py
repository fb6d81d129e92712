"""What students are shown of a judging, and from when.

The hidden tier runs last, so anything a student can time about a judging's end (its
verdict, the status turning done, the hidden rows, passed/total) times the hidden tier: a
hidden process that sleeps for a time depending on a hidden board is read off the clock.
So a judging whose hidden tier began at S and which finished at F is released to students at

    R = S + Q * 2**ceil(log2((F - S) / Q))   (at least S + Q; Q: JUDGE_HIDDEN_RELEASE_QUANTUM_S)

and later still when something holds its hidden results back (a problem's release time:
"pretests now, system tests at the deadline"; an assignment's, per student until their
due time: store/repo/releases.py): `released_moment`
is the one place that combines them. Until the judging is released a student sees it as
still being judged; while a hold lasts, over its visible tests alone (`StudentFigures`).

Counted here, when the judging is stored, because the history keeps each judging's figures
after its test rows are gone. Kept to counting rows: which rows a student is shown is
`judge.verdict.shown_to_student` (store/ does not import the judge; a test checks that the
two agree).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, overload

HIDDEN = "hidden"  # judge.verdict.TestKind.HIDDEN
ACCEPTED = "AC"  # judge.verdict.Verdict.AC


@dataclass(frozen=True)
class StudentFigures:
    """A judging as students may see it: passed/total over the rows they are shown (the
    visible tests, and the hidden ones up to the first that failed), and the verdict and
    counts over the visible tests alone (while the hidden results are held back)."""

    shown_passed: int
    shown_total: int
    visible_verdict: str
    visible_passed: int
    visible_total: int


def _kind(test: Mapping[str, Any]) -> str:
    return str(test["kind"])


def _verdict(test: Mapping[str, Any]) -> str:
    return str(test["verdict"])


def student_figures(tests: Sequence[Mapping[str, Any]], verdict: str) -> StudentFigures:
    """The figures of a judging with these tests (in index order) and this verdict.

    The visible verdict is the first failing visible test's; when no visible test failed,
    AC if a hidden one did, else the judging's own (AC, or a compile or internal error that
    no test shows)."""
    tests = sorted(tests, key=lambda t: int(t["index"]))
    shown: list[Mapping[str, Any]] = []
    hidden_failed = False
    for test in tests:
        if _kind(test) == HIDDEN:
            if hidden_failed:
                continue
            hidden_failed = _verdict(test) != ACCEPTED
        shown.append(test)
    visible = [t for t in tests if _kind(t) != HIDDEN]
    failing = next((_verdict(t) for t in visible if _verdict(t) != ACCEPTED), None)
    if failing is None:
        failing = ACCEPTED if any(_verdict(t) != ACCEPTED for t in tests) else verdict
    return StudentFigures(
        shown_passed=sum(_verdict(t) == ACCEPTED for t in shown),
        shown_total=len(shown),
        visible_verdict=failing,
        visible_passed=sum(_verdict(t) == ACCEPTED for t in visible),
        visible_total=len(visible),
    )


def release_moment(
    started_at: datetime | None, finished_at: datetime, quantum_s: float
) -> datetime:
    """When students may learn how the judging ended: R = S + step(F - S), the time since S
    rounded up to the next of Q, 2Q, 4Q, 8Q, ... S is when the hidden tier began (what
    came before it is the visible tiers', which the student sees anyway), or the judging's
    start when no hidden tier ran. Doubling steps rather than whole quanta: a hidden tier
    that may take up to 64 s can end in one of 8 steps (3 bits) instead of one of 64 quanta
    (6 bits), and an honest one, which takes a fraction of Q, is still released after Q.
    Q = 0 releases at F; without a start (never claimed) at F too."""
    if quantum_s <= 0 or started_at is None or finished_at <= started_at:
        return finished_at
    took = (finished_at - started_at).total_seconds()
    steps = max(math.ceil(math.log2(took / quantum_s) - 1e-9), 0)
    return started_at + timedelta(seconds=quantum_s * 2**steps)


def released_moment(released_at: datetime | None, *holds: datetime | None) -> datetime | None:
    """When students see a finished judging whole, hidden tier included: its release R,
    or the latest hold on its hidden results (a problem's release time; an assignment's
    later) when that comes after. None while the judging has not finished."""
    if released_at is None:
        return None
    return max([released_at, *(hold for hold in holds if hold is not None)])


@overload
def shown_seconds(moment: datetime) -> datetime: ...
@overload
def shown_seconds(moment: None) -> None: ...
def shown_seconds(moment: datetime | None) -> datetime | None:
    """A release time as students are shown it: rounded up to the second (it is quantised
    already; the microseconds are the start's)."""
    if moment is None or moment.microsecond == 0:
        return moment
    return moment.replace(microsecond=0) + timedelta(seconds=1)

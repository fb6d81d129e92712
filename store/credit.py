"""An assignment's credit for one student: which submission counts per problem, its
penalty and score, and a one-line reason the student can read.

Pure: no database, no clock (the caller passes `now`). The rules, in the order they apply:

- a submission counts when made at or after the release and at or before the student's
  cutoff (their due time, or the end of their late window): one made later is practice;
- with an attempt limit, only the first `max_attempts` submissions that count do;
- one made after the due time (up to the cutoff) is late: PER_DAY takes `late_percent`
  off per started day late (never below 0), FIXED multiplies by `late_factor`;
- BEST credits the highest score after penalty (the earliest on a tie), LAST the last
  submission that counts, skipping those the judge failed on (IE: never the student's);
- a submission not yet judged is pending: BEST waits for it only if it might do better
  than what is credited; LAST waits for the last one.

Kept apart from store/repo so that it is tested at every boundary without a database.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

# judge.verdict.Verdict / TestKind values (store/ does not import the judge).
ACCEPTED = "AC"
INTERNAL_ERROR = "IE"
TEST_KINDS = ("sample", "small", "worst", "random", "hidden")

DAY = timedelta(days=1)


@dataclass(frozen=True)
class ProblemRule:
    problem: str
    points: float
    max_attempts: int | None = None
    scoring: str = "ac"  # "ac" | "tests"
    weights: Mapping[str, float] | None = None  # "tests": kind -> weight; None: all 1


@dataclass(frozen=True)
class Rules:
    """An assignment as far as credit goes (times aware UTC)."""

    release_at: datetime
    due_at: datetime
    problems: Sequence[ProblemRule]
    late_rule: str = "none"  # "none" | "per_day" | "fixed"
    late_until: datetime | None = None
    late_percent: float | None = None
    late_factor: float | None = None
    counts: str = "best"  # "best" | "last"


@dataclass(frozen=True)
class Deadline:
    """One student's due time and cutoff (the late window's end; the due time without one)."""

    due_at: datetime
    cutoff: datetime
    extended: bool = False


@dataclass(frozen=True)
class Attempt:
    """A submission as credit reads it: `verdict` None while not judged; `tests`: kind ->
    (passed, total) over its current judging's tests."""

    id: int
    problem: str
    created_at: datetime
    verdict: str | None
    tests: Mapping[str, tuple[int, int]] = field(default_factory=dict)


def count_by_kind(tests: Iterable[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """kind -> (passed, total) over a judging's tests, given as (kind, verdict) pairs: what
    "tests" scoring reads (stored with each judging as `submissions.test_counts`)."""
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for kind, verdict in tests:
        total[kind] += 1
        passed[kind] += verdict == ACCEPTED
    return {kind: (passed[kind], total[kind]) for kind in total}


def stored_counts(value: Mapping[str, Sequence[int]]) -> dict[str, tuple[int, int]]:
    """`submissions.test_counts` as credit reads it (JSON keeps the pairs as lists)."""
    return {kind: (int(pair[0]), int(pair[1])) for kind, pair in value.items()}


@dataclass(frozen=True)
class Credit:
    problem: str
    points: float
    score: float  # after the penalty
    submission_id: int | None  # the credited submission
    factor: float  # 1.0 on time; the penalty's multiplier when late
    days_late: int
    pending: bool  # a submission that may change this is still being judged
    attempts: int  # submissions that count (up to the limit)
    reason: str


def deadline(
    rules: Rules, due_at: datetime | None = None, late_until: datetime | None = None
) -> Deadline:
    """The student's deadline: the assignment's, or an extension's (`due_at`, and
    `late_until`, None meaning a late window as long as the assignment's)."""
    window = (
        rules.late_until - rules.due_at
        if rules.late_rule != "none" and rules.late_until is not None
        else timedelta(0)
    )
    if due_at is None:
        return Deadline(rules.due_at, rules.due_at + window)
    if rules.late_rule == "none":
        return Deadline(due_at, due_at, extended=True)
    cutoff = late_until if late_until is not None else due_at + window
    return Deadline(due_at, max(cutoff, due_at), extended=True)


def days_late(made: datetime, due: datetime) -> int:
    """Started days after the due time: 0 at it or before, 1 from just after it to a day."""
    if made <= due:
        return 0
    return math.ceil((made - due) / DAY)


def penalty_factor(rules: Rules, made: datetime, when: Deadline) -> float:
    days = days_late(made, when.due_at)
    if days == 0:
        return 1.0
    if rules.late_rule == "per_day":
        return max(0.0, 1.0 - (rules.late_percent or 0.0) / 100.0 * days)
    if rules.late_rule == "fixed":
        return rules.late_factor if rules.late_factor is not None else 1.0
    return 0.0  # no late window: never reached, the cutoff is the due time


def raw_fraction(rule: ProblemRule, attempt: Attempt) -> float:
    """The share of the points a judged submission earns before any penalty."""
    if rule.scoring != "tests":
        return 1.0 if attempt.verdict == ACCEPTED else 0.0
    weights = rule.weights if rule.weights is not None else dict.fromkeys(TEST_KINDS, 1.0)
    num = den = 0.0
    for kind, (passed, total) in attempt.tests.items():
        weight = float(weights.get(kind, 0.0))
        if total > 0 and weight > 0:
            num += weight * passed / total
            den += weight
    # A compile error runs no test: nothing earned.
    return num / den if den else 0.0


def when_text(moment: datetime) -> str:
    """ "3 Dec 23:41 UTC": the day and minute in UTC, and the second when it is not 0 (one
    second after a 23:59 due time is late, and reads so)."""
    clock = "%H:%M:%S" if moment.second else "%H:%M"
    return f"{moment.day} {moment.strftime('%b ' + clock)} UTC"


def _percent(value: float) -> str:
    return f"{value * 100:.4g}%"


def _what(rule: ProblemRule, attempt: Attempt) -> str:
    if rule.scoring != "tests" or attempt.verdict in (None, "CE", INTERNAL_ERROR):
        return str(attempt.verdict)
    passed = sum(p for p, _ in attempt.tests.values())
    total = sum(t for _, t in attempt.tests.values())
    return f"{attempt.verdict}, {passed}/{total} tests"


@dataclass(frozen=True)
class _Scored:
    attempt: Attempt
    raw: float
    factor: float
    days: int

    @property
    def score_fraction(self) -> float:
        return self.raw * self.factor


def _reason(rule: ProblemRule, s: _Scored) -> str:
    made = f"{_what(rule, s.attempt)} on {when_text(s.attempt.created_at)}"
    timing = "on time" if s.days == 0 else f"{s.days} day{'s' * (s.days != 1)} late"
    text = f"{made}, {timing}"
    if rule.scoring == "tests":
        text += f": {_percent(s.raw)} of the tests"
        if s.factor != 1.0:
            text += f" x {_percent(s.factor)}"
    else:
        text += f": {_percent(s.score_fraction)}"
    return text


def credit_problem(
    rules: Rules, rule: ProblemRule, when: Deadline, attempts: Sequence[Attempt]
) -> Credit:
    """The credit for one problem from the student's submissions to it (any order)."""
    counting = sorted(
        (
            a
            for a in attempts
            if a.problem == rule.problem and rules.release_at <= a.created_at <= when.cutoff
        ),
        key=lambda a: (a.created_at, a.id),
    )
    capped = rule.max_attempts is not None and len(counting) > rule.max_attempts
    if rule.max_attempts is not None:
        counting = counting[: rule.max_attempts]
    scored = [
        _Scored(
            a,
            raw_fraction(rule, a),
            penalty_factor(rules, a.created_at, when),
            days_late(a.created_at, when.due_at),
        )
        for a in counting
        if a.verdict is not None
    ]
    waiting = [a for a in counting if a.verdict is None]
    chosen: _Scored | None
    if rules.counts == "last":
        judged = [s for s in scored if s.attempt.verdict != INTERNAL_ERROR]
        last = counting[-1] if counting else None
        pending = last is not None and last.verdict is None
        chosen = judged[-1] if judged else None  # so far, while the last is judged
    else:
        best = max((s.score_fraction for s in scored), default=0.0)
        chosen = next((s for s in scored if s.score_fraction == best), None)
        # A pending one might do better only if full marks after its penalty beat the best.
        pending = any(penalty_factor(rules, a.created_at, when) > best for a in waiting)
    suffix = f" (only the first {rule.max_attempts} attempts count)" if capped else ""
    if pending:
        reason = "waiting for a verdict"
        if chosen is not None:
            reason += f"; so far {_reason(rule, chosen)}"
    elif chosen is None:
        reason = "no submission that counts"
    else:
        reason = _reason(rule, chosen)
    score = chosen.score_fraction * rule.points if chosen else 0.0
    return Credit(
        problem=rule.problem,
        points=rule.points,
        score=round(score, 4),
        submission_id=chosen.attempt.id if chosen else None,
        factor=chosen.factor if chosen else 1.0,
        days_late=chosen.days if chosen else 0,
        pending=pending,
        attempts=len(counting),
        reason=reason + suffix,
    )


def credit(rules: Rules, when: Deadline, attempts: Sequence[Attempt]) -> list[Credit]:
    """Per problem of the assignment, in its order."""
    return [credit_problem(rules, rule, when, attempts) for rule in rules.problems]


def is_practice(when: Deadline, now: datetime) -> bool:
    """A submission made now counts for nothing: past the student's cutoff."""
    return now > when.cutoff

"""What a regrade does to one student's assignment: their attempts credited again with the
new verdicts a rejudge preview found substituted, by the same rules (store/credit.py), so the
instructor sees each score that changes before applying it.

Pure, like store/credit.py: the caller reads the attempts, the deadline (with the student's
extension) and the overrides; each submission keeps its time, so the late penalty, the cutoff
and the attempt limit that applied when it was made apply again. An instructor's override
stays: the computed change is reported, marked, and the score is not touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from store import credit


@dataclass(frozen=True)
class Regraded:
    """A submission's verdict graded again; `tests`: kind -> (passed, total)."""

    verdict: str
    tests: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Change:
    """One problem's score for one student before and after, and the assignment's total."""

    problem: str
    old: float
    new: float
    old_total: float
    new_total: float
    overridden: bool
    reason: str
    # The submissions credited before and after: a rejudge must regrade them for the score
    # to follow (with "tests" scoring, one whose verdict stays may still score otherwise).
    credited: tuple[int, ...] = ()


def substituted(
    attempts: Sequence[credit.Attempt], regraded: Mapping[int, Regraded]
) -> list[credit.Attempt]:
    """The attempts with the new verdicts in place (one not judged yet stays pending: the
    preview graded it finished, a rejudge since makes another preview)."""
    found = []
    for attempt in attempts:
        new = regraded.get(attempt.id)
        if new is not None and attempt.verdict is not None:
            attempt = replace(attempt, verdict=new.verdict, tests=dict(new.tests))
        found.append(attempt)
    return found


def problem_change(
    rules: credit.Rules,
    when: credit.Deadline,
    attempts: Sequence[credit.Attempt],
    regraded: Mapping[int, Regraded],
    problem: str,
    overrides: Mapping[str, float],
) -> Change | None:
    """The change to `problem`'s score (None when its computed score stays)."""
    before = credit.credit(rules, when, attempts)
    after = credit.credit(rules, when, substituted(attempts, regraded))
    old = next((c for c in before if c.problem == problem), None)
    new = next((c for c in after if c.problem == problem), None)
    if old is None or new is None or old.score == new.score:
        return None
    total = round(sum(overrides.get(c.problem, c.score) for c in before), 4)
    credited = tuple(sorted({i for i in (old.submission_id, new.submission_id) if i is not None}))
    if problem in overrides:
        kept = overrides[problem]
        reason = f"set by an instructor: stays {kept:g} (computed {old.score:g} -> {new.score:g})"
        return Change(problem, kept, kept, total, total, True, reason, credited)
    new_total = round(total - old.score + new.score, 4)
    return Change(problem, old.score, new.score, total, new_total, False, new.reason, credited)

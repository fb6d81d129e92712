"""The problems' hidden-result release times, and what students are shown now.

A problem may hold its hidden results back until a time ("pretests now, system tests at
the deadline"): until then students see each judging of it over the visible tests alone
(`store.release`). `StudentsView` is that rule at one moment, in SQL and in Python, for
everything a student reads in aggregate (the history's verdict filter, the statistics).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, delete, or_, select
from sqlalchemy.orm import Session

from store.models import ProblemRelease, Status, Submission, utcnow


@dataclass(frozen=True)
class StudentsView:
    """What students are shown at `now`: a judging once released, and while its problem's
    hold lasts (`holds`: problem -> release time, those still ahead) over its visible
    tests alone."""

    now: datetime
    holds: Mapping[str, datetime] = field(default_factory=dict)

    def hold(self, problem: str) -> datetime | None:
        return self.holds.get(problem)

    def released(self) -> Any:
        """The submission's judging is released to its student (a row finished before
        releases were recorded counts as released)."""
        return and_(
            Submission.status == Status.DONE,
            or_(Submission.released_at.is_(None), Submission.released_at <= self.now),
        )

    def verdict(self) -> Any:
        """The verdict a student is shown of a released judging."""
        if not self.holds:
            return Submission.verdict
        return case(
            (Submission.problem.in_(list(self.holds)), Submission.visible_verdict),
            else_=Submission.verdict,
        )

    def verdict_is(self, verdict: str) -> Any:
        return and_(self.released(), self.verdict() == verdict)


def students_view(*, session: Session, now: datetime | None = None) -> StudentsView:
    """The rule now: the problems whose hidden results are still held back."""
    now = now or utcnow()
    rows = session.execute(
        select(ProblemRelease.problem, ProblemRelease.hidden_release_at).where(
            ProblemRelease.hidden_release_at > now
        )
    )
    return StudentsView(now=now, holds={problem: at for problem, at in rows})


def hidden_release(*, session: Session, problem: str) -> datetime | None:
    """When the problem's hidden results are released to students (None: as each judging
    ends). A time in the past holds nothing back any more."""
    return session.scalar(
        select(ProblemRelease.hidden_release_at).where(ProblemRelease.problem == problem)
    )


def set_hidden_release(
    *, session: Session, problem: str, at: datetime | None, user_id: int | None
) -> None:
    """Hold the problem's hidden results back until `at`; None: release them as each
    judging ends."""
    row = session.get(ProblemRelease, problem)
    if at is None:
        session.execute(delete(ProblemRelease).where(ProblemRelease.problem == problem))
    elif row is None:
        session.add(
            ProblemRelease(
                problem=problem, hidden_release_at=at, set_by=user_id, updated_at=utcnow()
            )
        )
    else:
        row.hidden_release_at, row.set_by, row.updated_at = at, user_id, utcnow()
    session.flush()

"""The problems' hidden-result release times, and what students are shown now.

A problem may hold its hidden results back until a time ("pretests now, system tests at
the deadline"): until then students see each judging of it over the visible tests alone
(`store.release`). So may an assignment, per student until their own due time: "visible
now, hidden at the due time" holds the hidden results; "received only" shows nothing but
that it was received. `StudentsView` is that rule at one moment, in SQL and in Python, for
everything a student reads (the history and its verdict filter, the statistics).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, delete, func, or_, select
from sqlalchemy.orm import Session

from store.models import (
    Assignment,
    AssignmentProblem,
    Extension,
    Feedback,
    ProblemRelease,
    Status,
    Submission,
    UTCDateTime,
    utcnow,
)


@dataclass(frozen=True)
class StudentsView:
    """What students are shown at `now`: a judging once released, and while its problem's
    hold lasts (`holds`: problem -> release time, those still ahead) over its visible
    tests alone."""

    now: datetime
    holds: Mapping[str, datetime] = field(default_factory=dict)
    # One student's view (students_view's user_id): problem -> their due time, while an
    # assignment shows them only that a submission was received.
    received: Mapping[str, datetime] = field(default_factory=dict)

    def hold(self, problem: str) -> datetime | None:
        return self.holds.get(problem)

    def received_only(self, problem: str) -> datetime | None:
        return self.received.get(problem)

    def released(self) -> Any:
        """The submission's judging is released to its student (a row finished before
        releases were recorded counts as released), and not kept to "received"."""
        done = and_(
            Submission.status == Status.DONE,
            or_(Submission.released_at.is_(None), Submission.released_at <= self.now),
        )
        if not self.received:
            return done
        return and_(done, Submission.problem.not_in(list(self.received)))

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


def students_view(
    *, session: Session, now: datetime | None = None, user_id: int | None = None
) -> StudentsView:
    """The rule now: the problems whose hidden results are still held back, and those an
    assignment keeps to "received". With `user_id`, that student's view (their own due
    times); without, the course's (the aggregates every student reads: an assignment's
    policy lasts there until the latest due time of any student, or a student's result
    could be read off the course's counts)."""
    now = now or utcnow()
    rows = session.execute(
        select(ProblemRelease.problem, ProblemRelease.hidden_release_at).where(
            ProblemRelease.hidden_release_at > now
        )
    )
    holds = {problem: at for problem, at in rows}
    received: dict[str, datetime] = {}
    for problem, policy, due in _assignment_holds(session, user_id, now):
        into = received if policy == Feedback.RECEIVED else holds
        into[problem] = max(due, into.get(problem, due))
    # Received only says less than a held judging: a problem under both is received.
    for problem in received:
        holds.pop(problem, None)
    return StudentsView(now=now, holds=holds, received=received)


def _assignment_holds(
    session: Session, user_id: int | None, now: datetime
) -> list[tuple[str, str, datetime]]:
    """(problem, policy, due time) of the released assignments whose policy holds something
    back and whose due time is still ahead: the student's own (their extension's), or
    without a student the latest of anyone's. Few rows: the assignments with a policy."""
    policy = [
        Assignment.feedback.in_([Feedback.VISIBLE, Feedback.RECEIVED]),
        Assignment.release_at <= now,
    ]
    joined = select(AssignmentProblem.problem, Assignment.feedback).join(
        Assignment, Assignment.id == AssignmentProblem.assignment_id
    )
    rows: list[tuple[str, str, datetime]]
    if user_id is not None:
        due = func.coalesce(Extension.due_at, Assignment.due_at, type_=UTCDateTime)
        found = session.execute(
            joined.add_columns(due)
            .outerjoin(
                Extension,
                and_(Extension.assignment_id == Assignment.id, Extension.user_id == user_id),
            )
            .where(*policy)
        )
        rows = [(problem, feedback, at) for problem, feedback, at in found]
    else:
        latest = (
            select(func.max(Extension.due_at))
            .where(Extension.assignment_id == Assignment.id)
            .scalar_subquery()
        )
        # An extension may also be earlier than the assignment's due time: the later.
        due = func.coalesce(latest, Assignment.due_at, type_=UTCDateTime)
        rows = [
            (problem, feedback, max(at, assigned))
            for problem, feedback, at, assigned in session.execute(
                joined.add_columns(due, Assignment.due_at).where(*policy)
            )
        ]
    return [(problem, feedback, at) for problem, feedback, at in rows if at > now]


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

"""A course's progress: per student and problem, the best verdict, attempts, first AC.

One aggregate query over the submissions, grouped by (user, problem) and read from the
index `ix_submissions_progress` (user_id, problem, status, verdict, created_at) alone, then
joined to the students so that one who never submitted still gets a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from store.models import Role, Status, Submission, User

# Best first. IE is the judge's failure, never a student's result, so it ranks last.
VERDICT_ORDER = ("AC", "WA", "TLE", "MLE", "OLE", "RE", "CE", "SKIPPED", "IE")
_UNRANKED = len(VERDICT_ORDER)


@dataclass(frozen=True)
class Cell:
    attempts: int  # every submission, waiting or graded
    verdict: str | None  # the best verdict among graded ones; None when none is graded
    first_ac: datetime | None  # when the first accepted submission was made


@dataclass
class StudentProgress:
    user_id: int
    username: str
    disabled: bool
    cells: dict[str, Cell] = field(default_factory=dict)  # problem -> cell; absent: no tries


def _utc(value: datetime | str | None) -> datetime | None:
    """An aggregate's time as an aware UTC datetime (SQLite hands back naive UTC text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def course_progress(*, session: Session) -> list[StudentProgress]:
    """Every student by username, with a cell for each problem they submitted to."""
    done = Submission.status == Status.DONE
    rank = case(
        *((Submission.verdict == v, i) for i, v in enumerate(VERDICT_ORDER)),
        else_=_UNRANKED,
    )
    per_problem = (
        select(
            Submission.user_id.label("user_id"),
            Submission.problem.label("problem"),
            func.count().label("attempts"),
            func.min(rank).filter(done).label("best"),
            func.min(Submission.created_at)
            .filter(done & (Submission.verdict == "AC"))
            .label("first_ac"),
        )
        .group_by(Submission.user_id, Submission.problem)
        .subquery()
    )
    rows = session.execute(
        select(
            User.id,
            User.username,
            User.disabled,
            per_problem.c.problem,
            per_problem.c.attempts,
            per_problem.c.best,
            per_problem.c.first_ac,
        )
        .outerjoin(per_problem, per_problem.c.user_id == User.id)
        .where(User.role == Role.STUDENT)
        .order_by(User.username, per_problem.c.problem)
    )
    students: dict[int, StudentProgress] = {}
    for user_id, username, disabled, problem, attempts, best, first_ac in rows:
        student = students.setdefault(user_id, StudentProgress(user_id, username, bool(disabled)))
        if problem is None:
            continue
        verdict = VERDICT_ORDER[best] if best is not None and best < _UNRANKED else None
        student.cells[problem] = Cell(attempts=attempts, verdict=verdict, first_ac=_utc(first_ac))
    return list(students.values())

"""The scores waiting to be posted to the LMS (LtiScorePost, worker/lti_scores.py).

Every change to a student's credit queues "post this student's score for this assignment"
in the transaction that makes the change, so none is lost; the score itself is computed
when it is posted, and one row per (assignment, student) coalesces a burst of changes into
one post of the latest score. Nothing is queued where no course has a line item for the
assignment, so a judge without LTI pays one indexed lookup per change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, and_, delete, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import (
    AssignmentProblem,
    LtiAccount,
    LtiContext,
    LtiLineItem,
    LtiScorePost,
    Role,
    User,
    utcnow,
)

MAX_BACKOFF = timedelta(hours=1)
FIRST_BACKOFF_S = 5.0
ERROR_CHARS = 500


def _queue(session: Session, rows: Select[int, int]) -> None:
    """Insert (assignment_id, user_id) rows selected by `rows`, or bring their pending row up
    to now (a new change: the next post carries the newer score, tried again at once)."""
    now = utcnow()
    query = rows.add_columns(
        literal(now, LtiScorePost.changed_at.type).label("changed_at"),
        literal(now, LtiScorePost.due_at.type).label("due_at"),
        literal(0).label("tries"),
    )
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(LtiScorePost).from_select(
        ["assignment_id", "user_id", "changed_at", "due_at", "tries"], query
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=["assignment_id", "user_id"],
        set_={"changed_at": now, "due_at": now, "tries": 0},
    )
    session.execute(stmt)


def queue_for_problem(*, session: Session, user_id: int, problem: str) -> None:
    """A verdict of the student's on the problem changed: every assignment with the problem
    and a line item."""
    _queue(
        session,
        select(LtiLineItem.assignment_id, literal(user_id).label("user_id"))
        .join(AssignmentProblem, AssignmentProblem.assignment_id == LtiLineItem.assignment_id)
        .where(AssignmentProblem.problem == problem)
        .distinct(),
    )


def queue_for_student(*, session: Session, assignment_id: int, user_id: int) -> None:
    """An override or an extension of the student's changed."""
    _queue(
        session,
        select(LtiLineItem.assignment_id, literal(user_id).label("user_id"))
        .where(LtiLineItem.assignment_id == assignment_id)
        .distinct(),
    )


def queue_for_assignment(*, session: Session, assignment_id: int) -> None:
    """The assignment's rules changed (or it got a line item): every linked student's."""
    _queue(
        session,
        select(LtiLineItem.assignment_id, LtiAccount.user_id)
        .join(LtiContext, LtiContext.id == LtiLineItem.context_id)
        .join(LtiAccount, LtiAccount.platform_id == LtiContext.platform_id)
        .join(User, and_(User.id == LtiAccount.user_id, User.role == Role.STUDENT))
        .where(LtiLineItem.assignment_id == assignment_id)
        .distinct(),
    )


@dataclass(frozen=True)
class Pending:
    assignment_id: int
    user_id: int
    changed_at: datetime
    tries: int


def due(*, session: Session, limit: int = 50) -> list[Pending]:
    rows = session.execute(
        select(
            LtiScorePost.assignment_id,
            LtiScorePost.user_id,
            LtiScorePost.changed_at,
            LtiScorePost.tries,
        )
        .where(LtiScorePost.due_at <= utcnow())
        .order_by(LtiScorePost.due_at)
        .limit(limit)
    )
    return [Pending(*row) for row in rows]


def _same(post: Pending) -> Any:
    return and_(
        LtiScorePost.assignment_id == post.assignment_id,
        LtiScorePost.user_id == post.user_id,
        LtiScorePost.changed_at == post.changed_at,
    )


def posted(*, session: Session, post: Pending) -> None:
    """Done, unless a newer change came meanwhile (then its row stays, due)."""
    session.execute(delete(LtiScorePost).where(_same(post)))
    session.commit()


def failed(*, session: Session, post: Pending, error: str) -> bool:
    """Try again later, after 5 s, 10 s, 20 s ... at most an hour. False when a newer change
    came meanwhile (its row is due at once and keeps it)."""
    wait = min(timedelta(seconds=FIRST_BACKOFF_S * 2 ** min(post.tries, 20)), MAX_BACKOFF)
    result = session.execute(
        update(LtiScorePost)
        .where(_same(post))
        .values(tries=post.tries + 1, due_at=utcnow() + wait, last_error=error[:ERROR_CHARS])
    )
    session.commit()
    return rowcount(result) == 1


def pending(*, session: Session) -> list[LtiScorePost]:
    """Every waiting post (the instructors' view, tests)."""
    return list(session.scalars(select(LtiScorePost).order_by(LtiScorePost.due_at)))

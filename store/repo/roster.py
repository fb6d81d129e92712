"""The instructors' side of accounts: listing and searching users, disabling, new passwords."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from store.models import Submission, User


@dataclass(frozen=True)
class RosterEntry:
    id: int
    username: str
    role: str
    disabled: bool
    created_at: datetime
    submissions: int


def _like_prefix(text: str) -> str:
    """A LIKE pattern matching names that start with `text` (its wildcards taken literally)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def list_users(
    *,
    session: Session,
    search: str | None = None,
    role: str | None = None,
    user_id: int | None = None,
    limit: int = 200,
) -> tuple[list[RosterEntry], bool]:
    """Users by username whose name starts with `search` (any case), with their submission
    counts; and whether more matched than `limit`."""
    query = select(User.id, User.username, User.role, User.disabled, User.created_at)
    if search:
        query = query.where(func.lower(User.username).like(_like_prefix(search.lower()), "\\"))
    if role:
        query = query.where(User.role == role)
    if user_id is not None:
        query = query.where(User.id == user_id)
    rows = list(session.execute(query.order_by(User.username).limit(limit + 1)))
    shown = rows[:limit]
    # Counted for the listed users only, from the (user_id, created_at, id) index.
    counts = (
        dict(
            session.execute(
                select(Submission.user_id, func.count())
                .where(Submission.user_id.in_([row.id for row in shown]))
                .group_by(Submission.user_id)
            ).all()
        )
        if shown
        else {}
    )
    entries = [RosterEntry(*row, submissions=counts.get(row.id, 0)) for row in shown]
    return entries, len(rows) > limit


def existing_names(*, session: Session, usernames: list[str]) -> set[str]:
    """Which of the names already have an account."""
    if not usernames:
        return set()
    return set(session.scalars(select(User.username).where(User.username.in_(usernames))))


def set_disabled(*, session: Session, user: User, disabled: bool) -> None:
    """Disabling also starts a new token generation, so enabling the account again does not
    bring back the tokens it had (a stolen one among them)."""
    if disabled and not user.disabled:
        user.token_generation = User.token_generation + 1
    user.disabled = disabled
    session.flush()


def set_password_hash(*, session: Session, user: User, password_hash: str) -> None:
    """A new password, and a new token generation: every session of the old one ends."""
    user.password_hash = password_hash
    user.token_generation = User.token_generation + 1
    session.flush()

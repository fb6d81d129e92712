"""Accounts, and the throttling of logins and registrations."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.models import LoginAttempt, Role, User, utcnow
from store.repo.limits import seconds_until_below


class Conflict(Exception):
    """The row would duplicate a unique value."""


def get_user(*, session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def get_user_by_name(*, session: Session, username: str) -> User | None:
    return session.scalar(select(User).where(User.username == username))


@dataclass(frozen=True)
class Standing:
    """What a session's validity depends on: a disabled account or a new token generation
    (a new password) ends every session opened before, and the role decides what it sees."""

    disabled: bool
    token_generation: int
    role: str


def standings(*, session: Session, user_ids: Collection[int]) -> dict[int, Standing]:
    """The standing of each of these accounts that still exists (one query)."""
    if not user_ids:
        return {}
    rows = session.execute(
        select(User.id, User.disabled, User.token_generation, User.role).where(
            User.id.in_(sorted(user_ids))
        )
    )
    return {
        user_id: Standing(bool(disabled), generation, role)
        for user_id, disabled, generation, role in rows
    }


def create_user(*, session: Session, username: str, password_hash: str, role: Role) -> User:
    user = User(username=username, password_hash=password_hash, role=role)
    session.add(user)
    try:
        session.flush()
    except IntegrityError as exc:
        session.rollback()
        raise Conflict(f"user {username!r} already exists") from exc
    return user


def update_user(*, session: Session, user: User, password_hash: str, role: Role) -> User:
    """A new password (and role) for an existing account: its earlier sessions end."""
    if password_hash != user.password_hash:
        user.token_generation = User.token_generation + 1
    user.password_hash = password_hash
    user.role = role
    session.flush()
    return user


def rehash_password(*, session: Session, user_id: int, old: str, new: str) -> None:
    """The same password hashed at another cost: no new token generation. Only while the
    stored hash is still `old` (a new password set meanwhile stays)."""
    session.execute(
        update(User).where(User.id == user_id, User.password_hash == old).values(password_hash=new)
    )


def count_instructors(*, session: Session) -> int:
    return session.scalar(select(func.count()).where(User.role == Role.INSTRUCTOR)) or 0


# ---- throttling logins and registrations -------------------------------------------------

FAILED_LOGIN = "failed_login"
REGISTRATION = "registration"


def check_attempts(
    *,
    session: Session,
    kind: str,
    limit: int,
    window: timedelta,
    username: str | None = None,
    address: str | None = None,
) -> int | None:
    """None while fewer than `limit` attempts of `kind` by this username (or from this address)
    fall inside the window; otherwise the seconds until one more would be allowed."""
    if username is None and address is None:
        return None
    now = utcnow()
    query = select(LoginAttempt.created_at).where(
        LoginAttempt.kind == kind, LoginAttempt.created_at > now - window
    )
    if username is not None:
        query = query.where(LoginAttempt.username == username)
    if address is not None:
        query = query.where(LoginAttempt.address == address)
    times = list(session.scalars(query.order_by(LoginAttempt.created_at)))
    return seconds_until_below(times, limit, window, now) if len(times) >= limit else None


def record_attempt(
    *, session: Session, kind: str, address: str, username: str | None, keep: timedelta
) -> None:
    """Count one attempt, and delete the attempts older than `keep` (the longest window)."""
    now = utcnow()
    session.execute(delete(LoginAttempt).where(LoginAttempt.created_at < now - keep))
    session.add(LoginAttempt(kind=kind, username=username, address=address, created_at=now))
    session.flush()

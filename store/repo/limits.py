"""Rate limits: the error a caller turns into 429, when the next attempt may come, and the
per-user shape that submissions and runs share (lock the user, count their last minute)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from store.models import Run, Submission, User, utcnow


class RateLimited(Exception):
    """Over a limit: the message says which, `retry_after` says in how many seconds to retry."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def seconds_until_below(times: list[datetime], limit: int, window: timedelta, now: datetime) -> int:
    """Seconds until fewer than `limit` of `times` (ascending, all inside the window) remain."""
    expires = times[len(times) - limit] + window
    return max(1, math.ceil((expires - now).total_seconds()))


MINUTE = timedelta(minutes=1)


def check_per_minute(recent: list[datetime], per_minute: int, what: str, now: datetime) -> None:
    """Raise RateLimited when `recent` (the user's `what`, e.g. "runs", made in the minute
    before `now`, oldest first) already holds `per_minute` of them."""
    if len(recent) >= per_minute:
        retry_after = seconds_until_below(recent, per_minute, MINUTE, now)
        raise RateLimited(
            f"at most {per_minute} {what} per minute; try again in {retry_after} s", retry_after
        )


def lock_user(*, session: Session, user_id: int) -> datetime:
    """Lock the user's row, so that one user's concurrent requests count one after another
    until the caller commits (SELECT ... FOR UPDATE on PostgreSQL; on SQLite the session's
    BEGIN IMMEDIATE, see store.db, already holds the database's write lock); returns the
    time to count from, read after the lock: rows committed while we waited are in the past."""
    session.execute(select(User.id).where(User.id == user_id).with_for_update())
    return utcnow()


def made_since(
    *, session: Session, rows: type[Submission] | type[Run], user_id: int, since: datetime
) -> list[datetime]:
    """Creation times of the user's `rows` (submissions or runs) after `since`, oldest first."""
    return list(
        session.scalars(
            select(rows.created_at)
            .where(rows.user_id == user_id, rows.created_at > since)
            .order_by(rows.created_at)
        )
    )


def check_rate(
    *,
    session: Session,
    rows: type[Submission] | type[Run],
    user_id: int,
    per_minute: int,
    what: str,
    now: datetime,
) -> None:
    """RateLimited when the user made `per_minute` of `rows` (`what`, e.g. "runs") in the
    minute before `now`."""
    recent = made_since(session=session, rows=rows, user_id=user_id, since=now - MINUTE)
    check_per_minute(recent, per_minute, what, now)

"""Rate limits: the error a caller turns into 429, and when the next attempt may come."""

from __future__ import annotations

import math
from datetime import datetime, timedelta


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

"""Statistics of the submissions, computed in SQL, and a cache that keeps them cheap.

Every aggregate here reads an index range of one problem (or the problems' index alone);
none pulls submission rows into Python. `StatsCache` keeps a computed aggregate until a
verdict may have changed (see `stats_version`), so the problems page every student opens costs
two index lookups however long the course's history is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Date, case, cast, distinct, func, select
from sqlalchemy.orm import Session

from store.models import Board, Status, Submission

ACCEPTED = "AC"
PENDING = (Status.QUEUED, Status.RUNNING)


@dataclass(frozen=True)
class ProblemTotals:
    finished: int
    accepted: int
    solvers: int  # distinct users with an accepted submission


@dataclass(frozen=True)
class ProblemDetail:
    finished: int
    pending: int  # queued or running now
    users: int
    solvers: int
    verdicts: dict[str | None, int]  # finished submissions per verdict
    days: dict[date, tuple[int, int]]  # UTC day -> (submissions, accepted), only days with any


def stats_version(*, session: Session) -> tuple[Any, ...]:
    """Changes whenever a verdict is stored (the newest finished_at moves) or taken back by a
    rejudge (more rows wait); two index lookups, whatever the size of the table."""
    newest = select(func.max(Submission.finished_at)).scalar_subquery()
    waiting = select(func.count()).where(Submission.status.in_(PENDING)).scalar_subquery()
    return tuple(session.execute(select(newest, waiting)).one())


def problem_totals(*, session: Session) -> dict[str, ProblemTotals]:
    """Finished and accepted submissions and solvers of every problem that has any."""
    done = Submission.status == Status.DONE
    accepted = done & (Submission.verdict == ACCEPTED)
    rows = session.execute(
        select(
            Submission.problem,
            func.count().filter(done),
            func.count().filter(accepted),
            func.count(distinct(Submission.user_id)).filter(accepted),
        ).group_by(Submission.problem)
    )
    return {problem: ProblemTotals(f, a, s) for problem, f, a, s in rows}


def standing(*, session: Session, user_id: int) -> dict[str, str]:
    """The user's problems: "solved" (an accepted submission) or "tried"."""
    accepted = (Submission.status == Status.DONE) & (Submission.verdict == ACCEPTED)
    rows = session.execute(
        select(Submission.problem, func.max(case((accepted, 1), else_=0)))
        .where(Submission.user_id == user_id)
        .group_by(Submission.problem)
    )
    return {problem: "solved" if ok else "tried" for problem, ok in rows}


def _utc_day(session: Session):
    """The UTC calendar day of created_at, in the database's dialect."""
    if session.get_bind().dialect.name == "postgresql":
        return cast(func.timezone("UTC", Submission.created_at), Date)
    return func.date(Submission.created_at)  # SQLite stores UTC text


def problem_detail(*, session: Session, problem: str, since: datetime) -> ProblemDetail:
    """One problem's verdict distribution, pending rows, users and solvers, and submissions
    per UTC day from `since`: each an aggregate over the problem's index range."""
    of_problem = Submission.problem == problem
    done = Submission.status == Status.DONE
    verdicts = dict(
        session.execute(
            select(Submission.verdict, func.count())
            .where(of_problem, done)
            .group_by(Submission.verdict)
        ).all()
    )
    pending = session.scalar(select(func.count()).where(of_problem, Submission.status.in_(PENDING)))
    users = session.scalar(select(func.count(distinct(Submission.user_id))).where(of_problem))
    solvers = session.scalar(
        select(func.count(distinct(Submission.user_id))).where(
            of_problem, done, Submission.verdict == ACCEPTED
        )
    )
    day = _utc_day(session).label("day")
    days = {}
    for value, total, accepted in session.execute(
        select(day, func.count(), func.count().filter(Submission.verdict == ACCEPTED))
        .where(of_problem, Submission.created_at >= since)
        .group_by(day)
    ):
        key = value if isinstance(value, date) else date.fromisoformat(str(value))
        days[key] = (total, accepted)
    return ProblemDetail(
        finished=sum(verdicts.values()),
        pending=pending or 0,
        users=users or 0,
        solvers=solvers or 0,
        verdicts=verdicts,
        days=days,
    )


def day_start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def recent_days(days: int) -> list[date]:
    """The last `days` UTC days, oldest first, ending today."""
    today = datetime.now(UTC).date()
    return [today - timedelta(days=days - 1 - i) for i in range(days)]


def hidden_board_count(*, session: Session, problem: str) -> int:
    return session.scalar(select(func.count()).where(Board.problem == problem)) or 0


class StatsCache:
    """Aggregates kept until `stats_version` moves, or `max_age_s` at most (a clock-skewed
    worker's verdict could leave the version unchanged).

    One computation per key at a time: while one request recomputes an aggregate that a new
    verdict made stale, the others get the previous value at once (at most `max_stale_s` old)
    rather than queueing behind it; a request alone always gets the current value. So a crowd
    opening the problems page while verdicts keep arriving costs one aggregate at a time."""

    def __init__(
        self, max_age_s: float = 30.0, max_stale_s: float = 10.0, max_entries: int = 256
    ) -> None:
        self.max_age_s = max_age_s
        self.max_stale_s = max_stale_s
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._key_locks: dict[Any, threading.Lock] = {}
        self._entries: dict[Any, tuple[Any, float, Any]] = {}

    def _fresh(self, key: Any, version: Any) -> tuple[bool, Any]:
        entry = self._entries.get(key)
        if entry is None or entry[0] != version:
            return False, None
        return time.monotonic() - entry[1] < self.max_age_s, entry[2]

    def _recent(self, key: Any) -> tuple[bool, Any]:
        entry = self._entries.get(key)
        if entry is None:
            return False, None
        return time.monotonic() - entry[1] < self.max_stale_s, entry[2]

    def get(self, *, session: Session, key: Any, compute: Callable[[Session], Any]) -> Any:
        version = stats_version(session=session)
        fresh, value = self._fresh(key, version)
        if fresh:
            return value
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        if not key_lock.acquire(blocking=False):  # another request is recomputing it
            recent, value = self._recent(key)
            if recent:
                return value
            key_lock.acquire()  # nothing recent to give: wait for it
        try:
            fresh, value = self._fresh(key, version)  # another thread just computed it
            if fresh:
                return value
            value = compute(session)
            with self._lock:
                if len(self._entries) >= self.max_entries:
                    self._entries.clear()
                self._entries[key] = (version, time.monotonic(), value)
        finally:
            key_lock.release()
        return value

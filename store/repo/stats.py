"""Statistics of the submissions, computed in SQL, and a cache that keeps them cheap.

Every aggregate here reads an index range of one problem (or the problems' index alone);
none pulls submission rows into Python. `StatsCache` keeps a computed aggregate until a
verdict may have changed (see `stats_version`), so the problems page every student opens costs
two index lookups however long the course's history is.

What students read (the problem totals, their standing) counts each verdict as they are
shown it (`store.repo.releases.StudentsView`): from its release on, and while its problem
holds the hidden results back, the verdict over the visible tests. A count that moved when
a judging ended would time its hidden tier; one that counted a held-back verdict would
tell it. The instructors' figures (`problem_detail`) count every stored verdict at once.
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

from store.models import Status, Submission
from store.repo.releases import StudentsView, students_view

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


def problem_totals(
    *, session: Session, view: StudentsView | None = None
) -> dict[str, ProblemTotals]:
    """Released and accepted submissions and solvers of every problem with a released
    verdict, as students are shown them now (or in `view`)."""
    view = view or students_view(session=session)
    done = view.released()
    accepted = done & (view.verdict() == ACCEPTED)
    rows = session.execute(
        select(
            Submission.problem,
            func.count().filter(done),
            func.count().filter(accepted),
            func.count(distinct(Submission.user_id)).filter(accepted),
        )
        .group_by(Submission.problem)
        .having(func.count().filter(done) > 0)
    )
    return {problem: ProblemTotals(f, a, s) for problem, f, a, s in rows}


@dataclass
class _Tally:
    newest: Any  # the newest released_at counted
    last_id: int  # the newest submission id seen
    waiting: int  # queued, running or not yet released rows then
    holds: Any  # the problems holding their hidden results back then, and until when
    finished: dict[str, int]
    accepted: dict[str, int]
    solvers: dict[str, set[int]]
    counted_at: float  # monotonic time of the last full count
    read_at: float = 0.0  # monotonic time its version was read

    @property
    def version(self) -> tuple[Any, ...]:
        return (self.newest, self.last_id, self.waiting, self.holds)

    def totals(self) -> dict[str, ProblemTotals]:
        return {
            p: ProblemTotals(self.finished.get(p, 0), self.accepted.get(p, 0), len(users))
            for p, users in self.solvers.items()
        }


class TotalsTally:
    """`problem_totals` kept current by adding each new verdict instead of counting again.

    Each read looks at the newest released_at up to now, the newest id, the number of rows
    waiting or not yet released (index lookups) and the problems' holds, then adds the
    verdicts released since (an index range of a few rows). Any change those verdicts and the
    new submissions do not explain (a rejudge, a verdict whose clock lagged, a row leaving the
    queue another way, a hold set or ended) makes a full count, as does age
    (`recount_after_s`). While one request counts, the others get the previous totals."""

    def __init__(self, recount_after_s: float = 300.0) -> None:
        self.recount_after_s = recount_after_s
        self.recounts = 0  # full counts made (for tests and the benchmark)
        self._lock = threading.Lock()
        self._tally: _Tally | None = None

    def get(self, *, session: Session) -> dict[str, ProblemTotals]:
        view = students_view(session=session)
        now = view.now
        newest = (
            select(func.max(Submission.released_at))
            .where(Submission.released_at <= now)
            .scalar_subquery()
        )
        last_id = select(func.max(Submission.id)).scalar_subquery()
        waiting = select(func.count()).where(Submission.status.in_(PENDING)).scalar_subquery()
        unreleased = select(func.count()).where(Submission.released_at > now).scalar_subquery()
        read_at = time.monotonic()
        newest_at, top, queued, later = session.execute(
            select(newest, func.coalesce(last_id, 0), waiting, unreleased)
        ).one()
        # A hold or a received-only policy starting or ending makes a full count.
        holds = (tuple(sorted(view.holds.items())), tuple(sorted(view.received.items())))
        version = (newest_at, top, queued + later, holds)
        tally = self._tally
        if (
            tally is not None
            and version == tally.version
            and time.monotonic() - tally.counted_at < self.recount_after_s
        ):
            return tally.totals()
        if not self._lock.acquire(blocking=False):
            if tally is not None:  # another request is bringing it up to date
                return tally.totals()
            self._lock.acquire()
        try:
            tally = self._tally
            if tally is not None and read_at < tally.read_at:
                return tally.totals()  # brought past what this request read while it waited
            if tally is None or time.monotonic() - tally.counted_at >= self.recount_after_s:
                tally = self._count(session, version, view)
            elif version != tally.version:
                tally = self._add(session, tally, version, view) or self._count(
                    session, version, view
                )
            tally.read_at = read_at
            self._tally = tally
            return tally.totals()
        finally:
            self._lock.release()

    def _count(self, session: Session, version: tuple[Any, ...], view: StudentsView) -> _Tally:
        """Count in SQL: the totals per problem, and the solvers (one row per problem and
        solving user: bounded by the class, not by the submissions)."""
        self.recounts += 1
        done = view.released()
        accepted = done & (view.verdict() == ACCEPTED)
        newest, last_id, waiting, holds = version
        tally = _Tally(newest, last_id, waiting, holds, {}, {}, {}, time.monotonic())
        for problem, finished, ok in session.execute(
            select(Submission.problem, func.count().filter(done), func.count().filter(accepted))
            .group_by(Submission.problem)
            .having(func.count().filter(done) > 0)
        ):
            tally.finished[problem], tally.accepted[problem] = finished, ok
            tally.solvers[problem] = set()
        for problem, user_id in session.execute(
            select(Submission.problem, Submission.user_id).where(accepted).distinct()
        ):
            tally.solvers.setdefault(problem, set()).add(user_id)
        return tally

    def _add(
        self, session: Session, tally: _Tally, version: tuple[Any, ...], view: StudentsView
    ) -> _Tally | None:
        """The tally with the verdicts released since, or None when they do not explain the
        change (then count again)."""
        newest, last_id, waiting, holds = version
        if tally.newest is None or newest is None or newest < tally.newest:
            return None
        if holds != tally.holds:
            return None
        new = session.scalar(
            select(func.count()).where(Submission.id > tally.last_id, Submission.id <= last_id)
        )
        rows = list(
            session.execute(
                select(
                    Submission.problem, view.verdict(), Submission.user_id, Submission.status
                ).where(Submission.released_at > tally.newest, Submission.released_at <= newest)
            )
        )
        if any(row.status != Status.DONE for row in rows):
            return None
        if waiting != tally.waiting + (new or 0) - len(rows):
            return None  # something else moved rows in or out of the queue: a rejudge...
        finished, accepted = dict(tally.finished), dict(tally.accepted)
        solvers = {problem: set(users) for problem, users in tally.solvers.items()}
        for problem, verdict, user_id, _ in rows:
            if problem in view.received:
                continue  # an assignment shows only "received" yet: not counted
            solvers.setdefault(problem, set())
            finished[problem] = finished.get(problem, 0) + 1
            if verdict == ACCEPTED:
                accepted[problem] = accepted.get(problem, 0) + 1
                solvers[problem].add(user_id)
        return _Tally(
            newest, last_id, waiting, holds, finished, accepted, solvers, tally.counted_at
        )


def standing(*, session: Session, user_id: int) -> dict[str, str]:
    """The user's problems: "solved" (an accepted submission, as the student is shown it)
    or "tried"."""
    view = students_view(session=session, user_id=user_id)
    accepted = view.released() & (view.verdict() == ACCEPTED)
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

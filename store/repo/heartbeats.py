"""Which workers are alive, per lane, and how the grading queue is doing: for /healthz, the
submission page ("grading is delayed") and the instructors' banner.

A worker process (grading, run, hidden lane, the sweeper) registers a row at start, beats
it every few seconds from its main process (worker/liveness.py), and marks it stopping when
asked to stop. It is alive while it beats and is not stopping.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import Priority, Status, Submission, WorkerHeartbeat, utcnow

LANES = ("grading", "run", "hidden", "sweeper")
KEEP_DEAD_ROWS = timedelta(days=1)  # a dead worker's row outlives the claims it held

# A queued submission is "delayed" when no grading worker is alive, or it has waited longer
# than DELAY_FACTOR times the recent median wait, and never less than DELAY_FLOOR_S: a
# busy but healthy queue (a deadline's burst) has a long median too, so it is not delayed.
DELAY_FLOOR_S = 60.0
DELAY_FACTOR = 5.0
RECENT_WAITS = 200  # the latest live submissions claimed, for the median wait
RECENT_WINDOW = timedelta(hours=1)


def register(*, session: Session, lane: str, host: str, pid: int) -> int:
    now = utcnow()
    session.execute(delete(WorkerHeartbeat).where(WorkerHeartbeat.beat_at < now - KEEP_DEAD_ROWS))
    row = WorkerHeartbeat(lane=lane, host=host[:255], pid=pid, started_at=now, beat_at=now)
    session.add(row)
    session.commit()
    return row.id


def beat(*, session: Session, worker_id: int) -> bool:
    """False when the row is gone (deleted as a day-old dead worker's): register again."""
    done = session.execute(
        update(WorkerHeartbeat)
        .where(WorkerHeartbeat.id == worker_id)
        .values(beat_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return rowcount(done) == 1


def stopping(*, session: Session, worker_id: int) -> None:
    session.execute(
        update(WorkerHeartbeat)
        .where(WorkerHeartbeat.id == worker_id, WorkerHeartbeat.stopping_at.is_(None))
        .values(stopping_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()


def alive_clause(stale_s: float, now: datetime):
    """The worker beat within `stale_s` and is not being stopped."""
    since = now - timedelta(seconds=stale_s)
    return (WorkerHeartbeat.beat_at >= since) & WorkerHeartbeat.stopping_at.is_(None)


def alive_workers(*, session: Session, stale_s: float, host: str | None = None) -> dict[str, int]:
    """How many workers of each lane are alive (every lane named, 0 when none)."""
    query = (
        select(WorkerHeartbeat.lane, func.count())
        .where(alive_clause(stale_s, utcnow()))
        .group_by(WorkerHeartbeat.lane)
    )
    if host is not None:
        query = query.where(WorkerHeartbeat.host == host)
    counts = dict.fromkeys(LANES, 0)
    counts.update({lane: n for lane, n in session.execute(query).all()})
    return counts


def _waiting():
    """Queued, or running under an expired lease (its worker died): waiting for a grader."""
    return or_(
        Submission.status == Status.QUEUED,
        (Submission.status == Status.RUNNING) & (Submission.lease_expires < utcnow()),
    )


def oldest_queued_at(*, session: Session) -> datetime | None:
    """When the oldest live submission still waiting for a grader was made (a rejudge is
    background work: it may wait)."""
    return session.scalar(
        select(func.min(Submission.created_at)).where(
            _waiting(), Submission.priority == Priority.LIVE
        )
    )


def median_wait_s(*, session: Session) -> float | None:
    """The median of submit-to-claim over the latest live submissions claimed in the last
    hour; None when there are none."""
    rows = session.execute(
        select(Submission.created_at, Submission.started_at)
        .where(
            Submission.priority == Priority.LIVE,
            Submission.started_at > utcnow() - RECENT_WINDOW,
        )
        .order_by(Submission.started_at.desc())
        .limit(RECENT_WAITS)
    ).all()
    waits = [(started - made).total_seconds() for made, started in rows if started is not None]
    return statistics.median(waits) if waits else None


def delay_threshold_s(median_s: float | None) -> float:
    return max(DELAY_FLOOR_S, DELAY_FACTOR * (median_s or 0.0))


@dataclass(frozen=True)
class QueueHealth:
    """What the pages and /healthz say about grading."""

    graders_alive: int
    oldest_queued_s: float | None  # None: nothing waits
    threshold_s: float  # a wait longer than this is "delayed"

    @property
    def delayed(self) -> bool:
        """No grader, or the oldest waiting submission waited far beyond the normal."""
        if self.graders_alive == 0:
            return True
        return self.oldest_queued_s is not None and self.oldest_queued_s > self.threshold_s

    def is_delayed(self, waited_s: float) -> bool:
        """Whether one queued submission that waited `waited_s` is delayed."""
        return self.graders_alive == 0 or waited_s > self.threshold_s


def queue_health(*, session: Session, stale_s: float) -> QueueHealth:
    now = utcnow()
    graders = alive_workers(session=session, stale_s=stale_s)["grading"]
    oldest = oldest_queued_at(session=session)
    return QueueHealth(
        graders_alive=graders,
        oldest_queued_s=(now - oldest).total_seconds() if oldest is not None else None,
        threshold_s=delay_threshold_s(median_wait_s(session=session)),
    )

"""The sweeper's side of the judging protocol: find the rows a lost message or a dead worker
left behind, hold those out of attempts, and say which to send again."""

from __future__ import annotations

import bisect
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import Priority, Status, Submission, utcnow
from store.repo.judging import (
    Claim,
    Stale,
    grading_for_user,
    hold,
    interruption_not_counted,
)

# A message sent this much later than another may still be consumed first: the API commits
# a row before it publishes, and worker slots take messages a little out of order.
SEND_SLACK_S = 2.0
MAX_BACKOFF_DOUBLINGS = 4  # the sweeper's resends of one row: after 1, 2, 4 ... 16 periods


def _backoff_s(resend_after_s: float, resends: int) -> float:
    return resend_after_s * 2 ** min(resends, MAX_BACKOFF_DOUBLINGS)


def _overtaken(claimed: list[tuple[datetime, datetime]]):
    """A test over the claims since the oldest candidate (started_at, sent_at): was a message
    sent after `sent_at` (plus the slack) consumed after `sent_at`? Then the queue moved past
    the row's message, which is lost."""
    claimed = sorted(claimed)  # by started_at
    latest_sent: list[datetime] = []  # latest_sent[i]: the latest send of claims i and after
    for _, sent in reversed(claimed):
        latest_sent.append(max(sent, latest_sent[-1]) if latest_sent else sent)
    latest_sent.reverse()
    starts = [started for started, _ in claimed]

    def test(sent_at: datetime) -> bool:
        i = bisect.bisect_right(starts, sent_at)
        return i < len(starts) and latest_sent[i] > sent_at + timedelta(seconds=SEND_SLACK_S)

    return test


def _retry_due(row: Any, now: datetime, resend_after_s: float) -> bool:
    """A dead worker's row is retried once its lease expired, then after 1, 3, 7 ...
    `resend_after_s` more for each earlier attempt: a crash that repeats (a deploy, the OOM
    killer) gets time to pass before the attempts run out."""
    extra = resend_after_s * (2 ** min(row.attempts - 1, MAX_BACKOFF_DOUBLINGS) - 1)
    return now - row.lease_expires >= timedelta(seconds=extra)


def sweep(
    *, session: Session, resend_after_s: float, max_attempts: int
) -> tuple[list[Stale], list[int]]:
    """Find rows a lost message or a dead worker left behind.

    Returns (rows to enqueue again, ids held after too many attempts). A queued row's message
    may simply be waiting behind a long, healthy backlog, so it is resent only when it is
    really lost: when a message sent after it has been consumed (per queue: the queues are
    first in, first out), or when no worker is busy and none has claimed anything, or
    dropped a message for its student's earlier submission, for `resend_after_s`. A row
    whose user has another submission being graded waits for that one (the worker hands it
    on) and is never resent. In the idle case every resend of a row
    doubles the wait before the next (`resends`): with no worker consuming, copies would pile
    up in the broker. A row running under an expired lease (a dead worker) is resent on the
    same backoff.
    """
    now = utcnow()
    expired = and_(Submission.status == Status.RUNNING, Submission.lease_expires < now)
    exhausted = list(
        session.execute(
            select(Submission.id, Submission.lease_token, Submission.attempts).where(
                expired,
                Submission.attempts >= max_attempts,
                # The last interruption was not the submission's: claimed again.
                ~interruption_not_counted(now),
            )
        )
    )
    held = []
    for submission_id, token, attempts in exhausted:
        # Take the expired claim over (bump the token) so a late worker cannot write.
        taken = session.execute(
            update(Submission)
            .where(Submission.id == submission_id, Submission.lease_token == token, expired)
            .values(lease_token=token + 1, lease_expires=now + timedelta(seconds=60))
            .execution_options(synchronize_session=False)
        )
        session.commit()
        if rowcount(taken) == 1:
            claim_ = Claim(submission_id=submission_id, token=token + 1, attempts=attempts)
            if hold(session=session, claim_=claim_, interrupted=attempts):
                held.append(submission_id)
    candidates = list(
        session.execute(
            select(
                Submission.id,
                Submission.priority,
                Submission.status,
                Submission.enqueued_at,
                Submission.resends,
                Submission.lease_expires,
                Submission.attempts,
                grading_for_user(Submission.user_id, Submission.id, now, Submission.priority).label(
                    "waiting"
                ),
            )
            .where(
                or_(Submission.status == Status.QUEUED, expired),
                Submission.enqueued_at < now - timedelta(seconds=resend_after_s),
            )
            .order_by(Submission.id)
        )
    )

    def backed_off(row: Any) -> bool:
        return now - row.enqueued_at >= timedelta(seconds=_backoff_s(resend_after_s, row.resends))

    queued = [row for row in candidates if row.status == Status.QUEUED and not row.waiting]
    lost = {
        row.id
        for row in candidates
        if row.status != Status.QUEUED and backed_off(row) and _retry_due(row, now, resend_after_s)
    }
    if queued:
        oldest = min(row.enqueued_at for row in queued)
        claimed: dict[Priority, list[tuple[datetime, datetime]]] = {}
        # Rows sent and claimed since the oldest candidate. Not those whose message was
        # delayed (a retry after an infrastructure error, a send for a release: taken from
        # the queue at once and run at its time) or sent again by this sweeper (the first,
        # if it was not lost after all, claims the row from its older place).
        for priority, started, sent in session.execute(
            select(Submission.priority, Submission.started_at, Submission.enqueued_at).where(
                Submission.status.in_([Status.RUNNING, Status.DONE, Status.HELD]),
                Submission.enqueued_at > oldest,
                Submission.started_at > oldest,
                Submission.last_failure.is_(None),
                Submission.sent_out_of_order.is_(False),
            )
        ):
            if started is not None:  # always (the filter above): said for the type checker
                claimed.setdefault(priority, []).append((started, sent))
        overtaken = {priority: _overtaken(rows) for priority, rows in claimed.items()}
        busy = session.scalar(
            select(
                or_(
                    select(Submission.id)
                    .where(Submission.status == Status.RUNNING, Submission.lease_expires >= now)
                    .exists(),
                    select(Submission.id)
                    .where(
                        Submission.status.in_([Status.RUNNING, Status.DONE, Status.HELD]),
                        Submission.started_at > now - timedelta(seconds=resend_after_s),
                    )
                    .exists(),
                    # Messages consumed and dropped for their students' earlier ones: the
                    # queue moves even while every message in a row is one of those.
                    select(Submission.id)
                    .where(Submission.deferred_at > now - timedelta(seconds=resend_after_s))
                    .exists(),
                )
            )
        )
        for row in queued:
            # Overtaken: surely lost, resent at once. Idle: lost, or no worker is consuming
            # at all (then the copies would pile up in the broker), so on the backoff.
            passed = overtaken.get(row.priority)
            if (passed is not None and passed(row.enqueued_at)) or (not busy and backed_off(row)):
                lost.add(row.id)
    resend = [row for row in candidates if row.id in lost]
    if resend:
        session.execute(
            update(Submission)
            .where(Submission.id.in_([row.id for row in resend]))
            .values(
                enqueued_at=now,
                resends=Submission.resends + 1,
                deferred_at=None,
                sent_out_of_order=True,
            )
            .execution_options(synchronize_session=False)
        )
    session.commit()
    return [Stale(row.id, row.priority) for row in resend], held

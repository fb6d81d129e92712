"""Runs: a student's source on the samples or on their own cases, not a submission.

The API creates them (under their own per-user rate) and reads them; the run lane's worker
claims one (a token, like a submission's fencing token, so only the latest claim writes),
appends each case's result as it finishes, and finishes it; the sweeper ends the runs a
dead worker left and deletes the day-old ones. Nothing else reads this table: runs are never
in the history, the statistics, the strength report or the course's progress.

Each function that the worker or the sweeper calls commits: it is one step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import Run, RunStatus, User, utcnow
from store.repo.limits import RateLimited, check_rate, lock_user
from store.repo.live import Progress, ProgressCursor
from store.repo.submissions import may_see

KEEP_RUNS = timedelta(days=1)  # a run is a moment's experiment: gone the next day
# A queued run nobody claimed for this long: no runner is up; say so rather than wait.
UNCLAIMED_AFTER = timedelta(minutes=2)
INTERRUPTED = "the run was interrupted (the judge restarted); run it again"
NO_RUNNER = "no runner is available right now; try again in a minute"
FINISHED = (RunStatus.DONE, RunStatus.ERROR)
ACTIVE_RUN_RETRY_S = 2


def create_run_limited(
    *,
    session: Session,
    user_id: int,
    problem: str,
    source: str,
    cases: list[Any] | None,
    per_minute: int,
    language: str = "python",
    style: str = "function",
) -> Run:
    """A new queued run, unless the user has a run still queued or running, or made
    `per_minute` runs in the last minute (then RateLimited): one student's runs never queue
    up in front of everyone else's on the run lane. The user's row is locked first, so
    concurrent requests count one after another (as for submissions; their rate is a
    separate one)."""
    now = lock_user(session=session, user_id=user_id)
    going = session.scalar(
        select(Run.id)
        .where(Run.user_id == user_id, Run.status.not_in(FINISHED))
        .order_by(Run.id)
        .limit(1)
    )
    if going is not None:
        raise RateLimited(
            f"your run {going} is still going: wait for its results, then run again",
            ACTIVE_RUN_RETRY_S,
        )
    check_rate(
        session=session, rows=Run, user_id=user_id, per_minute=per_minute, what="runs", now=now
    )
    run = Run(
        user_id=user_id,
        problem=problem,
        source=source,
        language=language,
        style=style,
        cases=cases,
        status=RunStatus.QUEUED,
        results=[],
        case_count=0,
        created_at=now,
    )
    session.add(run)
    session.flush()
    return run


def visible_run(*, session: Session, run_id: int, viewer: User) -> Run | None:
    """The run if `viewer` may see it (its owner, or an instructor), else None."""
    run = session.get(Run, run_id)
    return run if run is not None and may_see(viewer, run.user_id) else None


# ---- the run lane's worker -----------------------------------------------------------------


@dataclass(frozen=True)
class RunClaim:
    run_id: int
    token: int
    attempts: int
    problem: str
    source: str
    cases: list[Any] | None
    language: str = "python"
    style: str = "function"


def claim_run(*, session: Session, run_id: int, lease_s: float) -> RunClaim | None:
    """Take a queued run (or one whose claim expired) and mark it running; None when it is
    finished, gone or held by a live claim. One conditional UPDATE: one winner."""
    now = utcnow()
    claimable = or_(
        Run.status == RunStatus.QUEUED,
        (Run.status == RunStatus.RUNNING) & (Run.lease_expires < now),
    )
    claimed = session.execute(
        update(Run)
        .where(Run.id == run_id, claimable)
        .values(
            status=RunStatus.RUNNING,
            token=Run.token + 1,
            attempts=Run.attempts + 1,
            lease_expires=now + timedelta(seconds=lease_s),
            started_at=now,
            results=[],
            case_count=0,
        )
        .returning(
            Run.token, Run.attempts, Run.problem, Run.source, Run.cases, Run.language, Run.style
        )
    ).first()
    session.commit()
    if claimed is None:
        return None
    return RunClaim(run_id, *claimed)


def _set_if_held(session: Session, claim: RunClaim, **values: Any) -> bool:
    done = rowcount(
        session.execute(
            update(Run)
            .where(
                Run.id == claim.run_id, Run.token == claim.token, Run.status == RunStatus.RUNNING
            )
            .values(**values)
        )
    )
    session.commit()
    return done > 0


def record_run_cases(*, session: Session, claim: RunClaim, results: Sequence[Any]) -> bool:
    """Store the results so far (live progress) while the claim holds."""
    return _set_if_held(session, claim, results=list(results), case_count=len(results))


def finish_run(
    *,
    session: Session,
    claim: RunClaim,
    outcome: str,
    results: Sequence[Any],
    message: str,
    failed: bool = False,
) -> bool:
    """End the run: `outcome` is judge.run's status; `failed` marks a run the judge could
    not carry out (status error)."""
    return _set_if_held(
        session,
        claim,
        status=RunStatus.ERROR if failed else RunStatus.DONE,
        outcome=outcome,
        results=list(results),
        case_count=len(results),
        message=message,
        lease_expires=None,
        finished_at=utcnow(),
    )


def release_run(*, session: Session, claim: RunClaim) -> bool:
    """Give the run back to the queue (the sandbox could not run it: a retry follows)."""
    return _set_if_held(
        session, claim, status=RunStatus.QUEUED, results=[], case_count=0, lease_expires=None
    )


def fail_run(*, session: Session, run_id: int, message: str) -> bool:
    """End an unfinished run as an error with a plain message (retries used up)."""
    done = rowcount(
        session.execute(
            update(Run)
            .where(Run.id == run_id, Run.status.not_in(FINISHED))
            .values(
                status=RunStatus.ERROR, message=message, lease_expires=None, finished_at=utcnow()
            )
        )
    )
    session.commit()
    return done > 0


# ---- the sweeper ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSweep:
    interrupted: list[int]  # running under an expired claim: its worker died
    unclaimed: list[int]  # queued too long: no runner is up
    deleted: int  # day-old runs


def sweep_runs(*, session: Session, now: datetime | None = None) -> RunSweep:
    """End the runs nobody will finish, with a plain message, and delete the day-old ones.

    A run is cheap to start again, so a dead worker's run is not retried behind the
    student's back: the page says so and the student clicks Run."""
    now = now or utcnow()
    ended = {}
    for name, condition, message in (
        (
            "interrupted",
            (Run.status == RunStatus.RUNNING) & (Run.lease_expires < now),
            INTERRUPTED,
        ),
        (
            "unclaimed",
            (Run.status == RunStatus.QUEUED) & (Run.created_at < now - UNCLAIMED_AFTER),
            NO_RUNNER,
        ),
    ):
        rows = session.execute(
            update(Run)
            .where(condition)
            .values(status=RunStatus.ERROR, message=message, lease_expires=None, finished_at=now)
            .returning(Run.id)
        )
        ended[name] = sorted(row.id for row in rows)
    deleted = rowcount(session.execute(delete(Run).where(Run.created_at < now - KEEP_RUNS)))
    session.commit()
    return RunSweep(ended["interrupted"], ended["unclaimed"], deleted)


# ---- live progress -------------------------------------------------------------------------


@dataclass(frozen=True)
class RunCase:
    """One finished case of a run, as its live-progress stream sends it."""

    index: int
    data: Mapping[str, Any]


def run_progress(
    *, session: Session, cursors: Mapping[int, ProgressCursor | None]
) -> list[Progress]:
    """Status and token of each run that exists, with the cases of its current claim after
    the cursor (none once finished: its whole result is read then). The results column is
    read only for runs with cases the reader has not seen."""
    if not cursors:
        return []
    rows = session.execute(
        select(Run.id, Run.status, Run.token, Run.case_count).where(Run.id.in_(sorted(cursors)))
    ).all()
    found: list[Progress] = []
    unread: dict[int, int] = {}
    for row in sorted(rows):
        cursor = cursors[row.id]
        last = cursor.last if cursor is not None and cursor.token == row.token else -1
        if row.status not in FINISHED and row.case_count > last + 1:
            unread[row.id] = last
        else:
            found.append(Progress(row.id, row.status, row.token, None))
    if unread:
        for run_id, status, token, results in session.execute(
            select(Run.id, Run.status, Run.token, Run.results).where(Run.id.in_(sorted(unread)))
        ):
            new = [
                RunCase(index, entry)
                for index, entry in enumerate(results or [])
                if index > unread[run_id]
            ]
            found.extend(Progress(run_id, status, token, case) for case in new)
            if not new:
                found.append(Progress(run_id, status, token, None))
    found.sort(key=lambda p: (p.id, p.test.index if p.test is not None else -1))
    return found

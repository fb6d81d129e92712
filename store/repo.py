"""Repository functions: every read and write the service makes, keyword-only arguments.

Callers own the session and the transaction boundaries, except the worker-side functions
(claim ... finish), which commit themselves: each is one atomic step of the judging protocol.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, true, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from store.models import (
    Board,
    Judging,
    LoginAttempt,
    Role,
    Status,
    Submission,
    TestRow,
    User,
    utcnow,
)


class Conflict(Exception):
    """The row would duplicate a unique value."""


class RateLimited(Exception):
    """Over a limit: the message says which, `retry_after` says in how many seconds to retry."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _seconds_until_below(
    times: list[datetime], limit: int, window: timedelta, now: datetime
) -> int:
    """Seconds until fewer than `limit` of `times` (ascending, all inside the window) remain."""
    expires = times[len(times) - limit] + window
    return max(1, math.ceil((expires - now).total_seconds()))


# ---- users -------------------------------------------------------------------------------


def get_user(*, session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def get_user_by_name(*, session: Session, username: str) -> User | None:
    return session.scalar(select(User).where(User.username == username))


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
    user.password_hash = password_hash
    user.role = role
    session.flush()
    return user


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
    return _seconds_until_below(times, limit, window, now) if len(times) >= limit else None


def record_attempt(
    *, session: Session, kind: str, address: str, username: str | None, keep: timedelta
) -> None:
    """Count one attempt, and delete the attempts older than `keep` (the longest window)."""
    now = utcnow()
    session.execute(delete(LoginAttempt).where(LoginAttempt.created_at < now - keep))
    session.add(LoginAttempt(kind=kind, username=username, address=address, created_at=now))
    session.flush()


# ---- hidden boards -----------------------------------------------------------------------


def add_board(
    *, session: Session, problem: str, case: dict[str, Any], answer: int, author_id: int | None
) -> Board:
    board = Board(problem=problem, input=case, answer=answer, author_id=author_id)
    session.add(board)
    session.flush()
    return board


def list_boards(*, session: Session, problem: str) -> list[Board]:
    return list(session.scalars(select(Board).where(Board.problem == problem).order_by(Board.id)))


def get_board(*, session: Session, problem: str, board_id: int) -> Board | None:
    board = session.get(Board, board_id)
    return board if board is not None and board.problem == problem else None


def delete_board(*, session: Session, problem: str, board_id: int) -> bool:
    result = session.execute(delete(Board).where(Board.id == board_id, Board.problem == problem))
    return result.rowcount == 1


def hidden_cases(*, session: Session, problem: str) -> list[dict[str, Any]]:
    """The problem's hidden boards in grading order, with their cached reference answers."""
    return [
        {"id": board.id, "input": board.input, "answer": board.answer}
        for board in list_boards(session=session, problem=problem)
        if board.hidden
    ]


# ---- submissions: API side ---------------------------------------------------------------


def create_submission(
    *, session: Session, user_id: int, problem: str, source: str, seed: int
) -> Submission:
    now = utcnow()
    submission = Submission(
        user_id=user_id,
        problem=problem,
        source=source,
        seed=seed,
        status=Status.QUEUED,
        created_at=now,
        enqueued_at=now,
    )
    session.add(submission)
    session.flush()
    return submission


UNFINISHED_RETRY_AFTER_S = 10  # a guess: most gradings take a second or two


def create_submission_limited(
    *,
    session: Session,
    user_id: int,
    problem: str,
    source: str,
    seed: int,
    per_minute: int,
    max_unfinished: int,
) -> Submission:
    """Create a submission unless the user is over a limit (then RateLimited is raised):
    `per_minute` submissions in the last minute, or `max_unfinished` live submissions still
    queued or running (rejudges an instructor started do not count).

    Check and insert are atomic per user: the user's row is locked first (SELECT ... FOR
    UPDATE on PostgreSQL; on SQLite the session's BEGIN IMMEDIATE, see store.db, already
    holds the database's write lock), so concurrent requests of one user count one after
    another until the caller commits.
    """
    session.execute(select(User.id).where(User.id == user_id).with_for_update())
    now = utcnow()  # after the lock: rows committed while we waited are in the past
    window = timedelta(minutes=1)
    recent = recent_submission_times(session=session, user_id=user_id, since=now - window)
    if len(recent) >= per_minute:
        retry_after = _seconds_until_below(recent, per_minute, window, now)
        raise RateLimited(
            f"at most {per_minute} submissions per minute; try again in {retry_after} s",
            retry_after,
        )
    unfinished = (
        session.scalar(
            select(func.count()).where(
                Submission.user_id == user_id,
                Submission.status.in_([Status.QUEUED, Status.RUNNING]),
                Submission.priority == "live",
            )
        )
        or 0
    )
    if unfinished >= max_unfinished:
        raise RateLimited(
            f"you have {unfinished} submissions waiting to be graded; "
            "submit again when one finishes",
            UNFINISHED_RETRY_AFTER_S,
        )
    return create_submission(
        session=session, user_id=user_id, problem=problem, source=source, seed=seed
    )


def recent_submission_times(*, session: Session, user_id: int, since: datetime) -> list[datetime]:
    """Creation times of the user's submissions after `since`, oldest first (rate limiting)."""
    return list(
        session.scalars(
            select(Submission.created_at)
            .where(Submission.user_id == user_id, Submission.created_at > since)
            .order_by(Submission.created_at)
        )
    )


def get_submission(*, session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)


@dataclass(frozen=True)
class Position:
    """Where a history page starts or ends: the (created_at, id) of a row, newest first."""

    created_at: datetime
    id: int


@dataclass(frozen=True)
class SubmissionList:
    items: list[Any]  # rows of SUMMARY_COLUMNS (attributes: id, user, problem, ...)
    total: int  # matching rows, at most the cap
    total_exact: bool  # False when there are more than `total`
    older: bool  # rows follow this page
    newer: bool  # rows precede this page


# What a history row shows: never the source, never the password hash.
SUMMARY_COLUMNS = (
    Submission.id,
    User.username.label("user"),
    Submission.problem,
    Submission.status,
    Submission.verdict,
    Submission.passed,
    Submission.total,
    Submission.max_time_ms,
    Submission.peak_memory_kb,
    Submission.created_at,
    Submission.finished_at,
)

COUNT_CAP = 10_000  # counting a whole course's history on every page costs more than it says


def list_submissions(
    *,
    session: Session,
    user_id: int | None = None,
    username: str | None = None,
    problem: str | None = None,
    verdict: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 50,
    offset: int = 0,
    after: Position | None = None,
    before: Position | None = None,
    count_cap: int = COUNT_CAP,
) -> SubmissionList:
    """Newest first (created_at, id): the page after `after` (older rows), the page before
    `before` (newer rows), or at `offset`; with a count of matching rows capped at `count_cap`.

    Keyset pages read only the page's rows from an index whatever their depth; OFFSET is kept
    for old clients and walks every row it skips.
    """
    conditions = []
    if user_id is not None:
        conditions.append(Submission.user_id == user_id)
    if username is not None:
        conditions.append(Submission.user_id.in_(select(User.id).where(User.username == username)))
    if problem is not None:
        conditions.append(Submission.problem == problem)
    if verdict is not None:
        conditions.append(Submission.verdict == verdict)
    if since is not None:
        conditions.append(Submission.created_at >= since)
    if until is not None:
        conditions.append(Submission.created_at < until)
    where = and_(true(), *conditions)
    capped = select(Submission.id).where(where).limit(count_cap + 1).subquery()
    counted = session.scalar(select(func.count()).select_from(capped)) or 0

    key = tuple_(Submission.created_at, Submission.id)
    query = select(*SUMMARY_COLUMNS).join(User, User.id == Submission.user_id).where(where)
    newest_first = (Submission.created_at.desc(), Submission.id.desc())
    if before is not None:  # read upwards from the cursor, then present newest first
        rows = list(
            session.execute(
                query.where(key > tuple_(before.created_at, before.id))
                .order_by(Submission.created_at, Submission.id)
                .limit(limit + 1)
            )
        )
        newer, older = len(rows) > limit, True
        rows = rows[:limit][::-1]
    else:
        if after is not None:
            query = query.where(key < tuple_(after.created_at, after.id))
        else:
            query = query.offset(offset)
        rows = list(session.execute(query.order_by(*newest_first).limit(limit + 1)))
        older, newer = len(rows) > limit, after is not None or offset > 0
        rows = rows[:limit]
    return SubmissionList(
        items=rows,
        total=min(counted, count_cap),
        total_exact=counted <= count_cap,
        older=older,
        newer=newer,
    )


def current_tests(
    *, session: Session, submission: Submission, after_index: int = -1
) -> list[TestRow]:
    """Tests of the submission's current judging (those written under its lease token)."""
    return list(
        session.scalars(
            select(TestRow)
            .where(
                TestRow.submission_id == submission.id,
                TestRow.lease_token == submission.lease_token,
                TestRow.index > after_index,
            )
            .order_by(TestRow.index)
        )
    )


def judgings(*, session: Session, submission_id: int) -> list[Judging]:
    return list(
        session.scalars(
            select(Judging).where(Judging.submission_id == submission_id).order_by(Judging.id)
        )
    )


def rejudge(
    *, session: Session, submission_ids: list[int] | None = None, problem: str | None = None
) -> list[int]:
    """Queue submissions again at low priority; their finished verdicts stay in `judgings`.

    Bumping the token fences out a worker still grading an earlier judging.
    """
    query = update(Submission).values(
        status=Status.QUEUED,
        verdict=None,
        passed=None,
        total=None,
        max_time_ms=None,
        peak_memory_kb=None,
        message=None,
        attempts=0,
        lease_token=Submission.lease_token + 1,
        lease_expires=None,
        priority="rejudge",
        enqueued_at=utcnow(),
        started_at=None,
        finished_at=None,
    )
    ids_query = select(Submission.id).order_by(Submission.id)
    if submission_ids is not None:
        ids_query = ids_query.where(Submission.id.in_(submission_ids))
    if problem is not None:
        ids_query = ids_query.where(Submission.problem == problem)
    ids = list(session.scalars(ids_query))
    if ids:
        session.execute(query.where(Submission.id.in_(ids)))
    return ids


# ---- submissions: worker side (each function is one committed step) ---------------------


@dataclass(frozen=True)
class Claim:
    submission_id: int
    token: int
    attempts: int


@dataclass(frozen=True)
class Job:
    problem: str
    source: str
    seed: int
    hidden_cases: list[dict[str, Any]]


def _claimable(now: datetime):
    """Queued, or running under a lease that has expired (its worker died)."""
    return or_(
        Submission.status == Status.QUEUED,
        and_(Submission.status == Status.RUNNING, Submission.lease_expires < now),
    )


def _grading_for_user(user_id: Any, other_than: int, now: datetime):
    """Another submission of the user is being graded: under a live lease, or under an expired
    one (its worker may be slow, or dead: the sweeper resends it) when it is the older one, so
    that of two rows left running the older goes first. An alias, so it never correlates with
    the outer statement's submissions."""
    other = aliased(Submission)
    return (
        select(other.id)
        .where(
            other.user_id == user_id,
            other.id != other_than,
            other.status == Status.RUNNING,
            or_(other.lease_expires >= now, other.id < other_than),
        )
        .exists()
    )


def claim(*, session: Session, submission_id: int, lease_s: float) -> Claim | None:
    """Take the row for grading if it is claimable and no other submission of its user is
    being graded (one grading slot per student at a time: fair to the others).

    One conditional UPDATE, so exactly one worker wins however many messages were delivered;
    the user's row is locked first (PostgreSQL), so two of a user's submissions cannot both
    pass the one-at-a-time check at once (SQLite serialises writers anyway).
    """
    now = utcnow()
    user_id = session.scalar(select(Submission.user_id).where(Submission.id == submission_id))
    if user_id is None:
        session.rollback()
        return None
    session.execute(select(User.id).where(User.id == user_id).with_for_update())
    result = session.execute(
        update(Submission)
        .where(
            Submission.id == submission_id,
            _claimable(now),
            ~_grading_for_user(user_id, submission_id, now),
        )
        .values(
            status=Status.RUNNING,
            attempts=Submission.attempts + 1,
            lease_token=Submission.lease_token + 1,
            lease_expires=now + timedelta(seconds=lease_s),
            started_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        session.rollback()
        return None
    token, attempts = session.execute(
        select(Submission.lease_token, Submission.attempts).where(Submission.id == submission_id)
    ).one()
    session.commit()
    return Claim(submission_id=submission_id, token=token, attempts=attempts)


def waiting_for_its_user(*, session: Session, submission_id: int) -> bool:
    """The row is claimable but another of its user's submissions is being graded: the
    claim was refused for fairness; the row is handed on when that one finishes."""
    now = utcnow()
    row = session.execute(
        select(Submission.user_id, _claimable(now)).where(Submission.id == submission_id)
    ).first()
    waiting = (
        row is not None
        and bool(row[1])
        and bool(session.scalar(select(_grading_for_user(row.user_id, submission_id, now))))
    )
    session.rollback()
    return waiting


def next_for_user(*, session: Session, submission_id: int) -> Stale | None:
    """The oldest queued submission of the finished submission's user, to enqueue next."""
    user_id = session.scalar(select(Submission.user_id).where(Submission.id == submission_id))
    row = session.execute(
        select(Submission.id, Submission.priority)
        .where(Submission.user_id == user_id, Submission.status == Status.QUEUED)
        .order_by(Submission.id)
        .limit(1)
    ).first()
    session.rollback()
    return None if row is None else Stale(row.id, row.priority)


def _holds(claim_: Claim):
    return and_(
        Submission.id == claim_.submission_id,
        Submission.lease_token == claim_.token,
        Submission.status == Status.RUNNING,
    )


def load_job(*, session: Session, claim_: Claim) -> Job:
    submission = session.get(Submission, claim_.submission_id)
    assert submission is not None
    job = Job(
        problem=submission.problem,
        source=submission.source,
        seed=submission.seed,
        hidden_cases=hidden_cases(session=session, problem=submission.problem),
    )
    session.commit()
    return job


def _extend(session: Session, claim_: Claim, lease_s: float) -> bool:
    """Push the lease out if the claim still holds (uncommitted)."""
    result = session.execute(
        update(Submission)
        .where(_holds(claim_))
        .values(lease_expires=utcnow() + timedelta(seconds=lease_s))
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1


def extend_lease(*, session: Session, claim_: Claim, lease_s: float) -> bool:
    held = _extend(session, claim_, lease_s)
    session.commit()
    return held


def _test_row(claim_: Claim, test: dict[str, Any]) -> TestRow:
    return TestRow(
        submission_id=claim_.submission_id,
        lease_token=claim_.token,
        index=test["index"],
        kind=str(test["kind"]),
        verdict=str(test["verdict"]),
        time_ms=float(test.get("time_ms") or 0.0),
        wall_ms=float(test.get("wall_ms") or 0.0),
        memory_kb=int(test.get("memory_kb") or 0),
        message=test.get("message") or "",
        profile=test.get("profile"),
        input=test.get("input"),
        expected=test.get("expected"),
        got=test.get("got"),
        counterexample=test.get("counterexample"),
        board_id=test.get("board_id"),
    )


def record_test(*, session: Session, claim_: Claim, test: dict[str, Any], lease_s: float) -> bool:
    """Store one finished test (live progress) if the claim still holds; extends the lease."""
    if not _extend(session, claim_, lease_s):
        session.rollback()
        return False
    session.add(_test_row(claim_, test))
    try:
        session.commit()
    except IntegrityError:  # already recorded (the final write replaces them all anyway)
        session.rollback()
    return True


def finish(*, session: Session, claim_: Claim, result: dict[str, Any]) -> bool:
    """Store the final verdict if the claim still holds: the only way a judging ends."""
    now = utcnow()
    fields = {
        "verdict": str(result["verdict"]),
        "passed": int(result.get("passed") or 0),
        "total": int(result.get("total") or 0),
        "max_time_ms": float(result.get("max_time_ms") or 0.0),
        "peak_memory_kb": int(result.get("peak_memory_kb") or 0),
        "judge_version": result.get("judge_version"),
        "message": result.get("message") or "",
    }
    updated = session.execute(
        update(Submission)
        .where(_holds(claim_))
        .values(
            status=Status.DONE,
            lease_expires=None,
            finished_at=now,
            sandboxed=result.get("sandboxed"),
            **fields,
        )
        .execution_options(synchronize_session=False)
    )
    if updated.rowcount != 1:
        session.rollback()
        return False
    submission = session.get(Submission, claim_.submission_id)
    assert submission is not None
    # The final result is authoritative (it adds the shrunk counterexample): replace the
    # progress rows in the same transaction that publishes the verdict.
    session.execute(
        delete(TestRow).where(
            TestRow.submission_id == claim_.submission_id, TestRow.lease_token == claim_.token
        )
    )
    session.add_all(_test_row(claim_, t) for t in result.get("tests", ()))
    session.add(
        Judging(
            submission_id=claim_.submission_id,
            lease_token=claim_.token,
            seed=submission.seed,
            attempts=claim_.attempts,
            reason=submission.priority,
            finished_at=now,
            **fields,
        )
    )
    session.commit()
    return True


def release(*, session: Session, claim_: Claim) -> bool:
    """Give the row back to the queue after an infrastructure failure (it will be retried)."""
    result = session.execute(
        update(Submission)
        .where(_holds(claim_))
        .values(status=Status.QUEUED, lease_expires=None, enqueued_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return result.rowcount == 1


def internal_error(message: str, judge_version: str | None = None) -> dict[str, Any]:
    return {
        "verdict": "IE",
        "passed": 0,
        "total": 0,
        "message": message,
        "judge_version": judge_version,
        "tests": [],
    }


@dataclass(frozen=True)
class Stale:
    submission_id: int
    priority: str


def sweep(
    *, session: Session, resend_after_s: float, max_attempts: int
) -> tuple[list[Stale], list[int]]:
    """Find rows a lost message or a dead worker left behind.

    Returns (rows to enqueue again, ids marked IE after too many attempts). A row is resent
    at most once per `resend_after_s`, so a long but healthy queue does not fill with copies.
    """
    now = utcnow()
    expired = and_(Submission.status == Status.RUNNING, Submission.lease_expires < now)
    exhausted = list(
        session.execute(
            select(Submission.id, Submission.lease_token, Submission.attempts).where(
                expired, Submission.attempts >= max_attempts
            )
        )
    )
    gave_up = []
    for submission_id, token, attempts in exhausted:
        # Take the expired claim over (bump the token) so a late worker cannot write.
        taken = session.execute(
            update(Submission)
            .where(Submission.id == submission_id, Submission.lease_token == token, expired)
            .values(lease_token=token + 1, lease_expires=now + timedelta(seconds=60))
            .execution_options(synchronize_session=False)
        )
        session.commit()
        if taken.rowcount == 1:
            claim_ = Claim(submission_id=submission_id, token=token + 1, attempts=attempts)
            message = f"gave up after {attempts} attempts: the worker grading it kept failing"
            if finish(session=session, claim_=claim_, result=internal_error(message)):
                gave_up.append(submission_id)
    stale_rows = list(
        session.execute(
            select(Submission.id, Submission.priority)
            .where(
                or_(Submission.status == Status.QUEUED, expired),
                Submission.enqueued_at < now - timedelta(seconds=resend_after_s),
            )
            .order_by(Submission.id)
        )
    )
    if stale_rows:
        session.execute(
            update(Submission)
            .where(Submission.id.in_([row.id for row in stale_rows]))
            .values(enqueued_at=now)
            .execution_options(synchronize_session=False)
        )
    session.commit()
    return [Stale(row.id, row.priority) for row in stale_rows], gave_up

"""Repository functions: every read and write the service makes, keyword-only arguments.

Callers own the session and the transaction boundaries, except the worker-side functions
(claim ... finish), which commit themselves: each is one atomic step of the judging protocol.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, true, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from store.db import rowcount
from store.models import (
    Board,
    Judging,
    LoginAttempt,
    Priority,
    Role,
    Status,
    Submission,
    TestRow,
    User,
    utcnow,
)
from store.outcome import JudgingOutcome


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
    return rowcount(result) == 1


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
                Submission.priority == Priority.LIVE,
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
        priority=Priority.REJUDGE,
        enqueued_at=utcnow(),
        resends=0,
        last_failure=None,
        hold_reason=None,
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


def _grading_for_user(user_id: Any, other_than: Any, now: datetime, priority: Any):
    """Another submission of the user goes first: one being graded, under a live lease or
    under an expired one (its worker may be slow, or dead: the sweeper resends it) when it is
    the older one, so that of two rows left running the older goes first; or an older one
    still queued at the same priority (two worker slots that take two of a student's
    messages at once must not grade the newer first; a rejudge never holds up live work).
    An alias, so it correlates with the outer statement only through the arguments."""
    other = aliased(Submission)
    return (
        select(other.id)
        .where(
            other.user_id == user_id,
            other.id != other_than,
            or_(
                and_(
                    other.status == Status.RUNNING,
                    or_(other.lease_expires >= now, other.id < other_than),
                ),
                and_(
                    other.status == Status.QUEUED,
                    other.id < other_than,
                    other.priority == priority,
                ),
            ),
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
    row = session.execute(
        select(Submission.user_id, Submission.priority).where(Submission.id == submission_id)
    ).first()
    if row is None:
        session.rollback()
        return None
    user_id = row.user_id
    session.execute(select(User.id).where(User.id == user_id).with_for_update())
    result = session.execute(
        update(Submission)
        .where(
            Submission.id == submission_id,
            _claimable(now),
            ~_grading_for_user(user_id, submission_id, now, row.priority),
        )
        .values(
            status=Status.RUNNING,
            attempts=Submission.attempts + 1,
            lease_token=Submission.lease_token + 1,
            lease_expires=now + timedelta(seconds=lease_s),
            started_at=now,
            resends=0,
        )
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        session.rollback()
        return None
    token, attempts = session.execute(
        select(Submission.lease_token, Submission.attempts).where(Submission.id == submission_id)
    ).one()
    session.commit()
    return Claim(submission_id=submission_id, token=token, attempts=attempts)


def waiting_for_its_user(*, session: Session, submission_id: int) -> bool:
    """The row is claimable but another of its user's submissions goes first (being graded,
    or older and still queued): the claim was refused; the row is handed on when that one
    finishes."""
    now = utcnow()
    row = session.execute(
        select(Submission.user_id, Submission.priority, _claimable(now)).where(
            Submission.id == submission_id
        )
    ).first()
    waiting = (
        row is not None
        and bool(row[2])
        and bool(
            session.scalar(select(_grading_for_user(row.user_id, submission_id, now, row.priority)))
        )
    )
    session.rollback()
    return waiting


def next_for_user(*, session: Session, submission_id: int) -> Stale | None:
    """The oldest queued submission of the finished submission's user, to enqueue next;
    recorded as sent now (the sweeper reads the send time to tell a lost message)."""
    user_id = session.scalar(select(Submission.user_id).where(Submission.id == submission_id))
    row = session.execute(
        select(Submission.id, Submission.priority)
        .where(Submission.user_id == user_id, Submission.status == Status.QUEUED)
        .order_by(Submission.id)
        .limit(1)
    ).first()
    if row is None:
        session.rollback()
        return None
    session.execute(
        update(Submission)
        .where(Submission.id == row.id, Submission.status == Status.QUEUED)
        .values(enqueued_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return Stale(row.id, row.priority)


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


def _set_if_held(session: Session, claim_: Claim, **values: Any) -> bool:
    """Update the row if the claim still holds (uncommitted); whether it did."""
    result = session.execute(
        update(Submission)
        .where(_holds(claim_))
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) == 1


def _extend(session: Session, claim_: Claim, lease_s: float) -> bool:
    """Push the lease out if the claim still holds (uncommitted)."""
    return _set_if_held(session, claim_, lease_expires=utcnow() + timedelta(seconds=lease_s))


def extend_lease(*, session: Session, claim_: Claim, lease_s: float) -> bool:
    held = _extend(session, claim_, lease_s)
    session.commit()
    return held


def _test_row(claim_: Claim, test: Mapping[str, Any]) -> TestRow:
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
        positions=test.get("positions"),
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


def finish(*, session: Session, claim_: Claim, outcome: JudgingOutcome) -> bool:
    """Store the final verdict if the claim still holds: the only way a judging ends."""
    now = utcnow()
    fields = {
        "verdict": outcome.verdict,
        "passed": outcome.passed,
        "total": outcome.total,
        "max_time_ms": outcome.max_time_ms,
        "peak_memory_kb": outcome.peak_memory_kb,
        "judge_version": outcome.judge_version,
        "message": outcome.message,
    }
    finished = _set_if_held(
        session,
        claim_,
        status=Status.DONE,
        lease_expires=None,
        finished_at=now,
        sandboxed=outcome.sandboxed,
        hold_reason=None,
        **fields,
    )
    if not finished:
        session.rollback()
        return False
    submission = session.get(Submission, claim_.submission_id)
    assert submission is not None
    # The final result is authoritative (it adds the shrunk counterexample): replace the
    # progress rows in the same transaction that publishes the verdict. Rows of superseded
    # attempts and earlier judgings go too: nothing reads them (`judgings` keeps the history).
    session.execute(delete(TestRow).where(TestRow.submission_id == claim_.submission_id))
    session.add_all(_test_row(claim_, t) for t in outcome.tests)
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


FAILURE_CHARS = 500  # of an infrastructure error's text kept on the row


def release(*, session: Session, claim_: Claim, failure: str = "", retry_in_s: float = 0.0) -> bool:
    """Give the row back to the queue after an infrastructure failure (it will be retried).

    `retry_in_s`: the delay of the retry message already scheduled; the row counts as sent
    then, so the sweeper does not send another while that one waits."""
    released = _set_if_held(
        session,
        claim_,
        status=Status.QUEUED,
        lease_expires=None,
        enqueued_at=utcnow() + timedelta(seconds=retry_in_s),
        last_failure=failure[:FAILURE_CHARS] or None,
    )
    session.commit()
    return released


def unsent(*, session: Session, submission_ids: list[int]) -> None:
    """The sweeper could not publish these (broker down): their resends do not count towards
    the backoff, so they go out again one period later, as soon as the broker is back."""
    if submission_ids:
        session.execute(
            update(Submission)
            .where(Submission.id.in_(submission_ids), Submission.resends > 0)
            .values(resends=Submission.resends - 1)
            .execution_options(synchronize_session=False)
        )
    session.commit()


def hold(*, session: Session, claim_: Claim, interrupted: int) -> bool:
    """Set the row aside for an instructor if the claim still holds: its grading was
    interrupted `interrupted` times by something that is not the submission's fault (a
    worker killed, the database or the sandbox failing), so it gets no verdict, and the
    reason says so. A rejudge queues it again."""
    last_failure = session.scalar(
        select(Submission.last_failure).where(Submission.id == claim_.submission_id)
    )
    reason = (
        f"grading was interrupted {interrupted} times; the last interruption: "
        f"{last_failure or 'the worker grading it stopped (killed or crashed)'}"
    )
    held = _set_if_held(
        session, claim_, status=Status.HELD, lease_expires=None, hold_reason=reason[:FAILURE_CHARS]
    )
    session.commit()
    return held


@dataclass(frozen=True)
class Held:
    id: int
    user: str  # the username
    problem: str
    created_at: datetime
    attempts: int
    hold_reason: str | None


def held_submissions(*, session: Session, limit: int = 200) -> list[Held]:
    """Submissions held for an instructor, oldest first (the summary columns only)."""
    rows = session.execute(
        select(
            Submission.id,
            User.username,
            Submission.problem,
            Submission.created_at,
            Submission.attempts,
            Submission.hold_reason,
        )
        .join(User, User.id == Submission.user_id)
        .where(Submission.status == Status.HELD)
        .order_by(Submission.id)
        .limit(limit)
    )
    return [Held(*row) for row in rows]


@dataclass(frozen=True)
class Stale:
    submission_id: int
    priority: Priority


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
    first in, first out), or when no worker is busy and none has claimed anything for
    `resend_after_s`. A row whose user has another submission being graded waits for that
    one (the worker hands it on) and is never resent. In the idle case every resend of a row
    doubles the wait before the next (`resends`): with no worker consuming, copies would pile
    up in the broker. A row running under an expired lease (a dead worker) is resent on the
    same backoff.
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
                _grading_for_user(
                    Submission.user_id, Submission.id, now, Submission.priority
                ).label("waiting"),
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
        # Rows sent and claimed since the oldest candidate. Not those ever given back after
        # an infrastructure error: their retry was a delayed message, outside the queue order.
        for priority, started, sent in session.execute(
            select(Submission.priority, Submission.started_at, Submission.enqueued_at).where(
                Submission.status.in_([Status.RUNNING, Status.DONE, Status.HELD]),
                Submission.enqueued_at > oldest,
                Submission.started_at > oldest,
                Submission.last_failure.is_(None),
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
            .values(enqueued_at=now, resends=Submission.resends + 1)
            .execution_options(synchronize_session=False)
        )
    session.commit()
    return [Stale(row.id, row.priority) for row in resend], held

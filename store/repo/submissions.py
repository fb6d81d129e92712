"""Submissions as the API reads and writes them: create (rate limited), list, show, rejudge."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, literal, or_, select, true, tuple_, update
from sqlalchemy.orm import Session

from store.models import Judging, Priority, Role, Status, Submission, TestRow, User, utcnow
from store.repo import credit_versions
from store.repo.limits import RateLimited, check_rate, lock_user, made_since
from store.repo.live import Progress, ProgressCursor
from store.repo.releases import StudentsView


def create_submission(
    *,
    session: Session,
    user_id: int,
    problem: str,
    source: str,
    seed: int,
    language: str = "python",
    style: str = "function",
) -> Submission:
    now = utcnow()
    submission = Submission(
        user_id=user_id,
        problem=problem,
        source=source,
        language=language,
        style=style,
        seed=seed,
        status=Status.QUEUED,
        created_at=now,
        enqueued_at=now,
    )
    session.add(submission)
    session.flush()
    # A new attempt (pending) in the gradebook of every assignment with the problem.
    credit_versions.bump_for_problems(session=session, problems=[problem], user_ids=[user_id])
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
    language: str = "python",
    style: str = "function",
) -> Submission:
    """Create a submission unless the user is over a limit (then RateLimited is raised):
    `per_minute` submissions in the last minute, or `max_unfinished` live submissions still
    queued or running (rejudges an instructor started do not count).

    Check and insert are atomic per user: the user's row is locked first (`lock_user`), so
    concurrent requests of one user count one after another until the caller commits.
    """
    now = lock_user(session=session, user_id=user_id)
    check_rate(
        session=session,
        rows=Submission,
        user_id=user_id,
        per_minute=per_minute,
        what="submissions",
        now=now,
    )
    # Finished but not yet released to the student counts as waiting: the place freeing
    # when the judging ends would time its hidden tier (the 429 costs nothing to ask).
    unfinished = (
        session.scalar(
            select(func.count()).where(
                Submission.user_id == user_id,
                or_(
                    Submission.status.in_([Status.QUEUED, Status.RUNNING]),
                    and_(Submission.status == Status.DONE, Submission.released_at > now),
                ),
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
        session=session,
        user_id=user_id,
        problem=problem,
        source=source,
        seed=seed,
        language=language,
        style=style,
    )


def queue_position(*, session: Session, submission: Submission) -> int | None:
    """Where a queued submission waits in its lane (its priority's queue): 1 when it is next,
    counting the queued rows of the lane whose latest message went out before its own (the
    queues are first in, first out). None when it is not queued."""
    if submission.status != Status.QUEUED:
        return None
    sent = submission.enqueued_at
    ahead = session.scalar(
        select(func.count()).where(
            Submission.status == Status.QUEUED,
            Submission.priority == submission.priority,
            or_(
                Submission.enqueued_at < sent,
                and_(Submission.enqueued_at == sent, Submission.id < submission.id),
            ),
        )
    )
    return (ahead or 0) + 1


def recent_submission_times(*, session: Session, user_id: int, since: datetime) -> list[datetime]:
    """Creation times of the user's submissions after `since`, oldest first (rate limiting)."""
    return made_since(session=session, rows=Submission, user_id=user_id, since=since)


def get_submission(*, session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)


def visible_submission(*, session: Session, submission_id: int, viewer: User) -> Submission | None:
    """The submission if `viewer` may see it, else None (see `may_see`)."""
    sub = session.get(Submission, submission_id)
    return sub if sub is not None and may_see(viewer, sub.user_id) else None


def may_see(viewer: User, owner_id: int) -> bool:
    """Whether `viewer` may see a user's work (a submission, a run): an instructor sees
    everyone's, anyone else only their own. The one place that decides it."""
    return viewer.role == Role.INSTRUCTOR or owner_id == viewer.id


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
    Submission.language,
    Submission.style,
    Submission.status,
    Submission.verdict,
    Submission.passed,
    Submission.total,
    Submission.max_time_ms,
    Submission.peak_memory_kb,
    Submission.created_at,
    Submission.finished_at,
    # what a student is shown of it, and from when (store.release)
    Submission.released_at,
    Submission.shown_passed,
    Submission.shown_total,
    Submission.visible_verdict,
    Submission.visible_passed,
    Submission.visible_total,
)

COUNT_CAP = 10_000  # counting a whole course's history on every page costs more than it says


def list_submissions(
    *,
    session: Session,
    user_id: int | None = None,
    username: str | None = None,
    problem: str | None = None,
    verdict: str | None = None,
    language: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 50,
    offset: int = 0,
    after: Position | None = None,
    before: Position | None = None,
    count_cap: int = COUNT_CAP,
    as_student: StudentsView | None = None,
) -> SubmissionList:
    """Newest first (created_at, id): the page after `after` (older rows), the page before
    `before` (newer rows), or at `offset`; with a count of matching rows capped at `count_cap`.

    `as_student`: the verdict filter matches the verdict a student is shown (none before
    the judging is released, the visible tests' while its problem holds the hidden ones
    back), never the stored one.

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
    if verdict is not None and as_student is not None:
        conditions.append(as_student.verdict_is(verdict))
    elif verdict is not None:
        conditions.append(Submission.verdict == verdict)
    if language is not None:
        conditions.append(Submission.language == language)
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
        deferred_at=None,
        sent_out_of_order=False,
        last_failure=None,
        hold_reason=None,
        started_at=None,
        finished_at=None,
        released_at=None,
        shown_passed=None,
        shown_total=None,
        visible_verdict=None,
        visible_passed=None,
        visible_total=None,
        test_counts=None,
    )
    ids_query = select(Submission.id).order_by(Submission.id)
    if submission_ids is not None:
        ids_query = ids_query.where(Submission.id.in_(submission_ids))
    if problem is not None:
        ids_query = ids_query.where(Submission.problem == problem)
    ids = list(session.scalars(ids_query))
    if ids:
        session.execute(query.where(Submission.id.in_(ids)))
        rejudged = session.execute(
            select(Submission.problem, Submission.user_id).where(Submission.id.in_(ids)).distinct()
        ).all()
        # Chosen submissions: their authors' rows; a problem's: anyone's (the whole table).
        authors = None if problem is not None else {uid for _, uid in rejudged}
        credit_versions.bump_for_problems(
            session=session, problems=sorted({p for p, _ in rejudged}), user_ids=authors
        )
    return ids


@dataclass(frozen=True)
class Held:
    id: int
    user: str  # the username
    problem: str
    created_at: datetime
    attempts: int
    hold_reason: str | None
    language: str


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
            Submission.language,
        )
        .join(User, User.id == Submission.user_id)
        .where(Submission.status == Status.HELD)
        .order_by(Submission.id)
        .limit(limit)
    )
    return [Held(*row) for row in rows]


# ---- live progress -----------------------------------------------------------------------


POLL_BATCH = 1000  # submissions per query (bounds the bind parameters: 4 per submission)


def progress(*, session: Session, cursors: Mapping[int, ProgressCursor | None]) -> list[Progress]:
    """Status and lease token of each submission (those that exist), with the rows of its
    current judging after the cursor (all of them when the cursor is None or of an earlier
    judging); no rows once it is done (its whole result is read then). By id, then index."""
    ids = sorted(cursors)
    found: list[Progress] = []
    for start in range(0, len(ids), POLL_BATCH):
        chunk = ids[start : start + POLL_BATCH]
        whens = [
            (and_(Submission.id == sid, Submission.lease_token == cursor.token), cursor.last)
            for sid in chunk
            if (cursor := cursors[sid]) is not None
        ]
        after: Any = case(*whens, else_=-1) if whens else literal(-1)
        query = (
            select(
                Submission.id,
                Submission.status,
                Submission.lease_token,
                TestRow,
                Submission.released_at,
            )
            .outerjoin(
                TestRow,
                and_(
                    TestRow.submission_id == Submission.id,
                    TestRow.lease_token == Submission.lease_token,
                    TestRow.index > after,
                    Submission.status != Status.DONE,
                ),
            )
            .where(Submission.id.in_(chunk))
            .order_by(Submission.id, TestRow.index)
        )
        found.extend(Progress(*row) for row in session.execute(query))
    return found

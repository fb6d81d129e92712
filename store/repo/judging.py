"""The judging protocol, worker side: claim a submission under a lease and a fencing token,
load its job, record progress, then finish, release or hold it.

Each function commits (or rolls back) itself: each is one atomic step of the protocol, and
every write after `claim` happens only while the claim still holds."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from store import credit
from store.db import rowcount
from store.models import (
    Judging,
    Priority,
    Status,
    Submission,
    TestRow,
    User,
    WorkerHeartbeat,
    utcnow,
)
from store.outcome import JudgingOutcome
from store.release import release_moment, student_figures
from store.repo import credit_versions, lti_scores
from store.repo.boards import hidden_cases

HAND_ON_SLACK_S = 0.05  # a message sent for a release arrives this late: a timer may fire early
# JUDGE_HIDDEN_RELEASE_QUANTUM_S's default (config.Settings; a test checks they agree): the
# worker passes its setting, and a caller that does not quantises all the same.
RELEASE_QUANTUM_S = 0.5


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
    language: str = "python"
    style: str = "function"


def _claimable(now: datetime):
    """Queued, or running under a lease that has expired (its worker died)."""
    return or_(
        Submission.status == Status.QUEUED,
        and_(Submission.status == Status.RUNNING, Submission.lease_expires < now),
    )


def interruption_not_counted(now: datetime):
    """The row's claim expired in a way the submission's own grading cannot have caused, so
    that attempt is not counted (`claim`, and the sweeper's hold): its worker was being
    stopped (SIGTERM: a deploy that killed it after the grace period), or the grading was
    waiting for its hidden tier on the hidden lane (`away_since`: none of its code ran in
    the worker that died)."""
    stopping = (
        select(WorkerHeartbeat.id)
        .where(
            WorkerHeartbeat.id == Submission.claimed_by,
            WorkerHeartbeat.stopping_at.is_not(None),
        )
        .exists()
    )
    return and_(
        Submission.status == Status.RUNNING,
        Submission.lease_expires < now,
        or_(Submission.away_since.is_not(None), stopping),
    )


def grading_for_user(
    user_id: Any, other_than: Any, now: datetime, priority: Any, *, unreleased: bool = True
):
    """Another submission of the user goes first: one being graded, under a live lease or
    under an expired one (its worker may be slow, or dead: the sweeper resends it) when it is
    the older one, so that of two rows left running the older goes first; or an older one
    still queued at the same priority (two worker slots that take two of a student's
    messages at once must not grade the newer first; a rejudge never holds up live work);
    or one finished but not yet released to its student (the next one starting at once
    would show the student when the hidden tier ended, to the microsecond: it starts at
    the release, `defer`; not counted with `unreleased=False`).
    An alias, so it correlates with the outer statement only through the arguments."""
    other = aliased(Submission)
    first = [
        and_(
            other.status == Status.RUNNING,
            or_(other.lease_expires >= now, other.id < other_than),
        ),
        and_(
            other.status == Status.QUEUED,
            other.id < other_than,
            other.priority == priority,
        ),
    ]
    if unreleased:
        first.append(and_(other.status == Status.DONE, other.released_at > now))
    return (
        select(other.id)
        .where(other.user_id == user_id, other.id != other_than, or_(*first))
        .exists()
    )


def claim(
    *, session: Session, submission_id: int, lease_s: float, worker_id: int | None = None
) -> Claim | None:
    """Take the row for grading if it is claimable and no other submission of its user is
    being graded (one grading slot per student at a time: fair to the others), for the
    worker whose heartbeat row is `worker_id`.

    Every claim counts as an attempt, except one that takes over an interruption the
    submission cannot have caused (`interruption_not_counted`: a deploy, or its worker
    dying while it waited for the hidden lane): it replaces that attempt. An attempt its
    worker died in, unasked, while its code ran there, counts: it may be what killed it.

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
            ~grading_for_user(user_id, submission_id, now, row.priority),
        )
        .values(
            status=Status.RUNNING,
            attempts=Submission.attempts + case((interruption_not_counted(now), 0), else_=1),
            claimed_by=worker_id,
            away_since=None,
            lease_token=Submission.lease_token + 1,
            lease_expires=now + timedelta(seconds=lease_s),
            started_at=now,
            resends=0,
            deferred_at=None,
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
            session.scalar(select(grading_for_user(row.user_id, submission_id, now, row.priority)))
        )
    )
    session.rollback()
    return waiting


def defer(*, session: Session, submission_id: int) -> bool | Stale:
    """The claim was refused: if another of the user's submissions goes first, its message
    is dropped; say who sends the next. False if the row does not wait for its user (not
    claimable, or free by now: the caller may claim again); True if it is marked (`deferred_at`),
    for the worker finishing the one that goes first to hand it on; or the message for the
    caller to send itself, in `countdown_s`, when all that goes first is a finished judging
    not yet released (whose hand-on may have passed already).

    Under the user's lock, as `claim` and `next_for_user` take it: a judging that finishes
    meanwhile hands on after this commits, so it sees the mark."""
    row = session.execute(
        select(Submission.user_id, Submission.priority, _claimable(utcnow())).where(
            Submission.id == submission_id
        )
    ).first()
    if row is None or not row[2]:
        session.rollback()
        return False
    session.execute(select(User.id).where(User.id == row.user_id).with_for_update())
    now = utcnow()
    this = and_(Submission.id == submission_id, Submission.status == Status.QUEUED)
    goes_first = grading_for_user(row.user_id, submission_id, now, row.priority, unreleased=False)
    if session.scalar(select(goes_first)):
        session.execute(
            update(Submission)
            .where(this)
            .values(deferred_at=now)
            .execution_options(synchronize_session=False)
        )
        session.commit()
        return True
    release_at = session.scalar(
        select(func.max(Submission.released_at)).where(
            Submission.user_id == row.user_id,
            Submission.id != submission_id,
            Submission.status == Status.DONE,
            Submission.released_at > now,
        )
    )
    if release_at is None:
        session.rollback()
        return False
    countdown_s = (release_at - now).total_seconds() + HAND_ON_SLACK_S
    session.execute(
        update(Submission)
        .where(this)
        .values(
            deferred_at=None,
            enqueued_at=now + timedelta(seconds=countdown_s),
            sent_out_of_order=True,
        )
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return Stale(submission_id, row.priority, countdown_s)


def next_for_user(*, session: Session, submission_id: int) -> Stale | None:
    """The oldest queued submission of the finished submission's user, to enqueue next, if
    its message was dropped (`defer`): one still in the queue will arrive, and sending
    another would deliver it twice and, stamped as sent now, make the older rows still
    queued look overtaken to the sweeper.

    Sent at once, to the back of the queue, and recorded as sent now: the sweeper reads the
    send time as the message's place in the queue. Not delayed until the finished one is
    released to its student (it may not be claimed before, see `grading_for_user`): a
    delayed message is taken from the queue at its place but runs at its time, and stamped
    with that time, the rows sent between looked overtaken when it was claimed. Behind a
    backlog it arrives after the release; arriving before, it is dropped and the worker
    sends it for the release (`defer`)."""
    now = utcnow()
    user_id = session.scalar(select(Submission.user_id).where(Submission.id == submission_id))
    session.execute(select(User.id).where(User.id == user_id).with_for_update())
    row = session.execute(
        select(Submission.id, Submission.priority, Submission.deferred_at)
        .where(Submission.user_id == user_id, Submission.status == Status.QUEUED)
        .order_by(Submission.id)
        .limit(1)
    ).first()
    if row is None or row.deferred_at is None:
        session.rollback()
        return None
    session.execute(
        update(Submission)
        .where(Submission.id == row.id, Submission.status == Status.QUEUED)
        .values(deferred_at=None, enqueued_at=now, sent_out_of_order=False)
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
        language=submission.language,
        style=submission.style,
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


def set_away(*, session: Session, claim_: Claim, away: bool) -> bool:
    """Mark the grading as waiting for its hidden tier on the hidden lane (or back)."""
    held = _set_if_held(session, claim_, away_since=utcnow() if away else None)
    session.commit()
    return held


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
        # What the submission printed: visible tests only, whatever the grader handed over
        # (a hidden test's run is one the student must learn nothing from).
        **_printed(test),
    )


def _printed(test: Mapping[str, Any]) -> dict[str, Any]:
    if str(test["kind"]) == HIDDEN:
        return {"stdout": None, "stderr": None, "output_cut": False, "diagnosis": None}
    return {
        "stdout": _capped(test.get("stdout")),
        "stderr": _capped(test.get("stderr")),
        "output_cut": bool(test.get("output_cut")),
        "diagnosis": test.get("diagnosis") or None,
    }


HIDDEN = "hidden"  # judge.verdict.TestKind.HIDDEN (store/ does not import the judge)
OUTPUT_CHARS = 8 * 1024  # per stream and test: the judge caps it already; this holds anyway


def _capped(text: Any) -> str | None:
    return str(text)[:OUTPUT_CHARS] if text else None


def record_test(*, session: Session, claim_: Claim, test: dict[str, Any], lease_s: float) -> bool:
    """Store one finished test (live progress) if the claim still holds; extends the lease."""
    return record_tests(session=session, claim_=claim_, tests=[test], lease_s=lease_s)


def record_tests(
    *, session: Session, claim_: Claim, tests: Sequence[Mapping[str, Any]], lease_s: float
) -> bool:
    """Store finished tests (live progress) in one transaction if the claim still holds;
    extends the lease. A test recorded already is skipped (the final write replaces them all
    anyway): then each is tried on its own."""
    if not _extend(session, claim_, lease_s):
        session.rollback()
        return False
    session.add_all([_test_row(claim_, test) for test in tests])
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        if len(tests) > 1:
            return all(
                [
                    record_tests(session=session, claim_=claim_, tests=[test], lease_s=lease_s)
                    for test in tests
                ]
            )
    return True


def test_counts(outcome: JudgingOutcome) -> dict[str, list[int]]:
    """kind -> [passed, total] over the judging's tests, as `submissions.test_counts` keeps it."""
    found = credit.count_by_kind((str(t["kind"]), str(t["verdict"])) for t in outcome.tests)
    return {kind: list(pair) for kind, pair in found.items()}


def finish(
    *,
    session: Session,
    claim_: Claim,
    outcome: JudgingOutcome,
    release_quantum_s: float = RELEASE_QUANTUM_S,
) -> bool:
    """Store the final verdict if the claim still holds: the only way a judging ends.

    With it, what students are shown of it and from when (`store.release`): timed from the
    start of its hidden tier (`outcome.hidden_s` before now), else from the judging's start,
    in doubling steps of `release_quantum_s`."""
    now = utcnow()
    started_at = session.scalar(
        select(Submission.started_at).where(Submission.id == claim_.submission_id)
    )
    if outcome.hidden_s is not None:
        started_at = now - timedelta(seconds=outcome.hidden_s)
    figures = student_figures(outcome.tests, outcome.verdict)
    fields = {
        "verdict": outcome.verdict,
        "passed": outcome.passed,
        "total": outcome.total,
        "max_time_ms": outcome.max_time_ms,
        "peak_memory_kb": outcome.peak_memory_kb,
        "judge_version": outcome.judge_version,
        "problem_version": outcome.problem_version,
        "message": outcome.message,
        "released_at": release_moment(started_at, now, release_quantum_s),
        **dataclasses.asdict(figures),
    }
    finished = _set_if_held(
        session,
        claim_,
        status=Status.DONE,
        lease_expires=None,
        finished_at=now,
        sandboxed=outcome.sandboxed,
        hold_reason=None,
        test_counts=test_counts(outcome),
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
    credit_versions.bump_for_problems(
        session=session, problems=[submission.problem], user_ids=[submission.user_id]
    )
    # The student's LMS grade follows, posted later from this row (store/repo/lti_scores.py).
    lti_scores.queue_for_problem(
        session=session, user_id=submission.user_id, problem=submission.problem
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
class Stale:
    """A submission whose message is to be sent (again), on its priority's queue, in
    `countdown_s` (a hand-on waiting for the previous judging's release)."""

    submission_id: int
    priority: Priority
    countdown_s: float = 0.0

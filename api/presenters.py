"""Submissions as the API shows them: database rows to response models, with what the
viewer may not see left out (hidden tests for students, an internal error's text).

Instructors see every judging whole and at once. A student sees a judging as
`store.release` says: as still being judged until it is released (its visible tests as
they are, nothing of how it ended), then whole (the hidden tests up to the first failing
one, passed/total over the rows shown), or, while its problem holds the hidden results
back, over its visible tests alone. Never a start time, and its end as the release moment.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from api import assignment_rules
from api.schemas import JudgingPublic, SubmissionPublic, SubmissionSummary, TestPublic
from judge.verdict import HIDDEN_FIELDS_FOR_STUDENTS, TestKind, Verdict, shown_to_student
from store import repo
from store.models import Judging, Role, Status, Submission, TestRow, User, utcnow
from store.release import shown_seconds
from store.repo import heartbeats

RECEIVED = "received"  # the status a "received only" assignment shows before the due time
IE_FOR_STUDENTS = "The judge failed on this submission (not your fault); it has been logged."


class Phase(enum.Enum):
    """How much of its current judging a viewer is shown."""

    JUDGING = "judging"  # not finished, or not released yet: the visible tests so far
    VISIBLE = "visible"  # released, the hidden results held back: the visible tests only
    WHOLE = "whole"  # released: everything the viewer may see
    # An assignment shows its student only that it was received until their due time.
    RECEIVED = "received"


@dataclass(frozen=True)
class Shown:
    """The summary of a submission as one viewer sees it now."""

    phase: Phase
    status: str
    verdict: str | None
    passed: int | None
    total: int | None
    max_time_ms: float | None
    peak_memory_kb: int | None
    finished_at: datetime | None
    hold: datetime | None  # the problem's release time, while it holds hidden results back

    @property
    def hidden_pending(self) -> bool:
        return self.phase is Phase.VISIBLE


def is_instructor(viewer: User) -> bool:
    return viewer.role == Role.INSTRUCTOR


def released(status: str, released_at: datetime | None, now: datetime) -> bool:
    """Whether a judging in this status is released to its student at `now` (one finished
    before releases were recorded counts as released)."""
    return status == Status.DONE and (released_at is None or released_at <= now)


def shown(row: Any, viewer: User, view: repo.StudentsView) -> Shown:
    """`row`: a Submission or a history row (repo.SUMMARY_COLUMNS)."""
    hold = view.hold(row.problem)
    if is_instructor(viewer):
        return Shown(
            Phase.WHOLE,
            row.status,
            row.verdict,
            row.passed,
            row.total,
            row.max_time_ms,
            row.peak_memory_kb,
            row.finished_at,
            hold,
        )
    if view.received_only(row.problem) is not None:
        return Shown(Phase.RECEIVED, RECEIVED, None, None, None, None, None, None, None)
    if not released(row.status, row.released_at, view.now):
        status = Status.RUNNING if row.status == Status.DONE else row.status
        return Shown(Phase.JUDGING, status, None, None, None, None, None, None, hold)
    finished_at = shown_seconds(row.released_at or row.finished_at)
    if hold is not None:
        verdict, passed, total = row.visible_verdict, row.visible_passed, row.visible_total
        phase = Phase.VISIBLE
    else:
        verdict, passed, total = row.verdict, row.shown_passed, row.shown_total
        phase = Phase.WHOLE
    return Shown(
        phase,
        Status.DONE,
        verdict,
        passed,
        total,
        row.max_time_ms,
        row.peak_memory_kb,
        finished_at,
        hold,
    )


def _summary_fields(row: Any, seen: Shown) -> dict[str, Any]:
    return {
        "id": row.id,
        "user": row.user if isinstance(row.user, str) else row.user.username,
        "problem": row.problem,
        "language": row.language,
        "style": row.style,
        "status": seen.status,
        "verdict": seen.verdict,
        "passed": seen.passed,
        "total": seen.total,
        "max_time_ms": seen.max_time_ms,
        "peak_memory_kb": seen.peak_memory_kb,
        "created_at": row.created_at,
        "finished_at": seen.finished_at,
        "hidden_pending": seen.hidden_pending,
        "hidden_release_at": seen.hold,
    }


def summary_public(row: Any, viewer: User, view: repo.StudentsView) -> SubmissionSummary:
    """One history row (repo.SUMMARY_COLUMNS) as the viewer sees it."""
    return SubmissionSummary(**_summary_fields(row, shown(row, viewer, view)))


def test_public(row: TestRow, viewer: User, phase: Phase = Phase.WHOLE) -> TestPublic:
    if row.kind == TestKind.HIDDEN and not is_instructor(viewer):
        # Hidden boards stay hidden: no message, answer, time or memory (a covert channel).
        return TestPublic(**{f: getattr(row, f) for f in HIDDEN_FIELDS_FOR_STUDENTS})
    printed = _printed(row)
    counterexample = row.counterexample
    if phase is Phase.JUDGING and not is_instructor(viewer):
        # Added when the judging is stored, after the hidden tier: shown from its release,
        # the row until then as it was while being judged.
        counterexample = None
        printed.pop("diagnosis", None)
    return TestPublic(
        index=row.index,
        kind=row.kind,
        verdict=row.verdict,
        time_ms=row.time_ms,
        wall_ms=row.wall_ms,
        memory_kb=row.memory_kb,
        message=row.message,
        profile=row.profile,
        input=row.input,
        expected=row.expected,
        got=row.got,
        counterexample=counterexample,
        board_id=row.board_id,
        positions=row.positions,
        **printed,
    )


def _printed(row: TestRow) -> dict[str, Any]:
    """What the submission printed, and where its bug is: visible tests only, for everyone
    (a hidden test's run is one nobody learns a board from; the store keeps none anyway)."""
    if row.kind == TestKind.HIDDEN:
        return {}
    return {
        "stdout": row.stdout or "",
        "stderr": row.stderr or "",
        "output_cut": row.output_cut,
        "diagnosis": row.diagnosis,
    }


def tests_public(rows: list[TestRow], viewer: User, phase: Phase) -> list[TestPublic]:
    """The rows the viewer may see, presented. A student sees hidden tests only once the
    judging is released whole (as they finish, their arrival would time them) and only up
    to the first failing one (how many passed and that failure's verdict)."""
    if not is_instructor(viewer):
        if phase is Phase.RECEIVED:
            return []
        if phase is not Phase.WHOLE:
            rows = [r for r in rows if r.kind != TestKind.HIDDEN]
        rows = shown_to_student(rows)
    return [test_public(r, viewer, phase) for r in rows]


def judging_public(judging: Judging, viewer: User, hold: datetime | None) -> JudgingPublic:
    if is_instructor(viewer):
        return JudgingPublic.model_validate(judging, from_attributes=True)
    if hold is not None:
        verdict, passed, total = (
            judging.visible_verdict,
            judging.visible_passed,
            judging.visible_total,
        )
    else:
        verdict, passed, total = judging.verdict, judging.shown_passed, judging.shown_total
    return JudgingPublic(
        verdict=verdict,
        passed=passed,
        total=total,
        max_time_ms=judging.max_time_ms,
        peak_memory_kb=judging.peak_memory_kb,
        seed=judging.seed,
        judge_version=judging.judge_version,
        problem_version=judging.problem_version,
        attempts=judging.attempts,
        reason=judging.reason,
        finished_at=shown_seconds(judging.released_at or judging.finished_at),
    )


def history_public(
    session: Session, sub: Submission, viewer: User, view: repo.StudentsView
) -> list[JudgingPublic]:
    """The submission's finished judgings, oldest first; a student's only once released."""
    judgings = repo.judgings(session=session, submission_id=sub.id)
    if not is_instructor(viewer) and view.received_only(sub.problem) is not None:
        return []
    if not is_instructor(viewer):
        judgings = [j for j in judgings if j.released_at is None or j.released_at <= view.now]
    hold = view.hold(sub.problem)
    return [judging_public(j, viewer, hold) for j in judgings]


def students_view(
    session: Session, now: datetime | None = None, user_id: int | None = None
) -> repo.StudentsView:
    """What students are shown now; with `user_id`, that student (their assignments'
    feedback policies too)."""
    return repo.students_view(session=session, now=now or utcnow(), user_id=user_id)


def view_for(session: Session, viewer: User, owner_id: int) -> repo.StudentsView:
    """The view a viewer reads a user's work with: the owner's own, for a student."""
    return students_view(session, user_id=None if is_instructor(viewer) else owner_id)


# JUDGE_HEARTBEAT_S's default: a worker silent this long is dead (config.Settings).
DEFAULT_HEARTBEAT_STALE_S = 35.0


def grading_delayed(session: Session, sub: Submission, heartbeat_stale_s: float) -> bool:
    """Waiting for a grader far beyond the normal (store/repo/heartbeats.py's rule): queued,
    or running under an expired lease (its worker died), with no grader alive or for longer
    than max(60 s, 5x the recent median wait)."""
    now = utcnow()
    waiting = sub.status == Status.QUEUED or (
        sub.status == Status.RUNNING and sub.lease_expires is not None and sub.lease_expires < now
    )
    if not waiting:
        return False
    health = heartbeats.queue_health(session=session, stale_s=heartbeat_stale_s)
    return health.is_delayed((now - sub.created_at).total_seconds())


def submission_public(
    session: Session,
    sub: Submission,
    viewer: User,
    view: repo.StudentsView | None = None,
    *,
    heartbeat_stale_s: float = DEFAULT_HEARTBEAT_STALE_S,
) -> SubmissionPublic:
    view = view or view_for(session, viewer, sub.user_id)
    seen = shown(sub, viewer, view)
    instructor = is_instructor(viewer)
    whole = seen.phase in (Phase.VISIBLE, Phase.WHOLE)
    message = sub.message if whole else None
    if sub.verdict == Verdict.IE and not instructor and message:
        message = IE_FOR_STUDENTS
    note = assignment_rules.practice_note(
        assignment_rules.deadlines(session, sub.user_id, sub.problem, sub.created_at),
        sub.created_at,
    )
    return SubmissionPublic(
        **_summary_fields(sub, seen),
        practice=note is not None,
        practice_note=note,
        source=sub.source,
        seed=sub.seed,
        judge_version=sub.judge_version if whole else None,
        problem_version=sub.problem_version if whole else None,
        attempts=sub.attempts,
        message=message,
        sandboxed=sub.sandboxed if whole else None,
        started_at=sub.started_at if instructor else None,
        hold_reason=sub.hold_reason if instructor else None,
        # "Received" says nothing of the judging, not even whether it has begun.
        queue_position=None
        if seen.phase is Phase.RECEIVED
        else repo.queue_position(session=session, submission=sub),
        delayed=seen.phase is not Phase.RECEIVED
        and grading_delayed(session, sub, heartbeat_stale_s),
        tests=tests_public(repo.current_tests(session=session, submission=sub), viewer, seen.phase),
        history=history_public(session, sub, viewer, view),
    )

"""Submissions as the API shows them: database rows to response models, with what the
viewer may not see left out (hidden tests for students, an internal error's text)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from api.schemas import JudgingPublic, SubmissionPublic, TestPublic
from judge.verdict import HIDDEN_FIELDS_FOR_STUDENTS, TestKind, Verdict, shown_to_student
from store import repo
from store.models import Role, Status, Submission, TestRow, User

IE_FOR_STUDENTS = "The judge failed on this submission (not your fault); it has been logged."


def _summary_fields(sub: Submission) -> dict[str, Any]:
    return {
        "id": sub.id,
        "user": sub.user.username,
        "problem": sub.problem,
        "language": sub.language,
        "style": sub.style,
        "status": sub.status,
        "verdict": sub.verdict,
        "passed": sub.passed,
        "total": sub.total,
        "max_time_ms": sub.max_time_ms,
        "peak_memory_kb": sub.peak_memory_kb,
        "created_at": sub.created_at,
        "finished_at": sub.finished_at,
    }


def test_public(row: TestRow, viewer: User) -> TestPublic:
    if row.kind == TestKind.HIDDEN and viewer.role != Role.INSTRUCTOR:
        # Hidden boards stay hidden: no message, answer, time or memory (a covert channel).
        return TestPublic(**{f: getattr(row, f) for f in HIDDEN_FIELDS_FOR_STUDENTS})
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
        counterexample=row.counterexample,
        board_id=row.board_id,
        positions=row.positions,
        **_printed(row),
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


def tests_public(sub: Submission, rows: list[TestRow], viewer: User) -> list[TestPublic]:
    """The rows the viewer may see, presented. A student sees hidden tests only once the
    judging is done (as they finish, their arrival would time them) and only up to the first
    failing one (how many passed and that failure's verdict)."""
    if viewer.role != Role.INSTRUCTOR:
        if sub.status != Status.DONE:
            rows = [r for r in rows if r.kind != TestKind.HIDDEN]
        rows = shown_to_student(rows)
    return [test_public(r, viewer) for r in rows]


def submission_public(session: Session, sub: Submission, viewer: User) -> SubmissionPublic:
    message = sub.message
    if sub.verdict == Verdict.IE and viewer.role != Role.INSTRUCTOR:
        message = IE_FOR_STUDENTS
    return SubmissionPublic(
        **_summary_fields(sub),
        source=sub.source,
        seed=sub.seed,
        judge_version=sub.judge_version,
        attempts=sub.attempts,
        message=message,
        sandboxed=sub.sandboxed,
        started_at=sub.started_at,
        hold_reason=sub.hold_reason if viewer.role == Role.INSTRUCTOR else None,
        queue_position=repo.queue_position(session=session, submission=sub),
        tests=tests_public(sub, repo.current_tests(session=session, submission=sub), viewer),
        history=[
            JudgingPublic.model_validate(j, from_attributes=True)
            for j in repo.judgings(session=session, submission_id=sub.id)
        ],
    )

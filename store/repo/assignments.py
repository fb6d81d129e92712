"""Assignments: create, edit, delete; extensions and score overrides; and what the
gradebook and a student's view read (the rules go to store/credit.py, pure).

The gradebook reads one assignment's submissions in one query: its problems' submissions
made between its release and the latest cutoff any student has, by problem and time from
`ix_submissions_problem_created` (problem, created_at, id), which on PostgreSQL also holds
every column the query reads, the per-kind test counts stored with each judging among them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any

from sqlalchemy import Text, and_, cast, delete, func, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from store import credit
from store.models import (
    Assignment,
    AssignmentProblem,
    Extension,
    Role,
    ScoreOverride,
    Scoring,
    Status,
    Submission,
    TestRow,
    User,
    utcnow,
)
from store.repo import credit_versions, lti_scores

ASSIGNMENT_FIELDS = (
    "title",
    "release_at",
    "due_at",
    "late_rule",
    "late_until",
    "late_percent",
    "late_factor",
    "counts",
    "feedback",
)
ID_BATCH = 500  # ids per IN (...) list
# NULL until the judging ends (a cast keeps it so).
COUNTS_TEXT: ColumnElement[str | None] = cast(Submission.test_counts, Text)


@dataclass(frozen=True)
class ProblemSpec:
    problem: str
    points: float
    max_attempts: int | None = None
    scoring: str = Scoring.AC
    weights: dict[str, float] | None = None


def _set_problems(assignment: Assignment, problems: Sequence[ProblemSpec]) -> None:
    assignment.problems = [
        AssignmentProblem(
            position=i,
            problem=p.problem,
            points=p.points,
            max_attempts=p.max_attempts,
            scoring=p.scoring,
            weights=p.weights,
        )
        for i, p in enumerate(problems)
    ]


def create_assignment(
    *, session: Session, fields: dict[str, Any], problems: Sequence[ProblemSpec], user_id: int
) -> Assignment:
    now = utcnow()
    assignment = Assignment(created_by=user_id, created_at=now, updated_at=now, **fields)
    _set_problems(assignment, problems)
    session.add(assignment)
    session.flush()
    return assignment


def update_assignment(
    *,
    session: Session,
    assignment: Assignment,
    fields: dict[str, Any],
    problems: Sequence[ProblemSpec],
) -> Assignment:
    for name in ASSIGNMENT_FIELDS:
        setattr(assignment, name, fields[name])
    # Replaced whole: the old rows go first (their (assignment, problem) is unique).
    assignment.problems = []
    session.flush()
    _set_problems(assignment, problems)
    assignment.updated_at = utcnow()
    session.flush()
    credit_versions.bump(session=session, assignment_id=assignment.id, user_id=None)
    lti_scores.queue_for_assignment(session=session, assignment_id=assignment.id)
    return assignment


def delete_assignment(*, session: Session, assignment: Assignment) -> None:
    session.delete(assignment)
    session.flush()


def get_assignment(*, session: Session, assignment_id: int) -> Assignment | None:
    return session.get(Assignment, assignment_id)


def list_assignments(*, session: Session, released_by: datetime | None = None) -> list[Assignment]:
    """By due time; `released_by`: only those released at or before it (students)."""
    query = select(Assignment).order_by(Assignment.due_at, Assignment.id)
    if released_by is not None:
        query = query.where(Assignment.release_at <= released_by)
    return list(session.scalars(query))


def rules_of(assignment: Assignment) -> credit.Rules:
    return credit.Rules(
        release_at=assignment.release_at,
        due_at=assignment.due_at,
        problems=[
            credit.ProblemRule(p.problem, p.points, p.max_attempts, p.scoring, p.weights)
            for p in assignment.problems
        ],
        late_rule=assignment.late_rule,
        late_until=assignment.late_until,
        late_percent=assignment.late_percent,
        late_factor=assignment.late_factor,
        counts=assignment.counts,
    )


# ---- extensions -------------------------------------------------------------------------


def extensions_of(
    *, session: Session, assignment_id: int, user_ids: Collection[int]
) -> dict[int, Extension]:
    """user id -> the extension, of these students only (the primary key)."""
    rows = session.scalars(
        select(Extension).where(
            Extension.assignment_id == assignment_id, Extension.user_id.in_(list(user_ids))
        )
    )
    return {ext.user_id: ext for ext in rows}


def extensions(*, session: Session, assignment_id: int) -> list[tuple[Extension, str, str | None]]:
    """The assignment's extensions with the student's and the granter's usernames."""
    granter = User.__table__.alias("granter")
    rows = session.execute(
        select(Extension, User.username, granter.c.username)
        .join(User, User.id == Extension.user_id)
        .outerjoin(granter, granter.c.id == Extension.granted_by)
        .where(Extension.assignment_id == assignment_id)
        .order_by(User.username)
    )
    return [(ext, name, by) for ext, name, by in rows]


def user_extensions(*, session: Session, user_id: int) -> dict[int, Extension]:
    """assignment id -> the student's extension (the index on user_id)."""
    rows = session.scalars(select(Extension).where(Extension.user_id == user_id))
    return {ext.assignment_id: ext for ext in rows}


def set_extension(
    *,
    session: Session,
    assignment_id: int,
    user_id: int,
    due_at: datetime,
    late_until: datetime | None,
    reason: str,
    granted_by: int,
) -> Extension:
    ext = session.get(Extension, (assignment_id, user_id))
    if ext is None:
        ext = Extension(assignment_id=assignment_id, user_id=user_id)
        session.add(ext)
    ext.due_at, ext.late_until, ext.reason = due_at, late_until, reason
    ext.granted_by, ext.granted_at = granted_by, utcnow()
    session.flush()
    _student_credit_changed(session, assignment_id, user_id)
    return ext


def delete_extension(*, session: Session, assignment_id: int, user_id: int) -> bool:
    result = session.execute(
        delete(Extension).where(
            Extension.assignment_id == assignment_id, Extension.user_id == user_id
        )
    )
    _student_credit_changed(session, assignment_id, user_id)
    return bool(result.rowcount)  # type: ignore[attr-defined]


def _student_credit_changed(session: Session, assignment_id: int, user_id: int) -> None:
    """A change to one student's credit: the cached gradebook is stale and their LMS score is
    posted again. The version first: it locks the assignment's row, the order every
    transaction takes (no deadlock with an edit)."""
    credit_versions.bump(session=session, assignment_id=assignment_id, user_id=user_id)
    lti_scores.queue_for_student(session=session, assignment_id=assignment_id, user_id=user_id)


def deadline_for(assignment: Assignment, ext: Extension | None) -> credit.Deadline:
    rules = rules_of(assignment)
    if ext is None:
        return credit.deadline(rules)
    return credit.deadline(rules, ext.due_at, ext.late_until)


# ---- overrides --------------------------------------------------------------------------


def overrides(
    *, session: Session, assignment_id: int, user_ids: Collection[int] | None = None
) -> dict[tuple[int, str], ScoreOverride]:
    """(user id, problem) -> the instructor's score; `user_ids`: of these students only."""
    where = [ScoreOverride.assignment_id == assignment_id]
    if user_ids is not None:
        where.append(ScoreOverride.user_id.in_(list(user_ids)))
    rows = session.scalars(select(ScoreOverride).where(*where))
    return {(o.user_id, o.problem): o for o in rows}


def set_override(
    *,
    session: Session,
    assignment_id: int,
    user_id: int,
    problem: str,
    score: float | None,
    comment: str,
    author_id: int,
) -> ScoreOverride | None:
    """Set the score (None: back to the computed one)."""
    _student_credit_changed(session, assignment_id, user_id)
    row = session.get(ScoreOverride, (assignment_id, user_id, problem))
    if score is None:
        if row is not None:
            session.delete(row)
            session.flush()
        return None
    if row is None:
        row = ScoreOverride(assignment_id=assignment_id, user_id=user_id, problem=problem)
        session.add(row)
    row.score, row.comment, row.author_id, row.created_at = score, comment, author_id, utcnow()
    session.flush()
    return row


# ---- what credit reads ------------------------------------------------------------------


@dataclass(frozen=True)
class Student:
    id: int
    username: str
    disabled: bool


def students(*, session: Session) -> list[Student]:
    rows = session.execute(
        select(User.id, User.username, User.disabled)
        .where(User.role == Role.STUDENT)
        .order_by(User.username)
    )
    return [Student(i, name, bool(disabled)) for i, name, disabled in rows]


def attempts(
    *,
    session: Session,
    assignment: Assignment,
    until: datetime,
    user_id: int | None = None,
    user_ids: Collection[int] | None = None,
) -> dict[int, list[credit.Attempt]]:
    """user id -> their submissions to the assignment's problems made from its release up
    to `until` (the latest cutoff that matters), as credit reads them. Rejudged
    submissions count as they are judged now (a rejudge does not make a new attempt).
    `user_id` or `user_ids`: of those students only (the index on user id)."""
    slugs = [p.problem for p in assignment.problems]
    if not slugs:
        return {}
    where = [
        Submission.problem.in_(slugs),
        Submission.created_at >= assignment.release_at,
        Submission.created_at <= until,
    ]
    if user_id is not None:
        where.append(Submission.user_id == user_id)
    if user_ids is not None:
        where.append(Submission.user_id.in_(list(user_ids)))
    rows = session.execute(
        select(
            Submission.id,
            Submission.user_id,
            Submission.problem,
            Submission.created_at,
            Submission.status,
            Submission.verdict,
            # As text: parsing each row's JSON was most of the query's time, and few texts
            # differ (a few kinds, a few dozen tests), so each is parsed once (`parsed`).
            COUNTS_TEXT,
        ).where(*where)
    ).all()
    by_tests = {p.problem for p in assignment.problems if p.scoring == Scoring.TESTS}
    # Judged before its counts were stored (none since 0020's backfill, but rows written
    # otherwise may lack them): counted from its test rows.
    unstored = [
        sid
        for sid, _, problem, _, status, _, counts in rows
        if counts is None and status == Status.DONE and problem in by_tests
    ]
    counted = _test_counts(session, unstored)
    parsed: dict[str, dict[str, tuple[int, int]]] = {}
    found: dict[int, list[credit.Attempt]] = defaultdict(list)
    for sid, uid, problem, created_at, status, verdict, text in rows:
        # Held (waiting for an instructor) and queued or running: not judged yet.
        judged = verdict if status == Status.DONE else None
        tests: dict[str, tuple[int, int]] = {}
        if problem in by_tests:  # the other rules read no test counts
            tests = counted.get(sid, {}) if text is None else _parse(parsed, text)
        found[uid].append(credit.Attempt(sid, problem, created_at, judged, tests))
    return dict(found)


def _parse(parsed: dict[str, dict[str, tuple[int, int]]], text: str) -> dict[str, tuple[int, int]]:
    """`test_counts` as credit reads it, parsed once per distinct text (shared: not mutated)."""
    found = parsed.get(text)
    if found is None:
        found = parsed[text] = credit.stored_counts(json.loads(text))
    return found


def _test_counts(session: Session, ids: list[int]) -> dict[int, dict[str, tuple[int, int]]]:
    """submission id -> kind -> (passed, total) over its current judging's test rows."""
    counts: dict[int, dict[str, tuple[int, int]]] = defaultdict(dict)
    for at in range(0, len(ids), ID_BATCH):
        rows = session.execute(
            select(TestRow.submission_id, TestRow.kind, TestRow.verdict)
            .join(
                Submission,
                and_(
                    TestRow.submission_id == Submission.id,
                    TestRow.lease_token == Submission.lease_token,
                ),
            )
            .where(Submission.id.in_(ids[at : at + ID_BATCH]))
            .order_by(TestRow.submission_id)
        )
        for sid, tests in groupby(rows, key=lambda row: row[0]):
            counts[sid] = credit.count_by_kind((kind, verdict) for _, kind, verdict in tests)
    return counts


def assignments_with(*, session: Session, problem: str, now: datetime) -> list[Assignment]:
    """The released assignments that have the problem (a submission's rules and holds)."""
    return list(
        session.scalars(
            select(Assignment)
            .join(AssignmentProblem, AssignmentProblem.assignment_id == Assignment.id)
            .where(AssignmentProblem.problem == problem, Assignment.release_at <= now)
            .order_by(Assignment.id)
        )
    )


def count_attempts(
    *, session: Session, user_id: int, problem: str, since: datetime, until: datetime
) -> int:
    """The student's submissions to the problem made in [since, until] (the progress index)."""
    return (
        session.scalar(
            select(func.count()).where(
                Submission.user_id == user_id,
                Submission.problem == problem,
                Submission.created_at >= since,
                Submission.created_at <= until,
            )
        )
        or 0
    )

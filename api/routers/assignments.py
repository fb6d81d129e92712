"""Assignments: instructors create, edit and delete them, grant extensions, read the
gradebook (JSON, and CSV in the layouts Canvas and Moodle import) and override scores;
students read the released ones with their own deadlines and scores."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter, HTTPException, Response, status
from sqlalchemy.orm import Session

from api import catalog
from api.deps import CurrentUser, Instructor, SessionDep
from api.routers.progress import csv_lines, csv_response
from api.schemas import (
    AssignmentBody,
    AssignmentProblemBody,
    AssignmentPublic,
    DbId,
    ExtensionBody,
    ExtensionPublic,
    GradebookPublic,
    GradebookRow,
    Message,
    MyAssignment,
    OverrideBody,
    ScoreCell,
    Slug,
    Username,
)
from store import repo
from store.credit import is_practice
from store.models import Assignment, Role, User, utcnow
from store.repo import assignments as repo_assignments
from store.repo import gradebook as repo_gradebook

router = APIRouter(tags=["assignments"])

NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": Message}}
INSTRUCTORS: dict[int | str, dict[str, Any]] = {401: {"model": Message}, 403: {"model": Message}}


def assignment_public(a: Assignment) -> AssignmentPublic:
    return AssignmentPublic(
        id=a.id,
        title=a.title,
        release_at=a.release_at,
        due_at=a.due_at,
        late_rule=a.late_rule,  # type: ignore[arg-type]  # stored from the Literal
        late_until=a.late_until,
        late_percent=a.late_percent,
        late_factor=a.late_factor,
        counts=a.counts,  # type: ignore[arg-type]
        feedback=a.feedback,  # type: ignore[arg-type]
        problems=[
            AssignmentProblemBody(
                problem=p.problem,
                points=p.points,
                max_attempts=p.max_attempts,
                scoring=p.scoring,  # type: ignore[arg-type]
                weights=p.weights,
            )
            for p in a.problems
        ],
        points=sum(p.points for p in a.problems),
        created_at=a.created_at,
        updated_at=a.updated_at,
    )


def _invalid(detail: str) -> HTTPException:
    return HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=detail)


def checked(
    session: Session, body: AssignmentBody
) -> tuple[dict[str, Any], list[repo_assignments.ProblemSpec]]:
    """The body's fields and problems, once consistent: times in order, a late window
    with its rule's figure, each problem known (built-in or uploaded) and named once."""
    if body.due_at < body.release_at:
        raise _invalid("the due time is before the release")
    late: dict[str, Any]
    if body.late_rule == "none":
        late = {"late_until": None, "late_percent": None, "late_factor": None}
    else:
        if body.late_until is None or body.late_until <= body.due_at:
            raise _invalid("a late rule needs late_until after the due time")
        if body.late_rule == "per_day" and body.late_percent is None:
            raise _invalid("per_day needs late_percent")
        if body.late_rule == "fixed" and body.late_factor is None:
            raise _invalid("fixed needs late_factor")
        late = {
            "late_until": body.late_until,
            "late_percent": body.late_percent if body.late_rule == "per_day" else None,
            "late_factor": body.late_factor if body.late_rule == "fixed" else None,
        }
    slugs = [p.problem for p in body.problems]
    if len(set(slugs)) != len(slugs):
        raise _invalid("a problem is named twice")
    for slug in slugs:
        catalog.known(session, slug, instructor=True)
    fields = {
        "title": body.title,
        "release_at": body.release_at,
        "due_at": body.due_at,
        "late_rule": body.late_rule,
        "counts": body.counts,
        "feedback": body.feedback,
        **late,
    }
    problems = [
        repo_assignments.ProblemSpec(
            p.problem,
            p.points,
            p.max_attempts,
            p.scoring,
            {str(k): w for k, w in p.weights.items()}
            if p.weights is not None and p.scoring == "tests"
            else None,
        )
        for p in body.problems
    ]
    return fields, problems


def find_assignment(session: Session, assignment_id: int, viewer: User) -> Assignment:
    """404 when there is none, or for a student before its release."""
    found = repo_assignments.get_assignment(session=session, assignment_id=assignment_id)
    if found is None or (viewer.role != Role.INSTRUCTOR and found.release_at > utcnow()):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such assignment")
    return found


def find_student(session: Session, username: str) -> User:
    user = repo.get_user_by_name(session=session, username=username)
    if user is None or user.role != Role.STUDENT:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no student {username!r}")
    return user


@router.get(
    "/assignments", response_model=list[AssignmentPublic], responses={401: {"model": Message}}
)
def list_all(session: SessionDep, viewer: CurrentUser) -> list[AssignmentPublic]:
    """Every assignment for instructors; the released ones for students; by due time."""
    released_by = None if viewer.role == Role.INSTRUCTOR else utcnow()
    return [
        assignment_public(a)
        for a in repo_assignments.list_assignments(session=session, released_by=released_by)
    ]


@router.post(
    "/assignments",
    status_code=status.HTTP_201_CREATED,
    response_model=AssignmentPublic,
    responses={**INSTRUCTORS, 422: {"model": Message}},
)
def create(body: AssignmentBody, session: SessionDep, user: Instructor) -> AssignmentPublic:
    fields, problems = checked(session, body)
    made = repo_assignments.create_assignment(
        session=session, fields=fields, problems=problems, user_id=user.id
    )
    session.commit()
    return assignment_public(made)


def cell_public(cell: repo_gradebook.Cell) -> ScoreCell:
    return ScoreCell(
        problem=cell.problem,
        points=cell.points,
        score=cell.score,
        reason=cell.reason,
        submission_id=cell.submission_id,
        pending=cell.pending,
        attempts=cell.attempts,
        overridden=cell.overridden,
    )


@router.get(
    "/assignments/mine", response_model=list[MyAssignment], responses={401: {"model": Message}}
)
def mine(session: SessionDep, viewer: CurrentUser) -> list[MyAssignment]:
    """The released assignments with the caller's own deadline (an extension's) and
    scores, each with a reason they can read."""
    now = utcnow()
    exts = repo_assignments.user_extensions(session=session, user_id=viewer.id)
    found = []
    for a in repo_assignments.list_assignments(session=session, released_by=now):
        row = repo_gradebook.student_row(
            session=session,
            assignment=a,
            user_id=viewer.id,
            username=viewer.username,
            ext=exts.get(a.id),
        )
        found.append(
            MyAssignment(
                id=a.id,
                title=a.title,
                release_at=a.release_at,
                due_at=row.deadline.due_at,
                cutoff=row.deadline.cutoff,
                extended=row.deadline.extended,
                late_rule=a.late_rule,
                late_percent=a.late_percent,
                late_factor=a.late_factor,
                counts=a.counts,
                feedback=a.feedback,
                open=not is_practice(row.deadline, now),
                points=sum(p.points for p in a.problems),
                total=row.total,
                cells=[cell_public(c) for c in row.cells],
            )
        )
    return found


@router.get(
    "/assignments/{assignment_id}",
    response_model=AssignmentPublic,
    responses={401: {"model": Message}, **NOT_FOUND},
)
def one(assignment_id: DbId, session: SessionDep, viewer: CurrentUser) -> AssignmentPublic:
    return assignment_public(find_assignment(session, assignment_id, viewer))


@router.put(
    "/assignments/{assignment_id}",
    response_model=AssignmentPublic,
    responses={**INSTRUCTORS, **NOT_FOUND, 422: {"model": Message}},
)
def edit(
    assignment_id: DbId, body: AssignmentBody, session: SessionDep, user: Instructor
) -> AssignmentPublic:
    """Replace the assignment (its problems too); scores follow at once (its cached
    gradebook is computed again)."""
    found = find_assignment(session, assignment_id, user)
    fields, problems = checked(session, body)
    repo_assignments.update_assignment(
        session=session, assignment=found, fields=fields, problems=problems
    )
    session.commit()
    return assignment_public(found)


@router.delete(
    "/assignments/{assignment_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**INSTRUCTORS, **NOT_FOUND},
)
def remove(assignment_id: DbId, session: SessionDep, user: Instructor) -> Response:
    """Delete the assignment, its extensions and overrides (the submissions stay)."""
    repo_assignments.delete_assignment(
        session=session, assignment=find_assignment(session, assignment_id, user)
    )
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# ---- extensions ---------------------------------------------------------------------------


@router.get(
    "/assignments/{assignment_id}/extensions",
    response_model=list[ExtensionPublic],
    responses={**INSTRUCTORS, **NOT_FOUND},
)
def list_extensions(
    assignment_id: DbId, session: SessionDep, user: Instructor
) -> list[ExtensionPublic]:
    found = find_assignment(session, assignment_id, user)
    return [
        ExtensionPublic(
            user=name,
            due_at=ext.due_at,
            late_until=ext.late_until,
            cutoff=repo_assignments.deadline_for(found, ext).cutoff,
            reason=ext.reason,
            granted_by=by,
            granted_at=ext.granted_at,
        )
        for ext, name, by in repo_assignments.extensions(session=session, assignment_id=found.id)
    ]


@router.put(
    "/assignments/{assignment_id}/extensions/{username}",
    response_model=ExtensionPublic,
    responses={**INSTRUCTORS, **NOT_FOUND, 422: {"model": Message}},
)
def grant(
    assignment_id: DbId,
    username: Username,
    body: ExtensionBody,
    session: SessionDep,
    user: Instructor,
) -> ExtensionPublic:
    """Give one student their own due time (and late window's end), with why: kept with
    who granted it. Granting again replaces it."""
    found = find_assignment(session, assignment_id, user)
    student = find_student(session, username)
    if body.late_until is not None and body.late_until < body.due_at:
        raise _invalid("late_until is before the due time")
    ext = repo_assignments.set_extension(
        session=session,
        assignment_id=found.id,
        user_id=student.id,
        due_at=body.due_at,
        late_until=body.late_until,
        reason=body.reason,
        granted_by=user.id,
    )
    session.commit()
    return ExtensionPublic(
        user=student.username,
        due_at=ext.due_at,
        late_until=ext.late_until,
        cutoff=repo_assignments.deadline_for(found, ext).cutoff,
        reason=ext.reason,
        granted_by=user.username,
        granted_at=ext.granted_at,
    )


@router.delete(
    "/assignments/{assignment_id}/extensions/{username}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={**INSTRUCTORS, **NOT_FOUND},
)
def revoke(
    assignment_id: DbId, username: Username, session: SessionDep, user: Instructor
) -> Response:
    found = find_assignment(session, assignment_id, user)
    student = find_student(session, username)
    if not repo_assignments.delete_extension(
        session=session, assignment_id=found.id, user_id=student.id
    ):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such extension")
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# ---- the gradebook ------------------------------------------------------------------------


def row_public(row: repo_gradebook.Row) -> GradebookRow:
    return GradebookRow(
        user=row.username,
        disabled=row.disabled,
        due_at=row.deadline.due_at,
        cutoff=row.deadline.cutoff,
        extended=row.deadline.extended,
        total=row.total,
        cells=[cell_public(c) for c in row.cells],
    )


@router.get(
    "/assignments/{assignment_id}/gradebook",
    response_model=GradebookPublic,
    responses={**INSTRUCTORS, **NOT_FOUND},
)
def gradebook(assignment_id: DbId, session: SessionDep, user: Instructor) -> Response:
    """One row per student: their deadline, per problem the score and its reason (an
    override's with its author and comment), and the total."""
    found = find_assignment(session, assignment_id, user)
    body = repo_gradebook.rendered(session=session, assignment=found, render=GRADEBOOK_JSON)
    return Response(body, media_type="application/json")


def gradebook_json(assignment: Assignment, rows: list[repo_gradebook.Row]) -> bytes:
    """The gradebook's body in one piece: what GRADEBOOK_JSON assembles row by row."""
    body = GradebookPublic(
        assignment=assignment_public(assignment), rows=[row_public(r) for r in rows]
    )
    return body.model_dump_json().encode()


_NO_ROWS = b'"rows":[]}'


def _gradebook_frame(assignment: Assignment) -> tuple[bytes, bytes]:
    """The body around its rows: GradebookPublic's JSON with none, cut inside the list."""
    empty = gradebook_json(assignment, [])
    assert empty.endswith(_NO_ROWS), "GradebookPublic's rows come last"
    return empty[: -len(b"]}")], b"]}"


def _gradebook_row(row: repo_gradebook.Row) -> bytes:
    return row_public(row).model_dump_json().encode()


# The body serialized here (FastAPI would dump and validate the 2,000 rows again), row by
# row, and kept by the store until the credit or the roster changes: after a change only
# the changed rows are encoded again. Byte for byte gradebook_json's (its tests say so).
GRADEBOOK_JSON = repo_gradebook.Render(frame=_gradebook_frame, row=_gradebook_row)


@router.put(
    "/assignments/{assignment_id}/scores/{username}/{problem}",
    response_model=GradebookRow,
    responses={**INSTRUCTORS, **NOT_FOUND, 422: {"model": Message}},
)
def override(
    assignment_id: DbId,
    username: Username,
    problem: Slug,
    body: OverrideBody,
    session: SessionDep,
    user: Instructor,
) -> GradebookRow:
    """Set one student's score on one problem, with a comment (kept with its author);
    `score` null goes back to the computed one. Answers the student's new row."""
    found = find_assignment(session, assignment_id, user)
    student = find_student(session, username)
    if problem not in {p.problem for p in found.problems}:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"{problem} is not in it")
    repo_assignments.set_override(
        session=session,
        assignment_id=found.id,
        user_id=student.id,
        problem=problem,
        score=body.score,
        comment=body.comment,
        author_id=user.id,
    )
    session.commit()
    row = repo_gradebook.student_row(
        session=session,
        assignment=found,
        user_id=student.id,
        username=student.username,
        ext=repo_assignments.user_extensions(session=session, user_id=student.id).get(found.id),
    )
    return row_public(row)


# ---- CSV exports --------------------------------------------------------------------------


def _score(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _all_books(session: Session) -> tuple[list[Assignment], dict[int, dict[int, float]]]:
    """Every assignment (by due time) and user id -> assignment id -> total."""
    found = repo_assignments.list_assignments(session=session)
    totals: dict[int, dict[int, float]] = {}
    for a in found:
        for row in repo_gradebook.gradebook(session=session, assignment=a):
            totals.setdefault(row.user_id, {})[a.id] = row.total
    return found, totals


def _column(a: Assignment) -> str:
    return f"{a.title} ({a.id})"


CSV_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}}},
    **INSTRUCTORS,
}


@router.get("/gradebook.canvas.csv", response_class=Response, responses=CSV_RESPONSES)
def canvas_csv(session: SessionDep, user: Instructor) -> Response:
    """Every assignment's totals in the layout Canvas's gradebook import reads: Student,
    ID, SIS User ID, SIS Login ID, Section, then "Title (id)" per assignment, a "Points
    Possible" row first. Students are matched by SIS Login ID (the username here)."""
    found, totals = _all_books(session)
    rows: list[Iterable[object]] = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *map(_column, found)],
        [
            "Points Possible",
            "",
            "",
            "",
            "",
            *(_score(sum(p.points for p in a.problems)) for a in found),
        ],
    ]
    for student in repo_assignments.students(session=session):
        mine = totals.get(student.id, {})
        rows.append(
            [
                student.username,
                "",
                "",
                student.username,
                "",
                *(_score(mine.get(a.id, 0.0)) for a in found),
            ]
        )
    return csv_response(csv_lines(rows), "gradebook-canvas.csv")


@router.get("/gradebook.moodle.csv", response_class=Response, responses=CSV_RESPONSES)
def moodle_csv(session: SessionDep, user: Instructor) -> Response:
    """Every assignment's totals as Moodle's grade import reads them: "Username" (map it
    to the username field), then "Title (id)" per assignment."""
    found, totals = _all_books(session)
    rows: list[Iterable[object]] = [["Username", *map(_column, found)]]
    for student in repo_assignments.students(session=session):
        mine = totals.get(student.id, {})
        rows.append([student.username, *(_score(mine.get(a.id, 0.0)) for a in found)])
    return csv_response(csv_lines(rows), "gradebook-moodle.csv")

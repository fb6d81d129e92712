"""The instructors' gradebook: the course's progress table (JSON and CSV) and the
submission list as CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from api import catalog
from api.deps import Instructor, SessionDep
from api.schemas import (
    Message,
    ProgressCell,
    ProgressPublic,
    ProgressRow,
    Slug,
    Username,
    UtcDatetime,
)
from judge.verdict import Verdict
from store import repo
from store.repo.course_progress import course_progress

router = APIRouter(tags=["course"])

EXPORT_PAGE = 1000  # rows read per query while a CSV is written


def csv_cell(value: object) -> str:
    """A value for a spreadsheet: text that a spreadsheet would run as a formula is quoted
    with a leading apostrophe (usernames may start with "-")."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_lines(rows: Iterable[Iterable[object]]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def csv_response(lines: Iterator[str], filename: str) -> Response:
    return Response(
        "".join(lines),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def progress_public(session) -> ProgressPublic:
    # Every problem students see (hidden ones are left out, their cells too).
    slugs = list(catalog.shown(session))
    rows = []
    for student in course_progress(session=session):
        cells = {
            slug: ProgressCell(attempts=cell.attempts, verdict=cell.verdict, first_ac=cell.first_ac)
            for slug, cell in student.cells.items()
            if slug in slugs
        }
        rows.append(
            ProgressRow(
                user=student.username,
                disabled=student.disabled,
                solved=sum(1 for c in cells.values() if c.verdict == Verdict.AC),
                problems=cells,
            )
        )
    return ProgressPublic(problems=slugs, students=rows)


@router.get(
    "/progress",
    response_model=ProgressPublic,
    responses={401: {"model": Message}, 403: {"model": Message}},
)
def progress(session: SessionDep, user: Instructor) -> ProgressPublic:
    """One row per student, one cell per problem they submitted to: the best verdict of a
    graded submission (AC best, IE last), attempts (all submissions) and when the first
    accepted one was made. Students who never submitted have no cells."""
    return progress_public(session)


@router.get(
    "/progress.csv",
    response_class=Response,
    responses={
        200: {"content": {"text/csv": {"schema": {"type": "string"}}}},
        401: {"model": Message},
        403: {"model": Message},
    },
)
def progress_csv(session: SessionDep, user: Instructor) -> Response:
    """The progress table as CSV: username, solved, then per problem its best verdict,
    attempts and first AC (ISO 8601, UTC)."""
    table = progress_public(session)
    header: list[object] = ["username", "disabled", "solved"]
    for slug in table.problems:
        header += [f"{slug} verdict", f"{slug} attempts", f"{slug} first AC"]
    rows: list[list[object]] = [header]
    for student in table.students:
        row: list[object] = [student.user, "yes" if student.disabled else "no", student.solved]
        for slug in table.problems:
            cell = student.problems.get(slug)
            row += [cell.verdict, cell.attempts, cell.first_ac] if cell else ["", 0, ""]
        rows.append(row)
    return csv_response(csv_lines(rows), "progress.csv")


SUBMISSION_HEADER = (
    "id",
    "username",
    "problem",
    "language",
    "style",
    "status",
    "verdict",
    "passed",
    "total",
    "max_time_ms",
    "peak_memory_kb",
    "created_at",
    "finished_at",
)


@router.get(
    "/submissions.csv",
    response_class=Response,
    tags=["submissions"],
    responses={
        200: {"content": {"text/csv": {"schema": {"type": "string"}}}},
        401: {"model": Message},
        403: {"model": Message},
    },
)
def submissions_csv(
    session: SessionDep,
    user: Instructor,
    problem: Slug | None = None,
    verdict: Verdict | None = None,
    language: Annotated[str | None, Query(max_length=32)] = None,
    username: Annotated[Username | None, Query(alias="user")] = None,
    since: Annotated[UtcDatetime | None, Query(description="created at or after")] = None,
    until: Annotated[UtcDatetime | None, Query(description="created before")] = None,
) -> Response:
    """Every submission matching the filters (those of GET /submissions), newest first, as
    CSV; read page by page (keyset) from the history's indexes."""

    def page_after(after: repo.Position | None) -> repo.SubmissionList:
        return repo.list_submissions(
            session=session,
            limit=EXPORT_PAGE,
            count_cap=0,
            after=after,
            problem=problem,
            verdict=verdict.value if verdict else None,
            language=language,
            username=username,
            since=since,
            until=until,
        )

    def rows() -> Iterator[Iterable[object]]:
        yield SUBMISSION_HEADER
        page = page_after(None)
        while True:
            for item in page.items:
                # A compile error ran no test: empty cells, not a pass count or time of 0.
                ran = item.verdict != "CE"
                yield (
                    item.id,
                    item.user,
                    item.problem,
                    item.language,
                    item.style,
                    item.status,
                    item.verdict,
                    item.passed if ran else None,
                    item.total if ran else None,
                    item.max_time_ms if ran else None,
                    item.peak_memory_kb if ran else None,
                    item.created_at,
                    item.finished_at,
                )
            if not page.older or not page.items:
                return
            last = page.items[-1]
            page = page_after(repo.Position(last.created_at, last.id))

    # Written out before the response starts: the session is the request's, and it ends
    # when this function returns (a course's 200,000 rows make about 20 MB).
    return csv_response(csv_lines(rows()), "submissions.csv")

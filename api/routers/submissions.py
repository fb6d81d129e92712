"""Submitting, reading results (detail, history, live events) and rejudging."""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter, ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import UploadFile

from api.deps import (
    CurrentUser,
    EnqueueDep,
    Instructor,
    SessionDep,
    SettingsDep,
    get_current_user,
    oauth2_scheme,
    too_many,
)
from api.routers.problems import find_problem
from api.schemas import (
    DbId,
    HeldSubmission,
    JudgingPublic,
    Message,
    RejudgeQueued,
    Slug,
    SubmissionCreate,
    SubmissionPage,
    SubmissionPublic,
    SubmissionQueued,
    SubmissionSummary,
    TestPublic,
    Username,
    UtcDatetime,
)
from judge import problems
from judge.verdict import HIDDEN_FIELDS_FOR_STUDENTS, TestKind, Verdict, shown_to_student
from store import repo
from store.models import Priority, Role, Status, Submission, TestRow, User

router = APIRouter(tags=["submissions"])
_DB_ID = TypeAdapter(DbId)

IE_FOR_STUDENTS = "The judge failed on this submission (not your fault); it has been logged."


# ---- reading a submission body: JSON or a multipart .py upload ---------------------------


@dataclass
class SubmissionBody:
    problem: str
    source: str | bytes  # bytes when uploaded as a file (decoded and checked later)


def _invalid(loc: tuple[str, ...], message: str) -> RequestValidationError:
    return RequestValidationError(
        [{"type": "value_error", "loc": loc, "msg": message, "input": None}]
    )


async def read_submission_body(request: Request, settings: SettingsDep) -> SubmissionBody:
    content_type = request.headers.get("content-type", "")
    if content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        form = await request.form(max_files=1, max_fields=4)
        problem, upload = form.get("problem"), form.get("file")
        if not isinstance(problem, str):
            raise _invalid(("body", "problem"), "field required: problem")
        if isinstance(upload, UploadFile):
            source: str | bytes = await upload.read(settings.max_source_bytes + 1)
        elif isinstance(text := form.get("source"), str):
            source = text
        else:
            raise _invalid(("body", "file"), "field required: file (the .py upload)")
        return SubmissionBody(problem=problem[:64], source=source)
    if content_type.split(";")[0].strip() not in ("application/json", ""):
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            detail="send JSON {problem, source} or a multipart file upload",
        )
    try:
        payload = json.loads(await request.body())
        body = SubmissionCreate.model_validate(payload)
    except ValueError as exc:  # JSONDecodeError and ValidationError are both ValueErrors
        errors = exc.errors() if isinstance(exc, ValidationError) else None
        raise RequestValidationError(
            [{k: v for k, v in e.items() if k in ("type", "loc", "msg")} for e in errors]
            if errors
            else [{"type": "json_invalid", "loc": ("body",), "msg": str(exc)}]
        ) from exc
    return SubmissionBody(problem=body.problem, source=body.source)


SUBMISSION_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": SubmissionCreate.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["problem", "file"],
                    "properties": {
                        "problem": {"type": "string"},
                        "file": {"type": "string", "format": "binary"},
                    },
                }
            },
        },
    }
}


def checked_source(body: SubmissionBody, limit: int) -> str:
    raw = body.source
    try:
        data = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates from JSON \ud800 escapes
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, detail="source is not valid UTF-8 text"
        ) from exc
    if len(data) > limit:
        raise HTTPException(
            status.HTTP_413_CONTENT_TOO_LARGE, detail=f"source is larger than {limit} bytes"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"source is not valid UTF-8 (byte {exc.start})",
        ) from exc
    if "\0" in text:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, detail="source contains a NUL character"
        )
    return text


# ---- presenting ---------------------------------------------------------------------------


def _summary_fields(sub: Submission) -> dict[str, Any]:
    return {
        "id": sub.id,
        "user": sub.user.username,
        "problem": sub.problem,
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
    )


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
        tests=tests_public(sub, repo.current_tests(session=session, submission=sub), viewer),
        history=[
            JudgingPublic.model_validate(j, from_attributes=True)
            for j in repo.judgings(session=session, submission_id=sub.id)
        ],
    )


def visible_submission(session: Session, submission_id: int, viewer: User) -> Submission:
    """The submission if the viewer may see it; 404 otherwise (no hint that it exists)."""
    sub = repo.get_submission(session=session, submission_id=submission_id)
    if sub is None or (viewer.role != Role.INSTRUCTOR and sub.user_id != viewer.id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such submission")
    return sub


# ---- endpoints ----------------------------------------------------------------------------


@router.post(
    "/submissions",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=SubmissionQueued,
    openapi_extra=SUBMISSION_BODY,
    responses={
        401: {"model": Message},
        413: {"model": Message},
        415: {"model": Message},
        429: {"model": Message},
    },
)
def submit(
    user: CurrentUser,  # first: an anonymous request gets 401 before its body is read
    body: Annotated[SubmissionBody, Depends(read_submission_body)],
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    enqueue: EnqueueDep,
) -> SubmissionQueued:
    """Submit a solution as JSON {problem, source} or as a multipart .py file upload.

    Answers 202 at once; follow GET /submissions/{id} or its /events stream for the verdict.
    """
    source = checked_source(body, settings.max_source_bytes)
    if body.problem not in problems.registry():
        known = ", ".join(problems.registry())
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"unknown problem {body.problem!r} (known: {known})",
        )
    try:
        sub = repo.create_submission_limited(
            session=session,
            user_id=user.id,
            problem=body.problem,
            source=source,
            seed=secrets.randbelow(2**31),
            per_minute=settings.submit_rate_per_minute,
            max_unfinished=settings.max_queued_per_user,
        )
    except repo.RateLimited as exc:
        raise too_many(exc) from exc
    session.commit()  # committed before it is enqueued: the worker must find the row
    enqueue(sub.id, priority=Priority.LIVE)  # a failure is logged; the sweeper sends it later
    response.headers["Location"] = f"/api/v1/submissions/{sub.id}"
    return SubmissionQueued.model_validate(sub, from_attributes=True)


# A history cursor: "o" (the page older than) or "n" (newer than) a row, as
# <direction>.<created_at in microseconds since the epoch>.<id>. Opaque to clients.
CURSOR = re.compile(r"^([on])\.(\d{1,17})\.(\d{1,10})$")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def make_cursor(direction: str, created_at: datetime, submission_id: int) -> str:
    micros = (created_at - EPOCH) // timedelta(microseconds=1)
    return f"{direction}.{micros}.{submission_id}"


def read_cursor(cursor: str) -> tuple[str, repo.Position]:
    match = CURSOR.match(cursor)
    try:
        if match is None:
            raise ValueError(cursor)
        created_at = EPOCH + timedelta(microseconds=int(match[2]))
        position = repo.Position(created_at, _DB_ID.validate_python(int(match[3])))
    except (ValueError, OverflowError, ValidationError) as exc:
        raise _invalid(("query", "cursor"), "not a cursor this API gave out") from exc
    return match[1], position


@router.get(
    "/submissions",
    response_model=SubmissionPage,
    responses={401: {"model": Message}, 403: {"model": Message}},
)
def history(
    session: SessionDep,
    viewer: CurrentUser,
    problem: Slug | None = None,
    verdict: Verdict | None = None,
    user: Annotated[Username | None, Query(description="username (instructors)")] = None,
    since: Annotated[UtcDatetime | None, Query(description="created at or after")] = None,
    until: Annotated[UtcDatetime | None, Query(description="created before")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[
        int, Query(ge=0, le=1_000_000, description="rows to skip (slow when deep: use cursor)")
    ] = 0,
    cursor: Annotated[
        str | None,
        Query(max_length=40, description="next_cursor or prev_cursor of a page (not with offset)"),
    ] = None,
) -> SubmissionPage:
    """Submissions, newest first: your own, or everyone's for instructors.

    Page with `next_cursor` (older) and `prev_cursor` (newer); `total` counts the matching
    rows up to a cap (`total_exact` is false beyond it)."""
    user_id = None
    if viewer.role != Role.INSTRUCTOR:
        if user is not None and user != viewer.username:
            raise HTTPException(
                status.HTTP_403_FORBIDDEN, detail="students see only their own submissions"
            )
        user_id, user = viewer.id, None
    after = before = None
    if cursor is not None:
        if offset:
            raise _invalid(("query", "cursor"), "give a cursor or an offset, not both")
        direction, position = read_cursor(cursor)
        after, before = (position, None) if direction == "o" else (None, position)
    page = repo.list_submissions(
        session=session,
        user_id=user_id,
        username=user,
        problem=problem,
        verdict=verdict.value if verdict else None,
        since=since,
        until=until,
        limit=limit,
        offset=offset,
        after=after,
        before=before,
    )
    items = [SubmissionSummary.model_validate(row, from_attributes=True) for row in page.items]
    first, last = (page.items[0], page.items[-1]) if page.items else (None, None)
    return SubmissionPage(
        items=items,
        total=page.total,
        total_exact=page.total_exact,
        limit=limit,
        offset=offset,
        next_cursor=make_cursor("o", last.created_at, last.id) if last and page.older else None,
        prev_cursor=make_cursor("n", first.created_at, first.id) if first and page.newer else None,
    )


@router.get(
    "/submissions/held",
    response_model=list[HeldSubmission],
    responses={401: {"model": Message}, 403: {"model": Message}},
)
def held(session: SessionDep, user: Instructor) -> list[HeldSubmission]:
    """Submissions held for review (instructors), oldest first, at most 200: their grading
    was interrupted JUDGE_MAX_ATTEMPTS times (workers killed, the database or the sandbox
    failing). Each gets a verdict once rejudged."""
    return [
        HeldSubmission.model_validate(row, from_attributes=True)
        for row in repo.held_submissions(session=session)
    ]


@router.get(
    "/submissions/{submission_id}",
    response_model=SubmissionPublic,
    responses={401: {"model": Message}, 404: {"model": Message}},
)
def detail(submission_id: DbId, session: SessionDep, viewer: CurrentUser) -> SubmissionPublic:
    return submission_public(session, visible_submission(session, submission_id, viewer), viewer)


def stream_viewer(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    token: Annotated[str | None, Depends(oauth2_scheme)],
) -> User:
    """The viewer of an event stream, authenticated and checked in one threadpool call.

    Not CurrentUser: each sync dependency is its own threadpool call, and a session holding
    its connection while waiting for a thread deadlocks with threads waiting for a connection
    when many streams (re)connect at once. The connection goes back at the session's teardown.
    401 comes before 422 as elsewhere: an invalid id is left to the endpoint's validation."""
    viewer = get_current_user(session, settings, token)
    try:
        submission_id = _DB_ID.validate_python(request.path_params.get("submission_id"))
    except ValidationError:
        return viewer
    visible_submission(session, submission_id, viewer)
    return viewer


@router.get(
    "/submissions/{submission_id}/events",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
            "description": "events: status, test (one per finished test), done",
        },
        401: {"model": Message},
        404: {"model": Message},
        429: {"model": Message},
    },
)
async def events(
    submission_id: DbId, request: Request, viewer: Annotated[User, Depends(stream_viewer)]
) -> Response:
    """Server-Sent Events: `status` on each change, `test` per finished test, then `done`
    with the whole result (the same body as GET /submissions/{id}), and the stream ends.

    Students get the hidden tests' events just before `done`. At most JUDGE_EVENTS_PER_USER
    streams per user are open at once; one more gets 429 with Retry-After."""
    return request.app.state.events.response(submission_id, viewer)


@router.post(
    "/submissions/{submission_id}/rejudge",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RejudgeQueued,
    responses={401: {"model": Message}, 403: {"model": Message}, 404: {"model": Message}},
)
def rejudge_one(
    submission_id: DbId, session: SessionDep, user: Instructor, enqueue: EnqueueDep
) -> RejudgeQueued:
    """Judge again (low priority); the previous verdict stays in the history."""
    visible_submission(session, submission_id, user)
    ids = repo.rejudge(session=session, submission_ids=[submission_id])
    session.commit()
    for sid in ids:
        enqueue(sid, priority=Priority.REJUDGE)
    return RejudgeQueued(queued=ids)


@router.post(
    "/problems/{slug}/rejudge",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RejudgeQueued,
    tags=["problems"],
    responses={401: {"model": Message}, 403: {"model": Message}, 404: {"model": Message}},
)
def rejudge_problem(
    slug: str, session: SessionDep, user: Instructor, enqueue: EnqueueDep
) -> RejudgeQueued:
    """Rejudge every submission of a problem on the low-priority queue."""
    find_problem(slug)
    ids = repo.rejudge(session=session, problem=slug)
    session.commit()
    for sid in ids:
        enqueue(sid, priority=Priority.REJUDGE)
    return RejudgeQueued(queued=ids)

"""Submitting, reading results (detail, history) and rejudging. The live events of a
submission are in `submission_events`; parsing in `api.submission_input`, presenting in
`api.presenters`."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Response, status

from api import assignment_rules, catalog
from api.deps import (
    CurrentUser,
    EnqueueDep,
    Instructor,
    SessionDep,
    SettingsDep,
    find_submission,
    too_many,
)
from api.offered_languages import choose
from api.presenters import students_view, submission_public, summary_public
from api.routers.problems import find_problem
from api.routers.regrades import apply_preview
from api.schemas import (
    DbId,
    HeldSubmission,
    Message,
    RejudgeQueued,
    RejudgeRequest,
    Slug,
    SubmissionPage,
    SubmissionPublic,
    SubmissionQueued,
    Username,
    UtcDatetime,
)
from api.submission_input import (
    SUBMISSION_BODY,
    HistoryCursor,
    SubmissionBody,
    checked_source,
    invalid,
    read_submission_body,
)
from judge.verdict import Verdict
from store import repo
from store.models import Priority, Role

router = APIRouter(tags=["submissions"])


@router.post(
    "/submissions",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=SubmissionQueued,
    openapi_extra=SUBMISSION_BODY,
    responses={
        401: {"model": Message},
        409: {"model": Message},
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
    """Submit a solution as JSON {problem, source, language, style} or as a multipart file
    upload (its language from the file name: .py, .cpp/.cc, .java, .kt, unless `language` is
    given). `language` defaults to python and `style` to function; a language not installed
    here or a style the problem does not offer gets 422 naming the offered ones.

    Answers 202 at once; follow GET /submissions/{id} or its /events stream for the verdict.
    `practice` says the submission counts for nothing (past the student's cutoff of every
    assignment with the problem); while an assignment is open, a submission beyond its
    attempt limit gets 409.
    """
    source = checked_source(body, settings.max_source_bytes)
    module = catalog.open_for_work(session, body.problem, user.role == Role.INSTRUCTOR)
    choice = choose(module, body.language, body.style, body.filename)
    practice = assignment_rules.check_submit(session, user, body.problem)  # 409 at a limit
    try:
        sub = repo.create_submission_limited(
            session=session,
            user_id=user.id,
            problem=body.problem,
            source=source,
            language=choice.language.name,
            style=choice.style.value,
            seed=secrets.randbelow(2**31),
            per_minute=settings.submit_rate_per_minute,
            max_unfinished=settings.max_queued_per_user,
        )
    except repo.RateLimited as exc:
        raise too_many(exc) from exc
    session.commit()  # committed before it is enqueued: the worker must find the row
    enqueue(sub.id, priority=Priority.LIVE)  # a failure is logged; the sweeper sends it later
    response.headers["Location"] = f"/api/v1/submissions/{sub.id}"
    queued = SubmissionQueued.model_validate(sub, from_attributes=True)
    return queued.model_copy(update={"practice": practice is not None, "practice_note": practice})


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
    language: Annotated[
        str | None, Query(max_length=32, description="a language's name: python, cpp, ...")
    ] = None,
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
    """Submissions, newest first: your own, or everyone's for instructors. A student's
    verdict, passed and total are those they are shown (and `verdict=` filters by them).

    Page with `next_cursor` (older) and `prev_cursor` (newer); `total` counts the matching
    rows up to a cap (`total_exact` is false beyond it)."""
    user_id = None
    view = students_view(session, user_id=None if viewer.role == Role.INSTRUCTOR else viewer.id)
    if viewer.role != Role.INSTRUCTOR:
        if user is not None and user != viewer.username:
            raise HTTPException(
                status.HTTP_403_FORBIDDEN, detail="students see only their own submissions"
            )
        user_id, user = viewer.id, None
    after = before = None
    if cursor is not None:
        if offset:
            raise invalid(("query", "cursor"), "give a cursor or an offset, not both")
        at = HistoryCursor.parse(cursor)
        after, before = (at.position, None) if at.older else (None, at.position)
    page = repo.list_submissions(
        session=session,
        user_id=user_id,
        username=user,
        problem=problem,
        verdict=verdict.value if verdict else None,
        language=language,
        since=since,
        until=until,
        limit=limit,
        offset=offset,
        after=after,
        before=before,
        as_student=None if viewer.role == Role.INSTRUCTOR else view,
    )
    items = [summary_public(row, viewer, view) for row in page.items]
    first, last = (page.items[0], page.items[-1]) if page.items else (None, None)
    return SubmissionPage(
        items=items,
        total=page.total,
        total_exact=page.total_exact,
        limit=limit,
        offset=offset,
        next_cursor=str(HistoryCursor.of(last, older=True)) if last and page.older else None,
        prev_cursor=str(HistoryCursor.of(first, older=False)) if first and page.newer else None,
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
def detail(
    submission_id: DbId, session: SessionDep, viewer: CurrentUser, settings: SettingsDep
) -> SubmissionPublic:
    sub = find_submission(session, submission_id, viewer)
    return submission_public(session, sub, viewer, heartbeat_stale_s=settings.heartbeat_stale_s)


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
    find_submission(session, submission_id, user)
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
    responses={
        401: {"model": Message},
        403: {"model": Message},
        404: {"model": Message},
        409: {"model": Message},
    },
)
def rejudge_problem(
    slug: str,
    session: SessionDep,
    user: Instructor,
    enqueue: EnqueueDep,
    body: RejudgeRequest | None = None,
) -> RejudgeQueued:
    """Rejudge every submission of a problem on the low-priority queue. With `{"preview":
    key}` (POST /problems/{slug}/rejudge/preview): only those whose result that ready
    preview changes, the assignment scores they replace kept (GET /assignments/{id}/
    regrades); 409 when it is not ready or not of the submissions and boards as they are."""
    find_problem(slug, session, instructor=True)
    if body is not None:
        ids = apply_preview(session, slug, body.preview, user.id)
    else:
        ids = repo.rejudge(session=session, problem=slug)
    session.commit()
    for sid in ids:
        enqueue(sid, priority=Priority.REJUDGE)
    return RejudgeQueued(queued=ids)

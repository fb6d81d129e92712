"""Runs: a source on the problem's samples or on the student's own cases, not a submission.

POST /runs answers 202 at once; the run lane's worker carries it out (worker/runs.py) and
GET /runs/{id} or its /events stream give the results. A run is never graded, never in the
history, the statistics or the course's progress, and its rate is its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Response, status
from fastapi.responses import StreamingResponse
from sqlalchemy.orm import Session

from api import catalog
from api.deps import (
    CurrentUser,
    EnqueueRunDep,
    ServicesDep,
    SessionDep,
    SettingsDep,
    find_run,
    stream_viewer,
    too_many,
)
from api.events import Feed
from api.offered_languages import choose
from api.routers.problems import validated_case
from api.schemas import (
    MAX_RUN_CASES,
    DbId,
    Message,
    RunCasePublic,
    RunCreate,
    RunPublic,
    RunQueued,
)
from api.submission_input import SubmissionBody, checked_source
from judge import problems
from store import repo
from store.models import Role, Run, RunStatus, User

router = APIRouter(tags=["runs"])


def checked_cases(module: problems.ProblemSpec, cases: list[Any] | None) -> list[Any] | None:
    """The student's cases, each accepted by the problem (422 with its message otherwise);
    None for the samples."""
    if cases is None:
        return None
    if not cases:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail="no cases: leave `cases` out to run the samples",
        )
    if len(cases) > MAX_RUN_CASES:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"at most {MAX_RUN_CASES} cases per run (got {len(cases)})",
        )
    where = "" if len(cases) == 1 else "case {}: "
    return [validated_case(module, case, where.format(n)) for n, case in enumerate(cases, 1)]


def run_public(run: Run) -> RunPublic:
    return RunPublic(
        id=run.id,
        problem=run.problem,
        language=run.language,
        style=run.style,
        status=RunStatus(run.status),
        outcome=run.outcome,
        message=run.message,
        results=[RunCasePublic.model_validate(entry) for entry in run.results or []],
        created_at=run.created_at,
        started_at=run.started_at,
        finished_at=run.finished_at,
    )


@router.post(
    "/runs",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RunQueued,
    responses={
        401: {"model": Message},
        413: {"model": Message},
        422: {"model": Message},
        429: {"model": Message},
    },
)
def start_run(
    user: CurrentUser,  # first: an anonymous request gets 401 before its body is checked
    body: RunCreate,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    enqueue_run: EnqueueRunDep,
) -> RunQueued:
    """Run a source on the problem's samples, or on up to 10 cases of your own (each checked
    by the problem like a hidden board), without submitting it.

    Answers 202 at once; follow GET /runs/{id} or its /events stream for the results: per
    case the answer, the expected answer and verdict, time, memory, what it printed (capped)
    and any error with its traceback."""
    source = checked_source(SubmissionBody(body.problem, body.source), settings.max_source_bytes)
    module = catalog.open_for_work(session, body.problem, user.role == Role.INSTRUCTOR)
    choice = choose(module, body.language, body.style)
    cases = checked_cases(module, body.cases)
    try:
        run = repo.create_run_limited(
            session=session,
            user_id=user.id,
            problem=body.problem,
            source=source,
            cases=cases,
            per_minute=settings.run_rate_per_minute,
            language=choice.language.name,
            style=choice.style.value,
        )
    except repo.RateLimited as exc:
        raise too_many(exc) from exc
    session.commit()  # committed before it is enqueued: the worker must find the row
    enqueue_run(run.id)  # a failure is logged; the sweeper ends the run with a message
    response.headers["Location"] = f"/api/v1/runs/{run.id}"
    return RunQueued(id=run.id, status=RunStatus(run.status))


@router.get(
    "/runs/{run_id}",
    response_model=RunPublic,
    responses={401: {"model": Message}, 404: {"model": Message}},
)
def run_detail(run_id: DbId, session: SessionDep, viewer: CurrentUser) -> RunPublic:
    """A run with the results of its cases so far (its owner's, or any for instructors)."""
    return run_public(find_run(session, run_id, viewer))


# ---- the live stream -----------------------------------------------------------------------


def _read(
    session: Session, cursors: Mapping[int, repo.ProgressCursor | None]
) -> list[repo.Progress]:
    return repo.run_progress(session=session, cursors=cursors)


def _finished(status: str) -> bool:
    return status in (RunStatus.DONE, RunStatus.ERROR)


def _present_case(case: repo.RunCase, viewer: User) -> Any:
    return RunCasePublic.model_validate(case.data).model_dump(mode="json")


def _present_run(session: Session, run_id: int, viewer: User) -> Any:
    run = session.get(Run, run_id)
    return None if run is None else run_public(run).model_dump(mode="json")


FEED = Feed(
    name="runs",
    read=_read,
    finished=_finished,
    present_item=_present_case,
    present_done=_present_run,
    item_event="case",
)

run_viewer = stream_viewer("run_id", find_run)


@router.get(
    "/runs/{run_id}/events",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
            "description": "events: status, case (one per finished case), done",
        },
        401: {"model": Message},
        404: {"model": Message},
        429: {"model": Message},
    },
)
async def run_events(
    run_id: DbId, services: ServicesDep, viewer: Annotated[User, Depends(run_viewer)]
) -> Response:
    """Server-Sent Events, as for a submission: `status` on each change, `case` per finished
    case, then `done` with the same body as GET /runs/{id}, and the stream ends. The streams
    of runs and submissions count together against JUDGE_EVENTS_PER_USER."""
    return services.events.response(FEED.name, run_id, viewer)

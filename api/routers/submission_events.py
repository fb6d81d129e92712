"""The live progress of one submission: GET /submissions/{id}/events, a Server-Sent Events
stream fed by the app's one `api.events.EventHub`, through the submissions' `FEED`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Response, status
from fastapi.responses import StreamingResponse
from sqlalchemy.orm import Session

from api.deps import ServicesDep, find_submission, stream_viewer
from api.events import Feed
from api.presenters import released, students_view, submission_public, test_public
from api.schemas import DbId, Message
from judge.verdict import TestKind
from store import repo
from store.models import Role, Status, Submission, TestRow, User

router = APIRouter(tags=["submissions"])


def _read(
    session: Session, cursors: Mapping[int, repo.ProgressCursor | None]
) -> list[repo.Progress]:
    return repo.progress(session=session, cursors=cursors)


def _finished(status: str) -> bool:
    return status == Status.DONE


def _present_test(row: TestRow, viewer: User) -> Any:
    return test_public(row, viewer).model_dump(mode="json")


def _present_done(session: Session, submission_id: int, viewer: User) -> Any:
    sub = repo.get_submission(session=session, submission_id=submission_id)
    return None if sub is None else submission_public(session, sub, viewer).model_dump(mode="json")


def _hidden_from(row: TestRow, viewer: User) -> bool:
    """A student gets the hidden tests only with the verdict: their arrival would time them."""
    return row.kind == TestKind.HIDDEN and viewer.role != Role.INSTRUCTOR


def _in_result(rows: list[TestRow], done: Any) -> list[TestRow]:
    """The held-back hidden tests the result shows (none while the problem holds them)."""
    shown = {test["index"] for test in done["tests"] if test["kind"] == TestKind.HIDDEN}
    return [row for row in rows if row.index in shown]


def _shown_status(progress: repo.Progress, viewer: User, now: datetime) -> str:
    """A student's submission is `running` until its judging is released to them."""
    if viewer.role == Role.INSTRUCTOR or progress.status != Status.DONE:
        return progress.status
    return Status.DONE if released(progress.status, progress.released_at, now) else Status.RUNNING


FEED = Feed(
    name="submissions",
    read=_read,
    finished=_finished,
    present_item=_present_test,
    present_done=_present_done,
    held_back=_hidden_from,
    released=_in_result,
    shown_status=_shown_status,
)


def _streamable(session: Session, submission_id: int, viewer: User) -> Submission:
    """A submission the viewer may follow: 404 as GET /submissions/{id}; 403 for a student
    whose assignment shows only "received" until their due time (no test as it finishes)."""
    sub = find_submission(session, submission_id, viewer)
    if viewer.role != Role.INSTRUCTOR:
        view = students_view(session, user_id=sub.user_id)
        if view.received_only(sub.problem) is not None:
            raise HTTPException(
                status.HTTP_403_FORBIDDEN,
                detail="received: its results are shown after your due time",
            )
    return sub


submission_viewer = stream_viewer("submission_id", _streamable)


@router.get(
    "/submissions/{submission_id}/events",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
            "description": "events: status, test (one per finished test), done",
        },
        401: {"model": Message},
        403: {"model": Message},
        404: {"model": Message},
        429: {"model": Message},
    },
)
async def events(
    submission_id: DbId, services: ServicesDep, viewer: Annotated[User, Depends(submission_viewer)]
) -> Response:
    """Server-Sent Events: `status` on each change, `test` per finished test, then `done`
    with the whole result (the same body as GET /submissions/{id}), and the stream ends.

    Students get `done` when the judging is released to them (until then it is `running`),
    with the hidden tests' events it shows just before it. A stream ends without a word
    when its viewer is disabled or gets a new password. At most JUDGE_EVENTS_PER_USER
    streams per user are open at once; one more gets 429 with Retry-After."""
    return services.events.response(FEED.name, submission_id, viewer)

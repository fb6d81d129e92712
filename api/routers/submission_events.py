"""The live progress of one submission: GET /submissions/{id}/events, a Server-Sent Events
stream fed by the app's one `api.events.EventHub`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter, ValidationError

from api.deps import SessionDep, SettingsDep, find_submission, get_current_user, oauth2_scheme
from api.schemas import DbId, Message
from store.models import User

router = APIRouter(tags=["submissions"])
_DB_ID = TypeAdapter(DbId)


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
    find_submission(session, submission_id, viewer)
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

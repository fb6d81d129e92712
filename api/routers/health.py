from __future__ import annotations

from fastapi import APIRouter, Response

from api.deps import SessionDep, SettingsDep
from api.schemas import ApiHealth, Health, LaneHealth, Message
from store.db import ping
from store.repo import heartbeats

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, responses={503: {"model": Health}})
def healthz(session: SessionDep, settings: SettingsDep, response: Response) -> Health:
    """No auth. Per lane whether a worker is alive (its heartbeat is fresh), and how long the
    oldest live submission has waited for a grader. 503 when no grading worker is alive
    (submissions are accepted but nobody grades them), or when the database does not answer
    (then the body is a Message: see the handler in api.main)."""
    ping(session)
    workers = heartbeats.alive_workers(session=session, stale_s=settings.heartbeat_stale_s)
    queue = heartbeats.queue_health(session=session, stale_s=settings.heartbeat_stale_s)
    graded = workers["grading"] > 0
    if not graded:
        response.status_code = 503
    return Health(
        status="ok" if graded else "no grading worker",
        database="ok",
        lanes={lane: LaneHealth(alive=n > 0, workers=n) for lane, n in workers.items()},
        oldest_queued_s=queue.oldest_queued_s,
        delayed=queue.delayed,
    )


@router.get("/healthz/api", response_model=ApiHealth, responses={503: {"model": Message}})
def api_healthz(session: SessionDep) -> ApiHealth:
    """No auth. The API process and its database alone, whatever the workers do: what a
    container healthcheck or a load balancer asks of an API process."""
    ping(session)
    return ApiHealth(status="ok", database="ok")

from __future__ import annotations

from fastapi import APIRouter

from api.deps import SessionDep
from api.schemas import Health, Message
from store.db import ping

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, responses={503: {"model": Message}})
def healthz(session: SessionDep) -> Health:
    """No auth. 503 when the database does not answer (see the handler in api.main)."""
    ping(session)
    return Health(status="ok", database="ok")

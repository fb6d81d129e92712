"""The API's services: everything a request uses beyond its own arguments, in one typed object.

`api.main.create_app` (the composition root) builds one `Services` per app and keeps it on
the app; a dependency reads it with `ServicesDep` (api/deps.py). Work for the workers leaves
through the three senders below, interfaces the composition root fills (with the Celery
senders of worker/queue.py, or a test's recorder): no other module of api/ names a worker
module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette

from api.events import EventHub
from api.security import Passwords, PasswordSlots
from config import Settings
from judge.strength.memory import StrengthMemory
from store.models import Priority
from store.repo.stats import StatsCache, TotalsTally
from store.repo.strength_reports import ReportRequest


class Enqueue(Protocol):
    """Sends "grade submission N" (live or rejudge); False when the broker could not take it
    (the sweeper sends it later)."""

    def __call__(self, submission_id: int, *, priority: Priority) -> bool: ...


class EnqueueRun(Protocol):
    """Sends "carry out run N" to the run lane; False when the broker could not take it."""

    def __call__(self, run_id: int) -> bool: ...


class EnqueueCheck(Protocol):
    """Sends "check problem version N" to the run lane; False when the broker could not
    take it (the sweeper sends it later)."""

    def __call__(self, version_id: int) -> bool: ...


class RequestPreview(Protocol):
    """Sends a rejudge preview's first step (store/repo/rejudge_previews.py) to a worker;
    False when the broker could not take it."""

    def __call__(self, key: str) -> bool: ...


class RequestStrength(Protocol):
    """Asks a worker for a strength report; False when the broker could not take it."""

    def __call__(self, request: ReportRequest) -> bool: ...


@dataclass(frozen=True)
class Services:
    settings: Settings
    engine: Engine
    session_factory: sessionmaker[Session]
    enqueue: Enqueue
    enqueue_run: EnqueueRun
    request_strength: RequestStrength
    enqueue_check: EnqueueCheck
    request_preview: RequestPreview
    # Statistics: every student's problems page reads the totals, kept current verdict by
    # verdict; the instructors' per-problem figures are kept until a verdict changes them.
    problem_totals: TotalsTally
    stats_cache: StatsCache
    passwords: Passwords  # used within a turn of password_slots (api.deps.password_slot)
    password_slots: PasswordSlots
    # One poller per process feeds every open /submissions/{id}/events and /runs/{id}/events
    # stream.
    events: EventHub
    # The single-board checks of POST /problems/{slug}/strength/board (the reports are the
    # workers').
    strength_memory: StrengthMemory


def services_of(app: Starlette) -> Services:
    """The services `create_app` built for `app`."""
    services = app.state.services
    assert isinstance(services, Services), "an app built by api.main.create_app"
    return services

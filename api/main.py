"""The FastAPI app factory. Everything the app needs comes from the Settings passed in."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from api import web
from api.events import EventHub
from api.gate import RequestGate
from api.routers import (
    assignments,
    board_notes,
    health,
    languages,
    lti,
    problem_packages,
    problems,
    progress,
    regrades,
    roster,
    runs,
    similarity,
    strength,
    submission_events,
    submissions,
    users,
)
from api.security import Passwords, PasswordSlots
from api.services import (
    Enqueue,
    EnqueueCheck,
    EnqueueRun,
    RequestPreview,
    RequestStrength,
    Services,
    services_of,
)
from config import Settings
from judge.strength.memory import StrengthMemory
from store.db import POOL_CAPACITY, make_engine, make_session_factory
from store.repo.stats import StatsCache, TotalsTally

log = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None,
    *,
    enqueue: Enqueue | None = None,
    request_strength: RequestStrength | None = None,
    enqueue_run: EnqueueRun | None = None,
    enqueue_check: EnqueueCheck | None = None,
    request_preview: RequestPreview | None = None,
) -> FastAPI:
    """The app serving `settings`: `build_app` with the `Services` `build_services` makes."""
    settings = settings or Settings()
    app = build_app(max_body_size=body_limit(settings))
    app.state.services = build_services(
        settings,
        enqueue=enqueue,
        request_strength=request_strength,
        enqueue_run=enqueue_run,
        enqueue_check=enqueue_check,
        request_preview=request_preview,
    )
    return app


def body_limit(settings: Settings) -> int:
    """The raw body's cap: the source limit (413) is checked on the decoded text."""
    return max(1 << 20, 8 * settings.max_source_bytes)


def build_services(
    settings: Settings,
    *,
    enqueue: Enqueue | None = None,
    request_strength: RequestStrength | None = None,
    enqueue_run: EnqueueRun | None = None,
    enqueue_check: EnqueueCheck | None = None,
    request_preview: RequestPreview | None = None,
) -> Services:
    """`enqueue(submission_id, priority=...)` sends a grading, `request_strength(request)` a
    strength report, `enqueue_run(run_id)` a run, `enqueue_check(version_id)` a problem
    package's check and `request_preview(key)` a rejudge preview to the workers; each
    defaults to the Celery sender the settings describe.

    The composition root: the one place that builds the app's `Services` (api/services.py)
    and the one place in api/ that names a worker module (worker.queue, for the default
    senders: the API publishes with the very Celery configuration the workers consume)."""
    if (
        enqueue is None
        or request_strength is None
        or enqueue_run is None
        or enqueue_check is None
        or request_preview is None
    ):
        from worker.queue import CelerySenders

        # One Celery app for what the caller left out, made when a sender first needs it.
        # "is None", not "or": a caller's recorder may be an empty list.
        celery = CelerySenders(settings)
        if enqueue is None:
            enqueue = celery.grading()
        if request_strength is None:
            request_strength = celery.strength()
        if enqueue_run is None:
            enqueue_run = celery.runs()
        if enqueue_check is None:
            enqueue_check = celery.checks()
        if request_preview is None:
            request_preview = celery.previews()

    engine = make_engine(settings.db_url)
    session_factory = make_session_factory(engine)
    return Services(
        settings=settings,
        engine=engine,
        session_factory=session_factory,
        enqueue=enqueue,
        enqueue_run=enqueue_run,
        request_strength=request_strength,
        enqueue_check=enqueue_check,
        request_preview=request_preview,
        problem_totals=TotalsTally(),
        stats_cache=StatsCache(),
        passwords=Passwords.configured(settings),
        password_slots=PasswordSlots(
            settings.password_hash_concurrency, settings.password_hash_wait_s
        ),
        events=EventHub(session_factory, settings, feeds=[submission_events.FEED, runs.FEED]),
        strength_memory=StrengthMemory(),
    )


def build_app(*, max_body_size: int) -> FastAPI:
    """The routes, pages, middleware and error handlers, with nothing of the settings but the
    body cap: what the app serves with comes from the `Services` in `app.state.services`,
    set before it starts. FastAPI works out each route's parameters on an app's first
    request (about 0.3 s of CPU), so the tests give one such app one `Services` after
    another."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await services_of(app).events.aclose()  # the live-progress poller and its streams

    app = FastAPI(
        title="Footholds judge",
        version="1.0",
        description="Online judge for function-style game problems. Log in with "
        "POST /api/v1/token and send `Authorization: Bearer <token>`.",
        max_body_size=max_body_size,
        lifespan=lifespan,
    )

    # One connection stays for the live-progress poller; the rest serve requests.
    app.add_middleware(RequestGate, slots=POOL_CAPACITY - 1)

    for module in (
        users,
        roster,
        board_notes,
        languages,
        problem_packages,  # before problems: /problems/manage is not a problem's slug
        problems,
        progress,
        submissions,
        submission_events,
        runs,
        strength,
        assignments,
        lti,
        similarity,
        regrades,
    ):
        app.include_router(module.router, prefix="/api/v1")
    app.include_router(health.router)
    web.install(app)  # the pages and the JSON only they need

    @app.exception_handler(OperationalError)
    @app.exception_handler(PoolTimeout)
    async def database_unavailable(request: Request, exc: Exception) -> JSONResponse:
        # The database went away (restart, network) or no connection came free in time: say
        # so, and let the client retry.
        log.warning("database error on %s: %s", request.url.path, exc)
        return JSONResponse(
            {"detail": "database unavailable, try again shortly"},
            status_code=503,
            headers={"Retry-After": "5"},
        )

    # A body like [[[[... (100000 deep) makes json.loads, or whatever walks the value next,
    # run out of stack: the client's doing, not a server error. FastAPI turns it into a
    # vague 400 for the bodies it parses; POST /submissions parses its own.
    def nested_too_deeply(request: Request) -> JSONResponse:
        log.warning("recursion limit on %s", request.url.path)
        return JSONResponse(
            {"detail": "the request is nested too deeply (JSON arrays or objects)"},
            status_code=422,
        )

    @app.exception_handler(RecursionError)
    async def recursion_error(request: Request, exc: RecursionError) -> JSONResponse:
        return nested_too_deeply(request)

    previous = app.exception_handlers[StarletteHTTPException]  # the pages' 404 (api.web)

    async def http_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc.__cause__, RecursionError):
            return nested_too_deeply(request)
        response = previous(request, exc)  # Starlette's handlers may be sync or async
        return await response if inspect.isawaitable(response) else response

    app.add_exception_handler(StarletteHTTPException, http_error)

    return app

"""Dependencies shared by the routers: the app's services (api/services.py) and what they
give (settings, session, the senders to the workers), the current user."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import OAuth2PasswordBearer
from pydantic import TypeAdapter, ValidationError
from sqlalchemy.orm import Session

from api.schemas import DbId
from api.security import Passwords, token_identity
from api.services import Enqueue, EnqueueRun, Services, services_of
from config import Settings
from store import repo
from store.models import Role, Run, Submission, User

oauth2_scheme = OAuth2PasswordBearer(tokenUrl="/api/v1/token", auto_error=False)


async def get_services(request: Request) -> Services:
    # async: read on the event loop, not one more threadpool call per request (see
    # stream_viewer for why those count).
    return services_of(request.app)


ServicesDep = Annotated[Services, Depends(get_services)]


def get_settings(services: ServicesDep) -> Settings:
    return services.settings


def get_session(services: ServicesDep) -> Iterator[Session]:
    with services.session_factory() as session:
        yield session


def get_enqueue(services: ServicesDep) -> Enqueue:
    return services.enqueue


def get_enqueue_run(services: ServicesDep) -> EnqueueRun:
    return services.enqueue_run


SettingsDep = Annotated[Settings, Depends(get_settings)]
# Function scope: the session (and its SQLite write lock) ends when the endpoint returns,
# before the response is sent, which matters for the long-lived event stream.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]
EnqueueDep = Annotated[Enqueue, Depends(get_enqueue)]
EnqueueRunDep = Annotated[EnqueueRun, Depends(get_enqueue_run)]


def unauthorized(detail: str) -> HTTPException:
    return HTTPException(
        status.HTTP_401_UNAUTHORIZED, detail=detail, headers={"WWW-Authenticate": "Bearer"}
    )


def too_many(exc: repo.RateLimited) -> HTTPException:
    return HTTPException(
        status.HTTP_429_TOO_MANY_REQUESTS,
        detail=str(exc),
        headers={"Retry-After": str(exc.retry_after)},
    )


def client_address(request: Request) -> str:
    """The client's address for per-address limits: the IP (uvicorn puts the forwarded one
    here when the proxy is trusted), IPv6 by its /64 (one host usually has a whole /64)."""
    host = request.client.host if request.client else ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@contextmanager
def password_slot(request: Request) -> Iterator[Passwords]:
    """A turn to hash or verify a password (see api.security.PasswordSlots), or 503: the
    hasher, for the turn."""
    services = services_of(request.app)
    slots = services.password_slots
    if not slots.acquire():
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            detail="the judge is busy checking other passwords; try again in a few seconds",
            headers={"Retry-After": str(max(1, math.ceil(slots.wait_s)))},
        )
    try:
        yield services.passwords
    finally:
        slots.release()


def token_user(session: Session, token: str, secret: str) -> User | None:
    """The user a valid token of the user's current generation names (a password reset
    ends every earlier session), or None."""
    identity = token_identity(token, secret)
    if identity is None:
        return None
    user = repo.get_user(session=session, user_id=identity[0])
    return user if user is not None and user.token_generation == identity[1] else None


def get_current_user(
    session: SessionDep,
    settings: SettingsDep,
    token: Annotated[str | None, Depends(oauth2_scheme)],
) -> User:
    if not token:
        raise unauthorized("not authenticated: send Authorization: Bearer <token>")
    user = token_user(session, token, settings.secret_key)
    if user is None:
        raise unauthorized("invalid or expired token")
    if user.disabled:  # checked on every request: disabling ends the account's sessions
        raise unauthorized("this account is disabled; ask an instructor")
    return user


def get_optional_user(
    session: SessionDep,
    settings: SettingsDep,
    token: Annotated[str | None, Depends(oauth2_scheme)],
) -> User | None:
    """The logged-in user, or None for a visitor (no token, or one no longer valid): for
    what anyone may read, where a login only adds the viewer's own part."""
    if not token:
        return None
    user = token_user(session, token, settings.secret_key)
    return None if user is None or user.disabled else user


def get_instructor(user: Annotated[User, Depends(get_current_user)]) -> User:
    if user.role != Role.INSTRUCTOR:
        raise HTTPException(status.HTTP_403_FORBIDDEN, detail="instructors only")
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]
OptionalUser = Annotated[User | None, Depends(get_optional_user)]
Instructor = Annotated[User, Depends(get_instructor)]


def find_submission(session: Session, submission_id: int, viewer: User) -> Submission:
    """The submission if the viewer may see it (`repo.visible_submission`); 404 otherwise,
    with no hint that it exists."""
    sub = repo.visible_submission(session=session, submission_id=submission_id, viewer=viewer)
    if sub is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such submission")
    return sub


def find_run(session: Session, run_id: int, viewer: User) -> Run:
    """The run if the viewer may see it (its owner or an instructor); 404 otherwise."""
    run = repo.visible_run(session=session, run_id=run_id, viewer=viewer)
    if run is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such run")
    return run


_ITEM_ID = TypeAdapter(DbId)


def stream_viewer(param: str, find: Callable[[Session, int, User], object]) -> Callable[..., User]:
    """The dependency of an event stream: its viewer, authenticated, and allowed to see the
    item named by the path parameter `param` (`find` raises 404), in one threadpool call.

    Not CurrentUser: each sync dependency is its own threadpool call, and a session holding
    its connection while waiting for a thread deadlocks with threads waiting for a connection
    when many streams (re)connect at once. The connection goes back at the session's teardown.
    401 comes before 422 as elsewhere: an invalid id is left to the endpoint's validation."""

    def viewer(
        request: Request,
        session: SessionDep,
        settings: SettingsDep,
        token: Annotated[str | None, Depends(oauth2_scheme)],
    ) -> User:
        user = get_current_user(session, settings, token)
        try:
            item_id = _ITEM_ID.validate_python(request.path_params.get(param))
        except ValidationError:
            return user
        find(session, item_id, user)
        return user

    return viewer

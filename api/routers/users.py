"""Registration, login (OAuth2 password flow) and the current user.

Both ends are throttled so no one can starve the service: failed logins per username and per
client address, registrations per address, and at most a few argon2 hashes at once (each
takes 64 MB); neither holds a database connection while it hashes.
"""

from __future__ import annotations

import hmac
import math
from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.security import OAuth2PasswordRequestForm

from api.deps import (
    CurrentUser,
    SessionDep,
    SettingsDep,
    client_address,
    password_slot,
    too_many,
    unauthorized,
)
from api.schemas import Message, RegistrationInfo, Token, UserCreate, UserPublic, login_name_ok
from api.security import create_token
from config import Settings
from store import repo
from store.models import Role

router = APIRouter(tags=["users"])

REGISTRATION_WINDOW = timedelta(hours=1)


def _keep(settings: Settings) -> timedelta:
    """How long an attempt can still count: the longest window."""
    return max(REGISTRATION_WINDOW, timedelta(seconds=settings.login_failure_window_s))


def _in(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{math.ceil(seconds / 60)} min"


def _invited(code: str | None, expected: str | None) -> bool:
    if not code or not expected:
        return False
    return hmac.compare_digest(code.encode(), expected.encode())


@router.get("/registration", response_model=RegistrationInfo)
def registration(settings: SettingsDep) -> RegistrationInfo:
    """How accounts are made here: `open` (anyone registers), `invite` (POST /users needs
    `invite_code`) or `closed` (instructors create accounts)."""
    return RegistrationInfo(mode=settings.registration)


@router.post(
    "/users",
    status_code=status.HTTP_201_CREATED,
    response_model=UserPublic,
    responses={
        403: {"model": Message},
        409: {"model": Message},
        429: {"model": Message},
        503: {"model": Message},
    },
)
def register(
    user_in: UserCreate, request: Request, session: SessionDep, settings: SettingsDep
) -> UserPublic:
    """Register a student account (see GET /registration for whether an invite is needed)."""
    if settings.registration == "closed":
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            detail="registration is closed here; ask an instructor to create your account",
        )
    address = client_address(request)

    def count_registration() -> None:
        repo.record_attempt(
            session=session,
            kind=repo.REGISTRATION,
            address=address,
            username=user_in.username,
            keep=_keep(settings),
        )

    per_hour = settings.registrations_per_address_per_hour
    wait = repo.check_attempts(
        session=session,
        kind=repo.REGISTRATION,
        address=address,
        limit=per_hour,
        window=REGISTRATION_WINDOW,
    )
    if wait is not None:
        raise too_many(
            repo.RateLimited(
                f"at most {per_hour} registrations per hour from one address; "
                f"try again in {_in(wait)}",
                wait,
            )
        )
    if settings.registration == "invite" and not _invited(
        user_in.invite_code, settings.invite_code
    ):
        # A wrong code counts as a registration, so codes cannot be guessed quickly.
        count_registration()
        session.commit()
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            detail="registration needs a valid invite code; ask your instructor for it",
        )
    if repo.get_user_by_name(session=session, username=user_in.username) is not None:
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail=f"user {user_in.username!r} already exists"
        )
    session.commit()  # no connection (nor SQLite's write lock) held while hashing
    with password_slot(request) as passwords:
        password_hash = passwords.hash(user_in.password)
    try:
        user = repo.create_user(
            session=session,
            username=user_in.username,
            password_hash=password_hash,
            role=Role.STUDENT,
        )
    except repo.Conflict as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from exc
    count_registration()
    session.commit()
    return UserPublic.model_validate(user)


@router.post(
    "/token",
    response_model=Token,
    responses={
        401: {"model": Message},
        403: {"model": Message},
        429: {"model": Message},
        503: {"model": Message},
    },
)
def login(
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
) -> Token:
    """OAuth2 password flow: form fields username and password give a bearer token.

    Too many failed attempts for a username or from an address get 429 with Retry-After.
    """
    address = client_address(request)
    username = form.username if login_name_ok(form.username) else None
    window = timedelta(seconds=settings.login_failure_window_s)
    checks = [(settings.login_failures_per_address, "from your address", {"address": address})]
    if username is not None:
        checks.insert(
            0, (settings.login_failures_per_username, "for this username", {"username": username})
        )
    for limit, who, key in checks:
        wait = repo.check_attempts(
            session=session, kind=repo.FAILED_LOGIN, limit=limit, window=window, **key
        )
        if wait is not None:
            raise too_many(
                repo.RateLimited(f"too many failed logins {who}; try again in {_in(wait)}", wait)
            )
    user = repo.get_user_by_name(session=session, username=username) if username else None
    user_id, password_hash = (user.id, user.password_hash) if user else (None, None)
    generation = user.token_generation if user else 0
    disabled = bool(user and user.disabled)
    session.commit()  # no connection (nor SQLite's write lock) held while hashing
    ok, rehashed = False, None
    if username is not None:
        # Unknown users verify a dummy hash: the answer takes as long as for a real one.
        with password_slot(request) as passwords:
            ok, rehashed = passwords.check(form.password, password_hash)
    if not ok or user_id is None:
        repo.record_attempt(
            session=session,
            kind=repo.FAILED_LOGIN,
            address=address,
            username=username,
            keep=_keep(settings),
        )
        session.commit()
        raise unauthorized("incorrect username or password")
    if disabled:  # said only to whoever knows the password
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, detail="this account is disabled; ask an instructor"
        )
    if rehashed is not None and password_hash is not None:
        # Made at an earlier cost (JUDGE_PASSWORD_HASH_*): kept at today's from now on, the
        # same password, so its sessions go on.
        repo.rehash_password(session=session, user_id=user_id, old=password_hash, new=rehashed)
        session.commit()
    token = create_token(
        user_id=user_id,
        secret=settings.secret_key,
        minutes=settings.token_expire_minutes,
        generation=generation,
    )
    return Token(access_token=token)


@router.get("/users/me", response_model=UserPublic, responses={401: {"model": Message}})
def me(user: CurrentUser) -> UserPublic:
    return UserPublic.model_validate(user)

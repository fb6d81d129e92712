"""Registration, login (OAuth2 password flow) and the current user."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, status
from fastapi.security import OAuth2PasswordRequestForm

from api.deps import CurrentUser, SessionDep, SettingsDep, unauthorized
from api.schemas import Message, Token, UserCreate, UserPublic
from api.security import create_token, hash_password, verify_password
from store import repo
from store.models import Role

router = APIRouter(tags=["users"])


@router.post(
    "/users",
    status_code=status.HTTP_201_CREATED,
    response_model=UserPublic,
    responses={409: {"model": Message}},
)
def register(user_in: UserCreate, session: SessionDep) -> UserPublic:
    """Register a student account."""
    try:
        user = repo.create_user(
            session=session,
            username=user_in.username,
            password_hash=hash_password(user_in.password),
            role=Role.STUDENT,
        )
    except repo.Conflict as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from exc
    session.commit()
    return UserPublic.model_validate(user)


@router.post("/token", response_model=Token, responses={401: {"model": Message}})
def login(
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
    session: SessionDep,
    settings: SettingsDep,
) -> Token:
    """OAuth2 password flow: form fields username and password give a bearer token."""
    user = repo.get_user_by_name(session=session, username=form.username[:64])
    if not verify_password(form.password, user.password_hash if user else None):
        raise unauthorized("incorrect username or password")
    assert user is not None
    token = create_token(
        user_id=user.id, secret=settings.secret_key, minutes=settings.token_expire_minutes
    )
    return Token(access_token=token)


@router.get("/users/me", response_model=UserPublic, responses={401: {"model": Message}})
def me(user: CurrentUser) -> UserPublic:
    return UserPublic.model_validate(user)

"""Accounts for instructors: list and search users, create them one by one or from a CSV
of usernames (initial passwords shown once), give a new password, disable an account."""

from __future__ import annotations

import csv
import io
import re
import secrets
from collections import Counter
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request, status

from api.deps import Instructor, SessionDep, password_slot
from api.schemas import (
    MAX_BATCH,
    AccountChange,
    AccountsCreate,
    CreatedAccount,
    DbId,
    Message,
    NewPassword,
    RosterPage,
    RosterUser,
)
from store import repo
from store.models import Role, User
from store.repo import roster

router = APIRouter(tags=["users"])

USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,32}$")  # as api.schemas.Username


def new_password() -> str:
    return secrets.token_urlsafe(9)  # 12 characters, 72 bits


def names_from(body: AccountsCreate) -> list[str]:
    """The usernames asked for, in order: the list, or the first column of each CSV line
    (blank lines and a header `username` skipped). 422 for anything invalid or repeated."""
    if (body.usernames is None) == (body.csv is None):
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, detail="give either usernames or csv"
        )
    if body.usernames is not None:
        names = [n.strip() for n in body.usernames]
    else:
        rows = csv.reader(io.StringIO(body.csv or ""))
        names = [row[0].strip() for row in rows if row and row[0].strip()]
        if names and names[0].lower() == "username":
            names = names[1:]
    if not names:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail="no usernames given")
    if len(names) > MAX_BATCH:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"at most {MAX_BATCH} accounts at once; {len(names)} given",
        )
    bad = [n for n in names if not USERNAME.match(n)]
    if bad:
        shown = ", ".join(repr(n[:40]) for n in bad[:5])
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"usernames must be 3 to 32 letters, digits, dots, dashes or underscores: "
            f"{shown}" + (f" and {len(bad) - 5} more" if len(bad) > 5 else ""),
        )
    repeated = sorted(name for name, times in Counter(names).items() if times > 1)
    if repeated:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail="usernames given twice: " + ", ".join(repeated),
        )
    return names


def roster_user(entry: roster.RosterEntry) -> RosterUser:
    return RosterUser.model_validate(entry, from_attributes=True)


def account(session, user_id: int) -> User:
    user = repo.get_user(session=session, user_id=user_id)
    if user is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such user")
    return user


@router.get(
    "/users",
    response_model=RosterPage,
    responses={401: {"model": Message}, 403: {"model": Message}},
)
def list_users(
    session: SessionDep,
    user: Instructor,
    search: Annotated[str | None, Query(max_length=64, description="username prefix")] = None,
    role: Literal["student", "instructor"] | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> RosterPage:
    """Users by name (instructors), those whose name starts with `search` (any case), with
    how many submissions each made."""
    entries, more = roster.list_users(session=session, search=search, role=role, limit=limit)
    return RosterPage(items=[roster_user(e) for e in entries], more=more)


@router.post(
    "/users/batch",
    status_code=status.HTTP_201_CREATED,
    response_model=list[CreatedAccount],
    responses={
        401: {"model": Message},
        403: {"model": Message},
        409: {"model": Message},
        503: {"model": Message},
    },
)
def create_accounts(
    body: AccountsCreate, request: Request, session: SessionDep, user: Instructor
) -> list[CreatedAccount]:
    """Create accounts (instructors): all of them or none. Each gets a generated password,
    returned here once and never again (a new one: POST /users/{id}/password)."""
    names = names_from(body)
    taken = roster.existing_names(session=session, usernames=names)
    if taken:
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail="already taken: " + ", ".join(sorted(taken))
        )
    session.commit()  # no connection (nor SQLite's write lock) held while hashing
    passwords = {name: new_password() for name in names}
    hashes = {}
    for name, password in passwords.items():
        with password_slot(request) as hasher:
            hashes[name] = hasher.hash(password)
    created = []
    try:
        for name in names:
            made = repo.create_user(
                session=session, username=name, password_hash=hashes[name], role=Role(body.role)
            )
            created.append(made)
    except repo.Conflict as exc:  # made meanwhile by someone else; nothing is kept
        session.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from exc
    session.commit()
    return [
        CreatedAccount(id=u.id, username=u.username, role=body.role, password=passwords[u.username])
        for u in created
    ]


@router.post(
    "/users/{user_id}/password",
    response_model=NewPassword,
    responses={401: {"model": Message}, 403: {"model": Message}, 404: {"model": Message}},
)
def reset_password(
    user_id: DbId, request: Request, session: SessionDep, user: Instructor
) -> NewPassword:
    """Give the account a new generated password, returned this once; the old one stops
    working at once."""
    target = account(session, user_id)
    username = target.username
    session.commit()
    password = new_password()
    with password_slot(request) as passwords:
        password_hash = passwords.hash(password)
    target = account(session, user_id)
    roster.set_password_hash(session=session, user=target, password_hash=password_hash)
    session.commit()
    return NewPassword(username=username, password=password)


@router.patch(
    "/users/{user_id}",
    response_model=RosterUser,
    responses={
        401: {"model": Message},
        403: {"model": Message},
        404: {"model": Message},
        409: {"model": Message},
    },
)
def change_account(
    user_id: DbId, change: AccountChange, session: SessionDep, user: Instructor
) -> RosterUser:
    """Disable an account (it can no longer log in or submit, and its tokens stop working
    at once) or enable it again."""
    target = account(session, user_id)
    if target.id == user.id and change.disabled:
        raise HTTPException(status.HTTP_409_CONFLICT, detail="you cannot disable yourself")
    roster.set_disabled(session=session, user=target, disabled=change.disabled)
    session.commit()
    entries, _ = roster.list_users(session=session, user_id=target.id)
    return roster_user(entries[0])

"""Creating accounts outside HTTP: the first instructor at start, and the create-user CLI."""

from __future__ import annotations

import secrets

from sqlalchemy.orm import Session

from api.security import Passwords
from store import repo
from store.models import Role


def upsert_user(
    *, session: Session, passwords: Passwords, username: str, password: str, role: Role
) -> bool:
    """Create the user, or reset its password and role; True when it was created."""
    password_hash = passwords.hash(password)
    user = repo.get_user_by_name(session=session, username=username)
    if user is None:
        repo.create_user(session=session, username=username, password_hash=password_hash, role=role)
        session.commit()
        return True
    repo.update_user(session=session, user=user, password_hash=password_hash, role=role)
    session.commit()
    return False


def ensure_admin(
    *, session: Session, passwords: Passwords, username: str, password: str | None
) -> str | None:
    """Make sure the first instructor exists. Returns a password to print, or None.

    Without a configured password one is generated, and shown only this once.
    """
    user = repo.get_user_by_name(session=session, username=username)
    if user is None:
        password = password or secrets.token_urlsafe(12)
    elif password is None or (
        passwords.verify(password, user.password_hash) and user.role == Role.INSTRUCTOR
    ):
        return password
    # The configuration is the source of truth for the admin account.
    upsert_user(
        session=session,
        passwords=passwords,
        username=username,
        password=password,
        role=Role.INSTRUCTOR,
    )
    return password

"""Password hashing (pwdlib, argon2) and bearer tokens (JWT, HS256)."""

from __future__ import annotations

from datetime import timedelta

import jwt
from pwdlib import PasswordHash

from store.models import utcnow

ALGORITHM = "HS256"
_hasher = PasswordHash.recommended()
# Verified against when the user does not exist, so both paths cost one argon2 check.
_DUMMY_HASH = _hasher.hash("not a password anyone has")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    if password_hash is None:
        _hasher.verify(password, _DUMMY_HASH)
        return False
    return _hasher.verify(password, password_hash)


def create_token(*, user_id: int, secret: str, minutes: int) -> str:
    now = utcnow()
    claims = {"sub": str(user_id), "iat": now, "exp": now + timedelta(minutes=minutes)}
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def token_user_id(token: str, secret: str) -> int | None:
    """The user id a valid token names, or None for anything invalid or expired."""
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM], options={"require": ["sub"]})
        user_id = int(claims["sub"])
    except (jwt.PyJWTError, ValueError, TypeError):
        return None
    return user_id if 0 < user_id < 2**31 else None

"""Password hashing (pwdlib, argon2) and bearer tokens (JWT, HS256)."""

from __future__ import annotations

import threading
from datetime import timedelta
from functools import cached_property

import jwt
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from config import (
    PASSWORD_HASH_LANES,
    PASSWORD_HASH_MEMORY_KIB,
    PASSWORD_HASH_PASSES,
    Settings,
)
from store.models import utcnow

ALGORITHM = "HS256"


class Passwords:
    """Password hashes: argon2id at the configured cost for new ones. A stored hash is
    checked at the cost it was made with (it says which), so changing the cost locks nobody
    out; `check` offers a new hash for one made at another cost."""

    def __init__(
        self,
        memory_kib: int = PASSWORD_HASH_MEMORY_KIB,
        passes: int = PASSWORD_HASH_PASSES,
        lanes: int = PASSWORD_HASH_LANES,
    ) -> None:
        argon2 = Argon2Hasher(memory_cost=memory_kib, time_cost=passes, parallelism=lanes)
        self._hasher = PasswordHash((argon2,))

    @classmethod
    def configured(cls, settings: Settings) -> Passwords:
        return cls(
            settings.password_hash_memory_kib,
            settings.password_hash_passes,
            settings.password_hash_lanes,
        )

    @cached_property
    def _dummy_hash(self) -> str:
        """Verified against when the user does not exist, so both paths cost one check. Made
        on first use, not when the service starts: every process that builds services (the
        workers' helpers, the command line, each test) would pay a hash for nothing."""
        return self._hasher.hash("not a password anyone has")

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password: str, password_hash: str | None) -> bool:
        return self.check(password, password_hash)[0]

    def check(self, password: str, password_hash: str | None) -> tuple[bool, str | None]:
        """Whether `password` matches, and when it does but its hash was made at another
        cost, a new hash at the configured one (None otherwise)."""
        # None: no such user; not a "$..." hash: an account without a password (an LMS
        # user's).
        if password_hash is None or not password_hash.startswith("$"):
            self._hasher.verify(password, self._dummy_hash)
            return False, None
        return self._hasher.verify_and_update(password, password_hash)


class PasswordSlots:
    """At most `size` argon2 hashes or verifications at once in this process.

    Each one takes 64 MB and about 0.17 s of a core at the default cost, so a flood of
    logins must queue here rather than take every thread and the memory; a request that
    waits `wait_s` without a turn is refused (the API answers 503 with Retry-After, see
    api.deps.password_slot)."""

    def __init__(self, size: int, wait_s: float) -> None:
        self._semaphore = threading.BoundedSemaphore(size)
        self.wait_s = wait_s

    def acquire(self) -> bool:
        return self._semaphore.acquire(timeout=self.wait_s)

    def release(self) -> None:
        self._semaphore.release()


def create_token(*, user_id: int, secret: str, minutes: int, generation: int = 0) -> str:
    """A session token for the user, in the user's current token generation (a new password
    starts the next one, and the tokens of earlier ones stop working)."""
    now = utcnow()
    claims = {
        "sub": str(user_id),
        "gen": generation,
        "iat": now,
        "exp": now + timedelta(minutes=minutes),
    }
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def token_identity(token: str, secret: str) -> tuple[int, int] | None:
    """(user id, token generation) of a valid token, or None for anything invalid or
    expired. A token without a generation is of the first one."""
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM], options={"require": ["sub"]})
        user_id = int(claims["sub"])
        generation = claims.get("gen", 0)
    except (jwt.PyJWTError, ValueError, TypeError):
        return None
    if not 0 < user_id < 2**31 or type(generation) is not int:
        return None
    return user_id, generation


def token_user_id(token: str, secret: str) -> int | None:
    """The user id a valid token names, or None for anything invalid or expired."""
    identity = token_identity(token, secret)
    return None if identity is None else identity[0]

"""LTI 1.3 (docs/lti.md): registered platforms, the tool's keys, LMS users linked to judge
accounts, courses and their line items, and pylti1p3's launch storage (nonces, states and
launch data, shared by every API process)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import (
    LtiAccount,
    LtiCache,
    LtiContext,
    LtiKey,
    LtiLineItem,
    LtiPlatform,
    Role,
    User,
    utcnow,
)

# A retired key stays in the published key set this long: a platform caches key sets.
RETIRED_KEY_KEPT = timedelta(days=7)
# An LMS user's account has this in place of a password hash: no password opens it.
NO_PASSWORD = "!lti"


class Conflict(Exception):
    """The platform (issuer and client id) is registered already."""


# ---- platforms --------------------------------------------------------------------------


def add_platform(*, session: Session, fields: dict[str, Any], user_id: int) -> LtiPlatform:
    platform = LtiPlatform(created_by=user_id, created_at=utcnow(), **fields)
    session.add(platform)
    try:
        session.flush()
    except IntegrityError as exc:
        session.rollback()
        raise Conflict("this issuer and client id are registered already") from exc
    return platform


def list_platforms(*, session: Session) -> list[LtiPlatform]:
    return list(session.scalars(select(LtiPlatform).order_by(LtiPlatform.id)))


def get_platform(*, session: Session, platform_id: int) -> LtiPlatform | None:
    return session.get(LtiPlatform, platform_id)


def find_platform(*, session: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The registration of the issuer and client id (without one: the issuer's only one)."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id is not None:
        return session.scalar(query.where(LtiPlatform.client_id == client_id))
    found = list(session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None


def delete_platform(*, session: Session, platform: LtiPlatform) -> None:
    session.delete(platform)
    session.flush()


# ---- the tool's keys --------------------------------------------------------------------


def signing_key(*, session: Session) -> LtiKey | None:
    return session.scalar(
        select(LtiKey).where(LtiKey.retired_at.is_(None)).order_by(LtiKey.id.desc()).limit(1)
    )


def published_keys(*, session: Session) -> list[LtiKey]:
    """The keys of the key set: the signing one and those retired lately."""
    since = utcnow() - RETIRED_KEY_KEPT
    return list(
        session.scalars(
            select(LtiKey)
            .where((LtiKey.retired_at.is_(None)) | (LtiKey.retired_at > since))
            .order_by(LtiKey.id)
        )
    )


def add_key(*, session: Session, kid: str, private_pem: str) -> LtiKey:
    """A new signing key; the earlier ones are retired (still published for a while)."""
    now = utcnow()
    session.execute(update(LtiKey).where(LtiKey.retired_at.is_(None)).values(retired_at=now))
    key = LtiKey(kid=kid, private_pem=private_pem, created_at=now)
    session.add(key)
    session.flush()
    return key


# ---- accounts -----------------------------------------------------------------------------


def linked_user(*, session: Session, platform_id: int, sub: str) -> User | None:
    return session.scalar(
        select(User)
        .join(LtiAccount, LtiAccount.user_id == User.id)
        .where(LtiAccount.platform_id == platform_id, LtiAccount.sub == sub)
    )


def _free_username(session: Session, wanted: str) -> str:
    base = wanted[:28] or "lti"
    taken = set(
        session.scalars(
            select(User.username).where(User.username.like(base.replace("%", "") + "%"))
        )
    )
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def link_user(
    *,
    session: Session,
    platform_id: int,
    sub: str,
    username: str,
    instructor: bool,
    retry: bool = True,
) -> tuple[User, bool]:
    """The judge account of the LMS user, created (without a password) on first sight; an
    LMS instructor's account becomes an instructor's (never the other way: a demotion is an
    instructor's decision in the judge). Returns (user, created)."""
    user = linked_user(session=session, platform_id=platform_id, sub=sub)
    created = user is None
    if user is None:
        try:
            with session.begin_nested():
                user = User(
                    username=_free_username(session, username),
                    password_hash=NO_PASSWORD,
                    role=Role.INSTRUCTOR if instructor else Role.STUDENT,
                )
                session.add(user)
                session.flush()
                session.add(LtiAccount(platform_id=platform_id, sub=sub, user_id=user.id))
                session.flush()
        except IntegrityError:
            # The same user's other launch (or a roster sync) linked them first, or took the
            # name: theirs, if linked now; else the name again, once.
            user = linked_user(session=session, platform_id=platform_id, sub=sub)
            if user is not None:
                return user, False
            if not retry:
                raise
            return link_user(
                session=session,
                platform_id=platform_id,
                sub=sub,
                username=username + "-" + sub[-4:],
                instructor=instructor,
                retry=False,
            )
    elif instructor and user.role != Role.INSTRUCTOR:
        user.role = Role.INSTRUCTOR
        session.flush()
    return user, created


# ---- courses and line items ---------------------------------------------------------------


def upsert_context(
    *,
    session: Session,
    platform_id: int,
    context_id: str,
    title: str,
    memberships_url: str | None,
    lineitems_url: str | None,
) -> LtiContext:
    context = session.scalar(
        select(LtiContext).where(
            LtiContext.platform_id == platform_id, LtiContext.context_id == context_id
        )
    )
    if context is None:
        context = LtiContext(platform_id=platform_id, context_id=context_id)
        session.add(context)
    context.title = title
    # A launch without a service claim does not take the service away.
    context.memberships_url = memberships_url or context.memberships_url
    context.lineitems_url = lineitems_url or context.lineitems_url
    session.flush()
    return context


def get_context(*, session: Session, context_pk: int) -> LtiContext | None:
    return session.get(LtiContext, context_pk)


def list_contexts(*, session: Session) -> list[LtiContext]:
    return list(session.scalars(select(LtiContext).order_by(LtiContext.id)))


def has_line_item(*, session: Session, context_pk: int, assignment_id: int) -> bool:
    return session.get(LtiLineItem, (context_pk, assignment_id)) is not None


def set_line_item(*, session: Session, context_pk: int, assignment_id: int, url: str) -> None:
    row = session.get(LtiLineItem, (context_pk, assignment_id))
    if row is None:
        session.add(LtiLineItem(context_id=context_pk, assignment_id=assignment_id, url=url))
    else:
        row.url = url
    session.flush()


@dataclass(frozen=True)
class Target:
    """Where one student's score for an assignment goes: a line item, as that platform
    knows the student."""

    platform_id: int
    line_item_url: str
    sub: str


def score_targets(*, session: Session, assignment_id: int, user_id: int) -> list[Target]:
    rows = session.execute(
        select(LtiContext.platform_id, LtiLineItem.url, LtiAccount.sub)
        .join(LtiContext, LtiContext.id == LtiLineItem.context_id)
        .join(
            LtiAccount,
            (LtiAccount.platform_id == LtiContext.platform_id) & (LtiAccount.user_id == user_id),
        )
        .where(LtiLineItem.assignment_id == assignment_id)
        .order_by(LtiLineItem.context_id)
    )
    return [Target(p, url, sub) for p, url, sub in rows]


# ---- pylti1p3's launch storage --------------------------------------------------------------


def cache_get(*, session: Session, key: str) -> Any:
    row = session.get(LtiCache, key)
    if row is None or row.expires_at <= utcnow():
        return None
    return row.value


def cache_set(*, session: Session, key: str, value: Any, ttl_s: int) -> None:
    now = utcnow()
    session.execute(delete(LtiCache).where(LtiCache.expires_at <= now))
    row = session.get(LtiCache, key)
    if row is None:
        row = LtiCache(key=key)
        session.add(row)
    row.value, row.expires_at = value, now + timedelta(seconds=ttl_s)
    session.commit()


def cache_take(*, session: Session, key: str) -> bool:
    """Delete the key if present and unexpired; True only for the one caller that did (a
    nonce is used once, whichever API process sees it)."""
    taken = session.execute(
        delete(LtiCache).where(LtiCache.key == key, LtiCache.expires_at > utcnow())
    )
    session.commit()
    return rowcount(taken) == 1

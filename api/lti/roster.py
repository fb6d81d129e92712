"""Names and Role Provisioning: a course's members become (or are linked to) judge accounts
without a password, so students who never launched show in the gradebook and the progress
table (both list every student account)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector
from sqlalchemy.orm import Session

from api.lti import claims
from api.lti.adapter import TimeoutSession, registration_of
from store.models import LtiContext, LtiPlatform
from store.repo import lti as repo_lti

MAX_PAGES = 50
MAX_MEMBERS = 5000


@dataclass(frozen=True)
class Synced:
    members: int
    created: int
    skipped: int  # inactive, or not usable (no user id)


def fetch_members(
    platform: LtiPlatform,
    context: LtiContext,
    session: Session,
    *,
    timeout_s: float,
    allow_http: bool,
) -> list[dict[str, Any]]:
    """Every member, page by page, within bounds (a platform is outside input)."""
    assert context.memberships_url is not None
    connector = ServiceConnector(registration_of(platform, session), TimeoutSession(timeout_s))
    nrps = NamesRolesProvisioningService(
        connector, {"context_memberships_url": context.memberships_url}
    )
    members: list[dict[str, Any]] = []
    url: str | None = context.memberships_url
    for _ in range(MAX_PAGES):
        if url is None:
            break
        found, url = nrps.get_members_page(url)
        page: Any = found  # typed by the library, but it is the platform's JSON
        if not isinstance(page, list):
            raise claims.BadClaim("the roster's members must be a list")
        members += [m for m in page if isinstance(m, dict)]
        if url is not None:
            url = claims.url(url, what="the roster's next page", allow_http=allow_http)
        if len(members) > MAX_MEMBERS:
            raise claims.BadClaim(f"the roster has more than {MAX_MEMBERS} members")
    return members


def sync(*, session: Session, context: LtiContext, members: list[dict[str, Any]]) -> Synced:
    created = skipped = 0
    for member in members:
        status = member.get("status", "Active")
        user_id = member.get("user_id")
        if status != "Active" or not isinstance(user_id, str) or not 0 < len(user_id) <= 255:
            skipped += 1
            continue
        try:
            instructor = claims.is_instructor(member.get("roles", []))
        except claims.BadClaim:
            skipped += 1
            continue
        _, new = repo_lti.link_user(
            session=session,
            platform_id=context.platform_id,
            sub=user_id,
            username=claims.username_for(member, user_id),
            instructor=instructor,
        )
        created += new
    session.commit()
    return Synced(members=len(members), created=created, skipped=skipped)

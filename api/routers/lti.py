"""LTI 1.3 for instructors: register platforms, rotate the tool's key, read the values to
paste into an LMS, sync a course's roster (NRPS), see the scores waiting to be posted."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request, status
from pydantic import BaseModel, Field
from pylti1p3.exception import LtiException

from api.deps import Instructor, SessionDep, SettingsDep
from api.lti import claims, keys, roster
from api.lti.web import tool_urls
from api.schemas import DbId, Message
from store.repo import lti as repo_lti
from store.repo import lti_scores

router = APIRouter(tags=["lti"])

URL_FIELDS = {
    "auth_login_url": "the authentication request URL",
    "auth_token_url": "the access token URL",
    "key_set_url": "the public keyset URL",
}

Id = Annotated[str, Field(min_length=1, max_length=255)]
Url = Annotated[str, Field(min_length=1, max_length=claims.MAX_URL)]


class PlatformCreate(BaseModel):
    issuer: Id
    client_id: Id
    deployment_ids: list[Id] = Field(min_length=1, max_length=50)
    auth_login_url: Url
    auth_token_url: Url
    key_set_url: Url


class PlatformPublic(BaseModel):
    id: int
    issuer: str
    client_id: str
    deployment_ids: list[str]
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    created_at: datetime


class ToolConfig(BaseModel):
    login_url: str
    launch_url: str
    deep_linking_url: str
    jwks_url: str
    signing_kid: str


class ContextPublic(BaseModel):
    id: int
    platform_id: int
    context_id: str
    title: str
    roster: bool  # has a Names and Role Provisioning endpoint
    grades: bool  # has an Assignment and Grade Services endpoint


class RosterSynced(BaseModel):
    members: int
    created: int
    skipped: int


class PendingScore(BaseModel):
    assignment_id: int
    user_id: int
    changed_at: datetime
    due_at: datetime
    tries: int
    last_error: str | None


def _public(platform: Any) -> PlatformPublic:
    return PlatformPublic.model_validate(platform, from_attributes=True)


@router.get("/lti/platforms", response_model=list[PlatformPublic])
def list_platforms(session: SessionDep, _: Instructor) -> list[PlatformPublic]:
    return [_public(p) for p in repo_lti.list_platforms(session=session)]


@router.post(
    "/lti/platforms",
    response_model=PlatformPublic,
    status_code=status.HTTP_201_CREATED,
    responses={409: {"model": Message}, 422: {"model": Message}},
)
def register_platform(
    body: PlatformCreate, session: SessionDep, settings: SettingsDep, user: Instructor
) -> PlatformPublic:
    fields = body.model_dump()
    try:
        for name, what in URL_FIELDS.items():
            claims.url(fields[name], what=what, allow_http=settings.lti_allow_http)
    except claims.BadClaim as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=str(exc)) from exc
    fields["deployment_ids"] = sorted(set(body.deployment_ids))
    try:
        platform = repo_lti.add_platform(session=session, fields=fields, user_id=user.id)
    except repo_lti.Conflict as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from exc
    session.commit()
    return _public(platform)


@router.delete(
    "/lti/platforms/{platform_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={404: {"model": Message}},
)
def delete_platform(platform_id: DbId, session: SessionDep, _: Instructor) -> None:
    platform = repo_lti.get_platform(session=session, platform_id=platform_id)
    if platform is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such platform")
    repo_lti.delete_platform(session=session, platform=platform)
    session.commit()


@router.get("/lti/config", response_model=ToolConfig)
def config(request: Request, session: SessionDep, _: Instructor) -> ToolConfig:
    return ToolConfig(**tool_urls(request), signing_kid=keys.signing_key(session=session).kid)


@router.post("/lti/keys/rotate", response_model=ToolConfig)
def rotate_key(request: Request, session: SessionDep, _: Instructor) -> ToolConfig:
    """A new signing key; the old one stays in the key set for a week (platforms cache it)."""
    return ToolConfig(**tool_urls(request), signing_kid=keys.rotate(session=session).kid)


@router.get("/lti/contexts", response_model=list[ContextPublic])
def list_contexts(session: SessionDep, _: Instructor) -> list[ContextPublic]:
    return [
        ContextPublic(
            id=c.id,
            platform_id=c.platform_id,
            context_id=c.context_id,
            title=c.title,
            roster=c.memberships_url is not None,
            grades=c.lineitems_url is not None,
        )
        for c in repo_lti.list_contexts(session=session)
    ]


@router.post(
    "/lti/contexts/{context_id}/roster",
    response_model=RosterSynced,
    responses={404: {"model": Message}, 409: {"model": Message}, 502: {"model": Message}},
)
def sync_roster(
    context_id: DbId, session: SessionDep, settings: SettingsDep, _: Instructor
) -> RosterSynced:
    """The course's members from the platform (NRPS): each one a judge account, linked."""
    context = repo_lti.get_context(session=session, context_pk=context_id)
    if context is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no such course")
    if context.memberships_url is None:
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail="the platform gave this course no roster service"
        )
    platform = repo_lti.get_platform(session=session, platform_id=context.platform_id)
    assert platform is not None  # the course goes with its platform (ON DELETE CASCADE)
    try:
        members = roster.fetch_members(
            platform,
            context,
            session,
            timeout_s=settings.lti_timeout_s,
            allow_http=settings.lti_allow_http,
        )
    except (LtiException, claims.BadClaim, OSError, ValueError) as exc:
        raise HTTPException(
            status.HTTP_502_BAD_GATEWAY, detail=f"the platform's roster failed: {exc}"[:500]
        ) from exc
    synced = roster.sync(session=session, context=context, members=members)
    return RosterSynced(members=synced.members, created=synced.created, skipped=synced.skipped)


@router.get("/lti/scores", response_model=list[PendingScore])
def pending_scores(session: SessionDep, _: Instructor) -> list[PendingScore]:
    """The scores not posted yet (each with its last error, if a post failed)."""
    return [
        PendingScore.model_validate(row, from_attributes=True)
        for row in lti_scores.pending(session=session)
    ]

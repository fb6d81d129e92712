"""What a validated launch carries, bounded and checked: a platform is outside input, so
every claim the judge keeps or follows has a type, a size and (for URLs) a scheme."""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
DEPLOYMENT = LTI + "deployment_id"
DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

RESOURCE_LINK = "LtiResourceLinkRequest"
DEEP_LINK = "LtiDeepLinkingRequest"

MAX_ID = 255
MAX_URL = 2048
MAX_ROLES = 50
# Room for a "-N" suffix within the 32 characters a username may have (api.schemas).
USERNAME_CHARS = 28
_INSTRUCTOR = re.compile(r"(membership#Instructor|membership/Instructor#\w+|person#Administrator)$")
_USERNAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


class BadClaim(ValueError):
    """A claim the judge cannot use: the launch is refused with this message."""


def url(value: Any, *, what: str, allow_http: bool) -> str:
    """An absolute https URL (http only when allowed, and then only to a loopback host)."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_URL:
        raise BadClaim(f"{what} must be a URL of at most {MAX_URL} characters")
    parts = urlsplit(value)
    if not parts.hostname or parts.scheme not in ("https", "http"):
        raise BadClaim(f"{what} must be an absolute https URL")
    if parts.scheme == "http":
        try:
            loopback = ipaddress.ip_address(parts.hostname).is_loopback
        except ValueError:
            loopback = parts.hostname == "localhost"
        if not (allow_http and loopback):
            raise BadClaim(f"{what} must use https")
    return value


def text(value: Any, *, what: str, limit: int = MAX_ID, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value) or len(value) > limit:
        raise BadClaim(f"{what} must be a string of 1 to {limit} characters")
    return value


def _optional_url(value: Any, *, what: str, allow_http: bool) -> str | None:
    return None if value is None else url(value, what=what, allow_http=allow_http)


def _mapping(body: Mapping[str, Any], claim: str) -> Mapping[str, Any]:
    value = body.get(claim, {})
    if not isinstance(value, Mapping):
        raise BadClaim(f"the claim {claim} must be an object")
    return value


@dataclass(frozen=True)
class Launch:
    message_type: str
    sub: str
    username: str  # what to name a new account
    instructor: bool
    context_id: str | None
    context_title: str
    memberships_url: str | None
    lineitems_url: str | None
    lineitem_url: str | None
    assignment_id: int | None
    problem: str | None
    deep_link_return_url: str | None


def username_for(body: Mapping[str, Any], sub: str) -> str:
    """A readable name for a new account: the LMS's username, else the name, else the id."""
    for claim in ("preferred_username", "name", "given_name"):
        value = body.get(claim)
        if isinstance(value, str):
            name = _USERNAME_CHARS.sub("-", value).strip("-.")[:USERNAME_CHARS]
            if len(name) >= 3:
                return name
    return "lti-" + hashlib.sha256(sub.encode()).hexdigest()[:12]


def is_instructor(roles: Any) -> bool:
    if not isinstance(roles, list) or len(roles) > MAX_ROLES:
        raise BadClaim(f"the roles claim must be a list of at most {MAX_ROLES} roles")
    return any(isinstance(r, str) and _INSTRUCTOR.search(r) for r in roles)


def parse(body: Mapping[str, Any], *, allow_http: bool) -> Launch:
    message_type = body.get(MESSAGE_TYPE)
    if message_type not in (RESOURCE_LINK, DEEP_LINK):
        raise BadClaim(f"this tool takes {RESOURCE_LINK} and {DEEP_LINK} messages")
    sub = text(body.get("sub"), what="sub (the user)")
    context = _mapping(body, CONTEXT)
    custom = _mapping(body, CUSTOM)
    ags = _mapping(body, AGS)
    nrps = _mapping(body, NRPS)
    deep = _mapping(body, DEEP_LINKING)
    assignment = custom.get("assignment")
    assignment_id = None
    if assignment is not None:
        if not (isinstance(assignment, str | int) and str(assignment).isdigit()):
            raise BadClaim("the custom parameter assignment must be an assignment's number")
        assignment_id = int(assignment)
        if not 0 < assignment_id < 2**31:
            raise BadClaim("the custom parameter assignment is out of range")
    problem = custom.get("problem")
    if problem is not None:
        problem = text(problem, what="the custom parameter problem", limit=64)
    deep_return = None
    if message_type == DEEP_LINK:
        deep_return = url(
            deep.get("deep_link_return_url"), what="deep_link_return_url", allow_http=allow_http
        )
    return Launch(
        message_type=message_type,
        sub=sub,
        username=username_for(body, sub),
        instructor=is_instructor(body.get(ROLES, [])),
        context_id=text(context.get("id"), what="the context id", required=False) or None,
        context_title=text(context.get("title"), what="the context title", required=False),
        memberships_url=_optional_url(
            nrps.get("context_memberships_url"),
            what="context_memberships_url",
            allow_http=allow_http,
        ),
        lineitems_url=_optional_url(ags.get("lineitems"), what="lineitems", allow_http=allow_http),
        lineitem_url=_optional_url(ags.get("lineitem"), what="lineitem", allow_http=allow_http),
        assignment_id=assignment_id,
        problem=problem,
        deep_link_return_url=deep_return,
    )


def check_audience(body: Mapping[str, Any], client_id: str) -> None:
    """aud names the tool's client id; with several audiences, azp must be it (OIDC core
    3.1.3.7). pylti1p3 compares only the first audience and never reads azp."""
    aud = body.get("aud")
    audiences = aud if isinstance(aud, list) else [aud]
    if client_id not in audiences:
        raise BadClaim("the launch is addressed to another client (aud)")
    azp = body.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != client_id:
        raise BadClaim("the launch's authorized party (azp) is another client")

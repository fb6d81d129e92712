"""What a platform and an LMS user's browser talk to: the key set, the OIDC login, the
launch, deep linking; and the page of values a platform administrator pastes.

A refused launch gets a page saying why, and changes nothing: every check (pylti1p3's
validation, the audience, the claims) runs before the first write.
"""

from __future__ import annotations

import logging
from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.lineitem import LineItem

from api import catalog
from api.deps import get_services
from api.lti import claims, keys
from api.lti.adapter import Lti, LtiMessageLaunch, LtiRequest
from api.security import create_token
from api.services import Services, services_of
from api.web.pages import SECURITY_HEADERS, page
from store.models import Assignment, Role
from store.repo import assignments as repo_assignments
from store.repo import lti as repo_lti
from store.repo import lti_scores

router = APIRouter(include_in_schema=False)
log = logging.getLogger(__name__)

LINEITEM_SCOPE: Final = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"

MAX_PARAM_CHARS = 32 * 1024  # an id_token is a few kilobytes


def tool_urls(request: Request) -> dict[str, str]:
    base = str(request.base_url).rstrip("/")
    return {
        "login_url": base + "/lti/login",
        "launch_url": base + "/lti/launch",
        "deep_linking_url": base + "/lti/launch",
        "jwks_url": base + "/lti/jwks",
    }


async def _lti_request(request: Request) -> LtiRequest | str:
    """The request's parameters (query and form) and cookies, or why they are refused."""
    params = dict(request.query_params)
    if request.method == "POST":
        form = await request.form()
        params.update({k: v for k, v in form.items() if isinstance(v, str)})
    if any(len(v) > MAX_PARAM_CHARS for v in params.values()):
        return "a parameter of the request is too long"
    return LtiRequest(params, dict(request.cookies), request.url.scheme == "https")


def refused(request: Request, reason: str, status_code: int = 400) -> Response:
    return page(
        request, "lti_refused.html", title="Launch refused", reason=reason, status_code=status_code
    )


@router.get("/lti/jwks")
def jwks(request: Request) -> JSONResponse:
    with services_of(request.app).session_factory() as session:
        return JSONResponse(keys.key_set(session=session))


@router.api_route("/lti/login", methods=["GET", "POST"])
async def login(request: Request) -> Response:
    """OIDC third-party-initiated login: remember a state (cookie) and a nonce, and send the
    browser to the platform's authorization endpoint."""
    lti_request = await _lti_request(request)
    if isinstance(lti_request, str):
        return refused(request, lti_request)
    services = await get_services(request)
    launch_url = tool_urls(request)["launch_url"]

    def run() -> Response:
        lti = Lti(services.session_factory, lti_request, services.settings.lti_timeout_s)
        try:
            return lti.login().redirect(launch_url)
        except (LtiException, OIDCException) as exc:
            return refused(request, f"the login request was refused: {exc}")

    return await run_in_threadpool(run)


@router.post("/lti/launch")
async def launch(request: Request) -> Response:
    lti_request = await _lti_request(request)
    if isinstance(lti_request, str):
        return refused(request, lti_request)
    services = await get_services(request)
    return await run_in_threadpool(_launch, request, services, lti_request)


def _launch(request: Request, services: Services, lti_request: LtiRequest) -> Response:
    settings = services.settings
    lti = Lti(services.session_factory, lti_request, settings.lti_timeout_s)
    message = lti.launch()
    try:
        message.validate()
        body = message.get_launch_data()
        claims.check_audience(body, message.get_client_id())
        parsed = claims.parse(body, allow_http=settings.lti_allow_http)
    except (LtiException, claims.BadClaim) as exc:
        return refused(request, str(exc))
    if parsed.message_type == claims.DEEP_LINK and not parsed.instructor:
        return refused(request, "only an instructor can place the judge's work in a course", 403)
    with services.session_factory() as session:
        platform = repo_lti.find_platform(
            session=session, issuer=message.get_iss(), client_id=message.get_client_id()
        )
        if platform is None:  # deleted since pylti1p3 found it
            return refused(request, "this platform is not registered")
        user, _ = repo_lti.link_user(
            session=session,
            platform_id=platform.id,
            sub=parsed.sub,
            username=parsed.username,
            instructor=parsed.instructor,
        )
        if user.disabled:
            session.rollback()
            return refused(request, "this judge account is disabled; ask an instructor", 403)
        context = None
        if parsed.context_id is not None:
            context = repo_lti.upsert_context(
                session=session,
                platform_id=platform.id,
                context_id=parsed.context_id,
                title=parsed.context_title,
                memberships_url=parsed.memberships_url,
                lineitems_url=parsed.lineitems_url,
            )
        assignment = (
            repo_assignments.get_assignment(session=session, assignment_id=parsed.assignment_id)
            if parsed.assignment_id is not None
            else None
        )
        line_item = parsed.lineitem_url
        if (
            assignment is not None
            and context is not None
            and not line_item
            and not repo_lti.has_line_item(
                session=session, context_pk=context.id, assignment_id=assignment.id
            )
        ):
            line_item = _find_or_create_line_item(
                message, assignment, parsed.lineitems_url, settings.lti_allow_http
            )
        if assignment is not None and context is not None and line_item:
            repo_lti.set_line_item(
                session=session, context_pk=context.id, assignment_id=assignment.id, url=line_item
            )
            if user.role == Role.STUDENT:  # a score made before the first launch goes too
                lti_scores.queue_for_student(
                    session=session, assignment_id=assignment.id, user_id=user.id
                )
        session.commit()
        token = create_token(
            user_id=user.id,
            secret=settings.secret_key,
            minutes=settings.token_expire_minutes,
            generation=user.token_generation,
        )
        if parsed.message_type == claims.DEEP_LINK:
            return _picker(request, session, message.get_launch_id(), token)
        if assignment is not None:
            next_path = f"/assignments#assignment-{assignment.id}"
        elif parsed.problem is not None:
            next_path = f"/problems/{parsed.problem}"
        else:
            next_path = "/problems"
    return page(
        request,
        "lti_landing.html",
        title="Opening the judge",
        token=token,
        next_path=next_path,
        username=user.username,
    )


def _find_or_create_line_item(
    message: LtiMessageLaunch, assignment: Assignment, lineitems_url: str | None, allow_http: bool
) -> str | None:
    """The assignment's line item in the course, for a link that came without one (made by
    hand in the LMS): found on the first page of the course's line items by its resource id,
    or created (AGS). None when the platform does not offer it or fails: the launch goes on,
    and the next launch tries again."""
    resource_id = f"assignment-{assignment.id}"
    try:
        if lineitems_url is None or not message.has_ags():
            return None
        ags = message.get_ags()
        if not (ags.can_read_lineitem() and ags.can_create_lineitem()):
            return None
        # One page: pylti1p3's find_or_create follows a platform's "next" links unbounded.
        items, _ = ags.get_lineitems_page()
        found = next(
            (i for i in items if isinstance(i, dict) and i.get("resourceId") == resource_id),
            None,
        )
        if found is None:
            new = (
                LineItem()
                .set_resource_id(resource_id)
                .set_label(assignment.title)
                .set_score_maximum(sum(p.points for p in assignment.problems) or 1.0)
            )
            created = message.get_service_connector().make_service_request(
                [LINEITEM_SCOPE],
                lineitems_url,
                is_post=True,
                data=new.get_value(),
                content_type="application/vnd.ims.lis.v2.lineitem+json",
                accept="application/vnd.ims.lis.v2.lineitem+json",
            )
            found = created["body"] if isinstance(created["body"], dict) else {}
        return claims.url(found.get("id"), what="the line item", allow_http=allow_http)
    except (LtiException, claims.BadClaim, OSError, ValueError) as exc:
        log.warning("no line item for assignment %d: %s", assignment.id, exc)
        return None


def _picker(request: Request, session: Any, launch_id: str, token: str) -> Response:
    assignments = repo_assignments.list_assignments(session=session)
    shown = catalog.shown(session, instructor=True)
    return page(
        request,
        "lti_deep_link.html",
        title="Place in the course",
        launch_id=launch_id,
        token=token,
        assignments=assignments,
        problem_slugs=sorted(shown),
    )


@router.post("/lti/deep-link")
async def deep_link(request: Request) -> Response:
    """The instructor's choice, sent back to the platform as a signed LtiDeepLinkingResponse
    (an ltiResourceLink naming the assignment or problem; a line item for an assignment)."""
    lti_request = await _lti_request(request)
    if isinstance(lti_request, str):
        return refused(request, lti_request)
    services = await get_services(request)
    return await run_in_threadpool(_deep_link, request, services, lti_request)


def _deep_link(request: Request, services: Services, lti_request: LtiRequest) -> Response:
    settings = services.settings
    lti = Lti(services.session_factory, lti_request, settings.lti_timeout_s)
    launch_id = lti_request.get_param("launch_id")
    kind, _, value = lti_request.get_param("item").partition(":")
    try:
        if not launch_id.startswith("lti1p3-launch-"):
            raise LtiException("no deep-linking launch was named")
        message = lti.restored(launch_id)
        parsed = claims.parse(message.get_launch_data(), allow_http=settings.lti_allow_http)
    except (LtiException, claims.BadClaim) as exc:
        return refused(request, f"this deep-linking launch cannot be answered: {exc}")
    if parsed.message_type != claims.DEEP_LINK or not parsed.instructor:
        return refused(request, "this launch was not an instructor's deep-linking request", 403)
    resource = DeepLinkResource().set_url(tool_urls(request)["launch_url"])
    with services.session_factory() as session:
        if kind == "assignment" and value.isdigit():
            assignment = repo_assignments.get_assignment(session=session, assignment_id=int(value))
            if assignment is None:
                return refused(request, "there is no such assignment", 404)
            points = sum(p.points for p in assignment.problems) or 1.0
            resource.set_title(assignment.title).set_custom_params(
                {"assignment": str(assignment.id)}
            ).set_lineitem(
                LineItem()
                .set_label(assignment.title)
                .set_score_maximum(points)
                .set_resource_id(f"assignment-{assignment.id}")
            )
        elif kind == "problem" and catalog.lookup(session, value, instructor=True) is not None:
            resource.set_title(value).set_custom_params({"problem": value})
        else:
            return refused(request, "choose an assignment or a problem", 422)
    jwt_value = message.get_deep_link().get_response_jwt([resource])
    return_url = parsed.deep_link_return_url
    assert return_url is not None  # parse() requires it of a deep-linking request
    response = page(
        request, "lti_deep_link_return.html", title="Placing", return_url=return_url, jwt=jwt_value
    )
    # This one page posts to the platform (the default policy allows only our own origin).
    target = urlsplit(return_url)
    csp = SECURITY_HEADERS["Content-Security-Policy"].replace(
        "form-action 'self'", f"form-action 'self' {target.scheme}://{target.netloc}"
    )
    response.headers["Content-Security-Policy"] = csp
    return response


@router.get("/instructor/lti")
def configuration(request: Request) -> Response:
    """The values to paste into the LMS (public: they are the tool's addresses)."""
    return page(
        request, "lti_config.html", title="LTI 1.3", nav="instructor", urls=tool_urls(request)
    )

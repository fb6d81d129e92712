"""A real LTI 1.3 platform for the LTI tests, built from the `lti1p3platform` package (which
nobody here wrote): its registration, OIDC login, message launch (with deep linking, AGS and
NRPS claims), access tokens, deep-linking response validation, and its AGS score and NRPS
membership services, wired to HTTP here. Run as its own process on loopback:

    python -m tests.service.lti_platform PORT TOOL_URL

What the package leaves to the platform, and this file adds (minimal): the storage of
courses, links, line items, scores and members (memory), the HTTP routes, and the
authorization endpoint's form. `GET /state` shows the tests what the platform received.

For the attack tests, `lti_message_hint` may name a tampering (`LINK:expired`, `:wrong_aud`,
`:wrong_key`, `:unknown_deployment`, `:no_nonce`): the id_token is then made wrong that one
way, as a forged or mis-addressed launch would be.
"""

from __future__ import annotations

import html
import sys
import time
from typing import Any

import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as PlatformRequest
from lti1p3platform.request import TRequest
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
    TPage,
)

CLIENT_ID = "judge-client"
DEPLOYMENT_ID = "deployment-1"
CONTEXT_ID = "course-101"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def _pem(key: rsa.RSAPrivateKey) -> tuple[str, str]:
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


PRIVATE, PUBLIC = _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))
# An attacker's key, published nowhere: a launch signed with it must fail.
OTHER_PRIVATE, _ = _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))

# The platform's memory: the course roster, the placed links, line items and scores.
USERS = {
    "prof": {"roles": [INSTRUCTOR], "name": "Prof Ada"},
    "stu1": {"roles": [LEARNER], "name": "Student One"},
    "stu2": {"roles": [LEARNER], "name": "Student Two"},  # never launches: only NRPS
    "mallory": {"roles": [LEARNER], "name": "Mallory"},  # the attack tests' user
}
LINKS: dict[str, dict[str, Any]] = {}  # resource link id -> content item
LINE_ITEMS: dict[str, dict[str, Any]] = {}  # line item id -> line item
SCORES: list[dict[str, Any]] = []  # every score received, in order


class Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: Any) -> None:
        self.base: str = kwargs["base"]
        self.tool: str = kwargs["tool"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        return (
            Registration()
            .set_iss(self.base)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT_ID)
            .set_oidc_login_url(self.tool + "/lti/login")
            .set_launch_url(self.tool + "/lti/launch")
            .set_deeplink_launch_url(self.tool + "/lti/launch")
            .set_tool_key_set_url(self.tool + "/lti/jwks")
            .set_platform_public_key(PUBLIC)
            .set_platform_private_key(PRIVATE)
        )


class SyncRequest(PlatformRequest):
    """The package's Request over what a FastAPI route already read."""

    def build_metadata(self, request: Any) -> TRequest:
        return request  # type: ignore[no-any-return]


async def read(request: Request) -> SyncRequest:
    form: dict[str, Any] = {}
    body: Any = ""
    if request.method == "POST":
        if request.headers.get("content-type", "").startswith("application/x-www-form"):
            form = {k: v for k, v in (await request.form()).items()}
        else:
            body = await request.json()
    return SyncRequest(
        {
            "method": request.method,
            "form_data": form,
            "get_data": dict(request.query_params),
            "headers": request.headers,
            "content_type": request.headers.get("content-type"),
            "path": request.url.path,
            "json": body,
        }
    )


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> Any:
        return RedirectResponse(url, status_code=302)


class Launch(LTIAdvantageMessageLaunchAbstract):
    tamper = ""

    def get_preflight_response(self) -> dict[str, Any]:
        assert self._request is not None
        return dict(self._request.get_data)

    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> Any:
        fields = "".join(
            f'<input type="hidden" name="{k}" value="{html.escape(str(v))}">'
            for k, v in launch_data.items()
            if k != "launch_url"
        )
        return HTMLResponse(
            f'<form method="POST" action="{html.escape(launch_data["launch_url"])}" '
            f'id="form">{fields}</form>'
        )

    def get_launch_data(self) -> tuple[dict[str, Any], str]:
        message, state = super().get_launch_data()
        if self.tamper == "wrong_aud":
            message["aud"] = message["azp"] = "someone-else"
        elif self.tamper == "unknown_deployment":
            message["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] = "nope"
        elif self.tamper == "no_nonce":
            del message["nonce"]
        return message, state

    def generate_launch_request(self) -> Any:
        launch = super().generate_launch_request()
        if self.tamper in ("expired", "wrong_key"):
            import jwt

            body = jwt.decode(launch["id_token"], options={"verify_signature": False})
            header = jwt.get_unverified_header(launch["id_token"])
            key = PRIVATE
            if self.tamper == "expired":
                body["iat"], body["exp"] = int(time.time()) - 600, int(time.time()) - 300
            else:
                key = OTHER_PRIVATE
            launch["id_token"] = jwt.encode(body, key, algorithm="RS256", headers=header)
        return launch


class Grades(AssignmentsGradesService):
    def find_lineitems(self, page: int = 1, limit: int | None = None) -> Any:
        return {"content": list(LINE_ITEMS.values()), "has_next": False}

    def find_lineitem(self, line_item_id: str) -> Any:
        return LINE_ITEMS[line_item_id]

    def create_lineitem(self, lineitem: Any) -> Any:
        n = str(len(LINE_ITEMS) + 1)
        LINE_ITEMS[n] = {**lineitem, "id": f"{self.ags.lineitems_url}/{n}", "resourceLinkId": ""}
        return LINE_ITEMS[n]

    def update_lineitem(self, lineitem: Any) -> Any:
        raise NotImplementedError

    def delete_lineitem(self, line_item_id: str) -> None:
        raise NotImplementedError

    def update_score(self, line_item_id: str, score: Any) -> UpdateScoreStatus:
        SCORES.append({"line_item": line_item_id, **score})
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, **kwargs: Any) -> TPage:
        return {"content": [], "has_next": False}


class Roster(NamesRoleProvisioningService):
    def get_member_data_page(self, **kwargs: Any) -> TPage:
        members = [
            {"user_id": sub, "roles": u["roles"], "name": u["name"], "status": "Active"}
            for sub, u in USERS.items()
        ]
        return {"content": members, "has_next": False}

    def get_context_by_id(self) -> Context:
        return Context(id=CONTEXT_ID, label="CS101", title="Games 101")


def create_app(base: str, tool: str) -> FastAPI:
    app = FastAPI()

    def conf() -> Conf:
        return Conf(base=base, tool=tool)

    def reply(response: Any) -> Response:
        result = response.result
        if isinstance(result, dict) and "content" in result:
            result = result["content"]  # the spec's container is an array, not the package's page
        return JSONResponse(result, status_code=response.code)

    @app.get("/jwks")
    def jwks() -> Any:
        c = conf()
        c.get_registration()
        return c.get_jwks()

    @app.get("/start")
    def start(user: str, hint: str) -> Any:
        """The LMS user opens the link (`hint`: a link id, `deep-link`, or `LINK:tampering`)."""
        login = Login(None, conf())
        login.set_lti_message_hint(hint=hint)
        return login.initiate_login(user)

    @app.get("/authorize")
    async def authorize(request: Request) -> Any:
        """The OIDC authorization endpoint: the launch, signed, in a form to the tool."""
        req = await read(request)
        params = req.get_data
        user, hint = params.get("login_hint", ""), params.get("lti_message_hint", "")
        link_id, _, tamper = hint.partition(":")
        launch = Launch(req, conf())
        launch.tamper = tamper
        person = USERS[user]
        launch.set_user_data(user, person["roles"], full_name=person["name"])
        launch.set_launch_context_claim(CONTEXT_ID, context_title="Games 101")
        launch.set_nrps(base + "/memberships")
        if link_id == "deep-link":
            launch.set_dl(
                base + "/deep-link-return", title="Games 101", accept_types={"ltiResourceLink"}
            )
        else:
            link = LINKS.get(link_id, {})
            launch.set_resource_link_claim(link_id, title=link.get("title"))
            launch.set_custom_parameters_claim(link.get("custom", {}))
            item = next((i for i in LINE_ITEMS.values() if i["resourceLinkId"] == link_id), None)
            launch.set_ags(
                base + "/lineitems",
                lineitem_url=item["id"] if item else None,
                allow_creating_lineitems=True,
            )
        return launch.lti_launch()

    @app.post("/token")
    async def token(request: Request) -> Any:
        req = await read(request)
        c = conf()
        c.get_registration()
        return c.get_access_token(req.form_data)

    @app.post("/deep-link-return")
    async def deep_link_return(request: Request) -> Any:
        req = await read(request)
        c = conf()
        c.get_registration()
        items = c.validate_deeplinking_resp(req.form_data)
        for item in items:
            link_id = f"link-{len(LINKS) + 1}"
            LINKS[link_id] = item
            if "lineItem" in item:
                n = len(LINE_ITEMS) + 1
                url = f"{base}/lineitems/{n}"
                LINE_ITEMS[str(n)] = {**item["lineItem"], "id": url, "resourceLinkId": link_id}
        return {"placed": list(LINKS)}

    @app.post("/links")
    def add_link(link_id: str, assignment: str) -> Any:
        """A link made by hand in the LMS (no deep linking, so no line item)."""
        LINKS[link_id] = {"type": "ltiResourceLink", "custom": {"assignment": assignment}}
        return LINKS[link_id]

    @app.api_route("/lineitems", methods=["GET", "POST"])
    async def lineitems(request: Request) -> Response:
        req = await read(request)
        grades = Grades(req, conf(), base + "/lineitems")
        grades.platform_config.get_registration()
        if request.method == "GET":
            return reply(grades.handle_resp(grades.handle_get_lineitems))
        return reply(grades.handle_resp(grades.handle_create_lineitem))

    @app.post("/lineitems/{n}/scores")
    async def scores(n: str, request: Request) -> Response:
        req = await read(request)
        item = LINE_ITEMS.get(n)
        grades = Grades(req, conf(), base + "/lineitems", item["id"] if item else None)
        grades.platform_config.get_registration()
        return reply(grades.handle_resp(grades.handle_update_score, line_item_id=n))

    @app.get("/memberships")
    async def memberships(request: Request) -> Response:
        req = await read(request)
        roster = Roster(req, conf(), base + "/memberships")
        roster.platform_config.get_registration()
        return reply(roster.handle_resp(roster.handle_get_members))

    @app.get("/state")
    def state() -> Any:
        return {"links": LINKS, "line_items": LINE_ITEMS, "scores": SCORES}

    return app


if __name__ == "__main__":
    port, tool_url = int(sys.argv[1]), sys.argv[2]
    uvicorn.run(
        create_app(f"http://127.0.0.1:{port}", tool_url),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )

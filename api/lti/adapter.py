"""pylti1p3 over FastAPI and our database: its Request, cookies, redirect, launch storage,
session service and tool configuration, thin on purpose (the protocol is the library's).

Where this departs from the library's defaults, on purpose:
- the launch storage is the database (`lti_cache`), shared by every API process, and a
  nonce is *taken* (deleted) when checked, so a launch cannot be posted twice (pylti1p3
  only checks that a nonce exists, and also accepts a launch it validated before);
- the state must match the browser's cookie on every launch;
- the signature check requires exp, iat, iss, aud, sub and nonce (PyJWT checks exp and iat
  once present); aud and azp are checked in claims.check_audience;
- every call to a platform has a timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from fastapi.responses import RedirectResponse, Response
from pylti1p3.cookie import CookieService
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.registration import Registration
from pylti1p3.request import Request
from pylti1p3.session import SessionService
from pylti1p3.tool_config.abstract import ToolConfAbstract
from sqlalchemy.orm import Session

from api.lti import keys
from lti import connection
from lti.connection import TimeoutSession
from store.models import LtiPlatform
from store.repo import lti as repo_lti

SessionFactory = Callable[[], Session]
REQUIRED_CLAIMS = ["exp", "iat", "iss", "aud", "sub", "nonce"]


def registration_of(platform: LtiPlatform, session: Session) -> Registration:
    return connection.registration(platform, keys.signing_key(session=session).private_pem)


class LtiRequest(Request):
    def __init__(self, params: Mapping[str, str], cookies: Mapping[str, str], secure: bool):
        self.params = params
        self.cookies = cookies
        self.secure = secure

    def is_secure(self) -> bool:
        return self.secure

    def get_param(self, key: str) -> str:
        value = self.params.get(key)
        return value if isinstance(value, str) else ""


class LtiCookies(CookieService):
    """Cookies read from the request, and those to set kept for the response."""

    def __init__(self, request: LtiRequest) -> None:
        self._request = request
        self.to_set: list[tuple[str, str, int | None]] = []

    def _name(self, name: str) -> str:
        return f"{self._cookie_prefix}-{name}"

    def get_cookie(self, name: str) -> str | None:
        return self._request.cookies.get(self._name(name))

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self.to_set.append((self._name(name), str(value), exp))

    def apply(self, response: Response) -> Response:
        secure = self._request.is_secure()
        for name, value, exp in self.to_set:
            # A launch is a cross-site POST from the LMS: only SameSite=None (which needs
            # Secure) comes with it. Plain http is loopback tests, where Lax does.
            response.set_cookie(
                name,
                value,
                max_age=exp,
                path="/lti/",
                secure=secure,
                httponly=True,
                samesite="none" if secure else "lax",
            )
        return response


class DbStorage(LaunchDataStorage[Any]):
    """pylti1p3's launch storage in the database; keys need no browser session id (a
    nonce, a state or a launch id is random, and the state is checked against a cookie)."""

    def __init__(self, session_factory: SessionFactory) -> None:
        super().__init__()
        self._sessions = session_factory

    def get_session_cookie_name(self) -> str | None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        with self._sessions() as session:
            return repo_lti.cache_get(session=session, key=self._prepare_key(key))

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        with self._sessions() as session:
            repo_lti.cache_set(
                session=session, key=self._prepare_key(key), value=value, ttl_s=exp or 3600
            )

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None

    def take(self, key: str) -> bool:
        with self._sessions() as session:
            return repo_lti.cache_take(session=session, key=self._prepare_key(key))


class LtiSessionService(SessionService):
    # A launch's data stays this long (the deep-linking page reads it back).
    LAUNCH_LIFETIME_S = 3600

    def __init__(self, storage: DbStorage) -> None:  # not the base's: no web-framework session
        self.data_storage = storage
        self._storage = storage
        self._launch_data_lifetime = self.LAUNCH_LIFETIME_S

    def check_nonce(self, nonce: str) -> bool:
        return self._storage.take(self._get_key("nonce", nonce))

    def check_state_is_valid(self, state: str, id_token_hash: str) -> bool:
        return False  # never "seen before, so fine": the cookie decides (validate_state)


class DbToolConf(ToolConfAbstract[LtiRequest]):
    """The registrations are the `lti_platforms` rows; many client ids per issuer."""

    def __init__(self, session_factory: SessionFactory) -> None:
        self._sessions = session_factory

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def _registration(self, iss: str, client_id: str | None) -> Registration:
        with self._sessions() as session:
            platform = repo_lti.find_platform(session=session, issuer=iss, client_id=client_id)
            if platform is None:
                raise LtiException("this platform (issuer and client id) is not registered")
            return registration_of(platform, session)

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        return self._registration(iss, None)

    def find_registration_by_params(
        self, iss: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Registration:
        return self._registration(iss, client_id or None)

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return self.find_deployment_by_params(iss, deployment_id, "")

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str, *args: Any, **kwargs: Any
    ) -> Deployment | None:
        with self._sessions() as session:
            platform = repo_lti.find_platform(
                session=session, issuer=iss, client_id=client_id or None
            )
            if platform is None or deployment_id not in (platform.deployment_ids or []):
                return None
        return Deployment().set_deployment_id(deployment_id)


class LtiRedirect(Redirect[Response]):
    def __init__(self, location: str, cookies: LtiCookies) -> None:
        self._location = location
        self._cookies = cookies

    def do_redirect(self) -> Response:
        return self._cookies.apply(RedirectResponse(self._location, status_code=302))

    def do_js_redirect(self) -> Response:
        return self.do_redirect()  # no inline script on our pages (CSP)

    def set_redirect_url(self, location: str) -> None:
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location


class LtiOIDCLogin(OIDCLogin[LtiRequest, DbToolConf, LtiSessionService, LtiCookies, Response]):
    def get_redirect(self, url: str) -> Redirect[Response]:
        return LtiRedirect(url, self._cookie_service)


class LtiMessageLaunch(MessageLaunch[LtiRequest, DbToolConf, LtiSessionService, LtiCookies]):
    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


class Lti:
    """What one request needs: the request, its cookies, the storage and the configuration."""

    def __init__(
        self, session_factory: SessionFactory, request: LtiRequest, timeout_s: float
    ) -> None:
        self.request = request
        self.cookies = LtiCookies(request)
        self.storage = DbStorage(session_factory)
        self.sessions = LtiSessionService(self.storage)
        self.conf = DbToolConf(session_factory)
        self.http = TimeoutSession(timeout_s)

    def login(self) -> LtiOIDCLogin:
        return LtiOIDCLogin(self.request, self.conf, self.sessions, self.cookies)

    def launch(self) -> LtiMessageLaunch:
        launch = LtiMessageLaunch(
            self.request,
            self.conf,
            session_service=self.sessions,
            cookie_service=self.cookies,
            requests_session=self.http,
        )
        options = {"verify_aud": False, "require": REQUIRED_CLAIMS}
        launch.set_jwt_verify_options(cast(dict[str, bool], options))
        return launch

    def restored(self, launch_id: str) -> LtiMessageLaunch:
        """A launch validated earlier (its data from the storage), for deep linking."""
        launch = LtiMessageLaunch.from_cache(
            launch_id,
            self.request,
            self.conf,
            session_service=self.sessions,
            cookie_service=self.cookies,
            requests_session=self.http,
        )
        return cast(LtiMessageLaunch, launch)

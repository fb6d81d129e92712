"""How the tool calls a platform: an HTTP session that never waits forever, and the PyLTI1p3
Registration of a platform signed with the tool's key."""

from __future__ import annotations

from typing import Any, Protocol

import requests
from cryptography.hazmat.primitives import serialization
from pylti1p3.registration import Registration


class PlatformFields(Protocol):
    """What a Registration needs of a platform (store.models.LtiPlatform has it)."""

    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str


class TimeoutSession(requests.Session):
    """requests has no timeout by default and follows redirects: a platform that stopped
    answering would hold the caller forever, and a redirect could send the tool's token
    request elsewhere."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__()
        self.timeout_s = timeout_s
        self.headers["User-Agent"] = "footholds-judge LTI tool"

    def request(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", self.timeout_s)
        kwargs.setdefault("allow_redirects", False)
        return super().request(*args, **kwargs)


def public_pem(private_pem: str) -> str:
    """The public half of a PEM private key, as PEM."""
    private = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def registration(platform: PlatformFields, private_pem: str) -> Registration:
    return (
        Registration()
        .set_issuer(platform.issuer)
        .set_client_id(platform.client_id)
        .set_auth_login_url(platform.auth_login_url)
        .set_auth_token_url(platform.auth_token_url)
        .set_key_set_url(platform.key_set_url)
        .set_tool_private_key(private_pem)
        .set_tool_public_key(public_pem(private_pem))
    )

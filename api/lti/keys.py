"""The tool's RSA keys: generated in the database on first need, rotated by an instructor,
published as a JSON Web Key Set (a retired key stays published for a while)."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.registration import Registration
from sqlalchemy.orm import Session

from lti import connection
from store.models import LtiKey
from store.repo import lti as repo_lti


def _new_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def rotate(*, session: Session) -> LtiKey:
    """A new signing key (the earlier one is retired); committed. Its kid is its RFC 7638
    thumbprint, the one pylti1p3 puts in the headers of what it signs."""
    pem = _new_pem()
    kid = str(Registration.get_jwk(connection.public_pem(pem))["kid"])
    key = repo_lti.add_key(session=session, kid=kid, private_pem=pem)
    session.commit()
    return key


def signing_key(*, session: Session) -> LtiKey:
    """The key that signs now, made on first need."""
    return repo_lti.signing_key(session=session) or rotate(session=session)


def public_pem(key: LtiKey) -> str:
    return connection.public_pem(key.private_pem)


def jwk(key: LtiKey) -> dict[str, Any]:
    return dict(Registration.get_jwk(public_pem(key)))


def key_set(*, session: Session) -> dict[str, Any]:
    signing_key(session=session)
    return {"keys": [jwk(k) for k in repo_lti.published_keys(session=session)]}

"""Hostile request bodies are a client error (4xx), never a server error: JSON nested deeper
than the parser (or whatever walks the value next) can follow, on every JSON endpoint. On
SQLite and PostgreSQL, each test inside a rolled-back transaction (as in test_api.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.security import create_token
from config import Settings
from store import repo
from store.models import Role
from tests.service.conftest import serving

SECRET = "bodies-test-secret-" + "v" * 32
DEEP = 100_000
BOARD = '{{"input": {{"board": {0}, "aloc": [0, 0], "bloc": [0, 0]}}}}'
ENDPOINTS = [
    ("/api/v1/users", '{{"username": "deep", "password": "long-enough", "x": {0}}}'),
    ("/api/v1/submissions", '{{"problem": "footholds", "source": {0}}}'),
    ("/api/v1/problems/footholds/boards", BOARD),
    ("/api/v1/problems/footholds/boards/preview", BOARD),
    ("/api/v1/problems/footholds/strength/board", BOARD),
]


@pytest.fixture
def client(session: Session, db_engine) -> Iterator[TestClient]:
    settings = Settings(
        database_url=db_engine.url.render_as_string(hide_password=False), secret_key=SECRET
    )
    sent: list[int] = []
    teacher = repo.create_user(
        session=session, username="teacher", password_hash="x", role=Role.INSTRUCTOR
    )
    session.commit()
    token = create_token(user_id=teacher.id, secret=SECRET, minutes=5)

    def enqueue(submission_id: int, *, priority: str = "live") -> bool:
        sent.append(1)
        return True

    with serving(settings, session, enqueue=enqueue) as app:
        test_client = TestClient(app, raise_server_exceptions=False)
        test_client.headers["Authorization"] = f"Bearer {token}"
        test_client.sent = sent  # type: ignore[attr-defined]
        yield test_client


def nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize(("path", "template"), ENDPOINTS)
@pytest.mark.parametrize(
    "body",
    [
        "[" * DEEP,  # not even closed
        '{"a": ' * DEEP,
        '{"input": ' + "[" * DEEP,
        "LIST",  # a complete value nested DEEP levels inside a sensible body
        "DICT",
    ],
)
def test_deeply_nested_json_is_a_client_error(client, path, template, body) -> None:
    if body == "LIST":
        body = template.format(nested(DEEP, "list"))
    elif body == "DICT":
        body = template.format(nested(DEEP, "dict"))
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, (path, response.status_code, response.text[:300])
    assert response.json()["detail"] == "the request is nested too deeply (JSON arrays or objects)"
    assert client.sent == []  # type: ignore[attr-defined]


def test_json_just_under_the_parsers_limit_is_a_client_error(client) -> None:
    # It parses; whatever walks the value next (validation, the handlers) must cope too.
    for path, template in ENDPOINTS:
        body = template.format(nested(990, "list"))
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text)
    assert client.sent == []  # type: ignore[attr-defined]

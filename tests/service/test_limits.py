"""Per-user submission limits (submissions per minute, live submissions waiting to be graded)
hold under real concurrency: many requests of one user at once, each on its own HTTP client
and database session, against a real database (PostgreSQL and SQLite), accept exactly the
limit."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from api.main import create_app
from api.security import create_token
from config import Settings
from store import repo
from store.db import make_engine, make_session_factory
from store.migrate import upgrade
from store.models import Role, Status, Submission
from worker import outcomes

SECRET = "limits-test-secret-" + "z" * 32
SOURCE = "def solution(board):\n    return 0\n"
PARALLEL = 40


class Live:
    """An app on its own migrated database, with no session override: every request gets
    its own session from the app's factory, as in production."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.sessions: sessionmaker[Session] = make_session_factory(self.engine)

    def app(self, **settings: object) -> FastAPI:
        config = Settings(database_url=self.url, secret_key=SECRET, **settings)
        return create_app(config, enqueue=lambda submission_id, *, priority="live": True)

    def user(self, role: Role = Role.STUDENT) -> tuple[int, dict[str, str]]:
        with self.sessions() as session:
            user = repo.create_user(
                session=session,
                username=f"u{uuid.uuid4().hex[:12]}",
                password_hash="not used",
                role=role,
            )
            session.commit()
        token = create_token(user_id=user.id, secret=SECRET, minutes=5)
        return user.id, {"Authorization": f"Bearer {token}"}

    def count(self, user_id: int) -> int:
        with self.sessions() as session:
            query = select(func.count()).where(Submission.user_id == user_id)
            return session.scalar(query) or 0


@pytest.fixture(scope="module", params=["postgresql", "sqlite"])
def live(request, postgres, tmp_path_factory) -> Iterator[Live]:
    if request.param == "postgresql":
        url = postgres()
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('limits') / 'judge.sqlite'}"
    upgrade(url)
    running = Live(url)
    yield running
    running.engine.dispose()


def at_once(app: FastAPI, headers: dict[str, str], n: int = PARALLEL) -> list[int]:
    """n submissions of one user released together, each from its own client (thread)."""
    start = threading.Barrier(n)

    def one(_: int) -> int:
        client = TestClient(app)
        start.wait()
        response = client.post(
            "/api/v1/submissions",
            headers=headers,
            json={"problem": "numbergame", "source": SOURCE},
        )
        assert response.status_code in (202, 429), response.text
        if response.status_code == 429:
            assert int(response.headers["retry-after"]) >= 1
        return response.status_code

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(one, range(n)))


def test_parallel_submissions_accept_exactly_the_rate_limit(live: Live) -> None:
    app = live.app(submit_rate_per_minute=10, max_queued_per_user=1000)
    user_id, headers = live.user()
    codes = at_once(app, headers)
    assert codes.count(202) == 10, codes
    assert codes.count(429) == PARALLEL - 10
    assert live.count(user_id) == 10


def test_parallel_submissions_accept_exactly_the_waiting_cap(live: Live) -> None:
    app = live.app(submit_rate_per_minute=1000, max_queued_per_user=5)
    user_id, headers = live.user()
    codes = at_once(app, headers)
    assert codes.count(202) == 5, codes
    assert live.count(user_id) == 5


def finish(live: Live, submission_id: int) -> None:
    with live.sessions() as session:
        claim = repo.claim(session=session, submission_id=submission_id, lease_s=60)
        assert claim is not None
        outcome = outcomes.internal_error("test")
        assert repo.finish(session=session, claim_=claim, outcome=outcome, release_quantum_s=0)


def submit(client: TestClient, headers: dict[str, str]):
    return client.post(
        "/api/v1/submissions", headers=headers, json={"problem": "footholds", "source": SOURCE}
    )


def test_waiting_submissions_are_capped_with_a_clear_message(live: Live) -> None:
    client = TestClient(live.app(submit_rate_per_minute=1000, max_queued_per_user=3))
    _, headers = live.user()
    ids = [submit(client, headers).json()["id"] for _ in range(3)]
    refused = submit(client, headers)
    assert refused.status_code == 429
    assert refused.json()["detail"] == (
        "you have 3 submissions waiting to be graded; submit again when one finishes"
    )
    assert int(refused.headers["retry-after"]) >= 1
    # One finishes: one more may wait.
    finish(live, ids[0])
    assert submit(client, headers).status_code == 202
    assert submit(client, headers).status_code == 429
    # Running counts as waiting too.
    with live.sessions() as session:
        assert repo.claim(session=session, submission_id=ids[1], lease_s=60) is not None
    assert submit(client, headers).status_code == 429
    # Per user: someone else is not held up.
    _, other = live.user()
    assert submit(client, other).status_code == 202


def test_an_instructors_rejudge_does_not_use_up_a_students_cap(live: Live) -> None:
    app = live.app(submit_rate_per_minute=1000, max_queued_per_user=2)
    client = TestClient(app)
    _, student = live.user()
    _, teacher = live.user(Role.INSTRUCTOR)
    ids = [submit(client, student).json()["id"] for _ in range(2)]
    for sid in ids:
        finish(live, sid)
    for sid in ids:
        rejudged = client.post(f"/api/v1/submissions/{sid}/rejudge", headers=teacher)
        assert rejudged.status_code == 202
    with live.sessions() as session:
        statuses = session.scalars(select(Submission.status).where(Submission.id.in_(ids)))
        assert set(statuses) == {Status.QUEUED}
    assert [submit(client, student).status_code for _ in range(3)] == [202, 202, 429]

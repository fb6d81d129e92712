"""Property-based requests from the OpenAPI schema (schemathesis): whatever a client sends,
the API never answers with a server error. Bounded, so it stays a few seconds per operation.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation.modes import GenerationMode

from api.main import create_app
from api.security import create_token
from config import Settings
from store import repo
from store.db import make_engine, make_session_factory
from store.migrate import upgrade
from store.models import Role
from tests.service.conftest import stored_hash
from tests.service.stack import TEST_PASSWORD_COST

SECRET = "schema-test-secret-" + "y" * 32
HEADERS: dict[str, str] = {}


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory):
    data_dir: Path = tmp_path_factory.mktemp("schema")
    config = Settings(
        data_dir=data_dir,
        secret_key=SECRET,
        events_timeout_s=0.5,
        submit_rate_per_minute=1000,
        max_queued_per_user=1000,
        registrations_per_address_per_hour=1000,
        **TEST_PASSWORD_COST,
    )
    upgrade(config.db_url)
    engine = make_engine(config.db_url)
    with make_session_factory(engine)() as session:
        teacher = repo.create_user(
            session=session,
            username="teacher",
            password_hash=stored_hash("teacher-pw"),
            role=Role.INSTRUCTOR,
        )
        submission = repo.create_submission(
            session=session, user_id=teacher.id, problem="footholds", source="x = 1", seed=1
        )
        repo.add_board(
            session=session,
            problem="footholds",
            answer=0,
            author_id=teacher.id,
            case={"board": [[1]], "aloc": [0, 0], "bloc": [0, 0]},
        )
        session.commit()
        HEADERS["Authorization"] = "Bearer " + create_token(
            user_id=teacher.id, secret=SECRET, minutes=60
        )
        assert submission.id == 1
    engine.dispose()
    app = create_app(config, enqueue=lambda submission_id, *, priority="live": True)
    return schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.mark.slow
def test_no_request_gets_a_server_error(api_schema) -> None:
    # One bounded Hypothesis run per operation (schemathesis' lazy pytest fixture loader
    # does not work with this pytest; this loop is its equivalent).
    failures = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 12

    calls = []
    for operation, mode in itertools.product(operations, GenerationMode):

        @given(case=operation.as_strategy(mode))
        @settings(
            max_examples=15,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        def no_server_error(case) -> None:
            response = case.call(headers=HEADERS)
            calls.append(response.status_code)
            # No worker runs beside this app: /healthz's documented 503 says so.
            no_grader = (
                case.formatted_path == "/healthz"
                and response.status_code == 503
                and response.json().get("status") == "no grading worker"
            )
            if response.status_code >= 500 and not no_grader:
                failures.append(
                    f"{case.method} {case.formatted_path} -> "
                    f"{response.status_code}: {response.text[:300]}"
                )

        try:
            no_server_error()
        except Unsatisfiable:  # no way to make an invalid request (e.g. no parameters)
            assert mode is GenerationMode.NEGATIVE
    assert not failures, "\n".join(failures[:20])
    assert len(calls) > 10 * len(operations)

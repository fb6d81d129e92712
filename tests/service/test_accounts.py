"""Logins and registrations cannot starve the service: failed logins are throttled per
username and per client address, registrations per address, password hashing waits for one
of a few slots, login names that cannot exist never reach the database, and registration can
be open, by invitation or closed. On SQLite and PostgreSQL, each test inside a rolled-back
transaction (as in test_api.py)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from api.accounts import ensure_admin
from api.main import create_app
from api.security import Passwords
from api.services import services_of
from config import OWASP_MIN_KIB_PASSES, Settings
from store import repo
from store.migrate import upgrade
from store.models import LoginAttempt, Role, utcnow
from tests.service.conftest import TEST_PASSWORDS, serving, stored_hash
from tests.service.stack import TEST_PASSWORD_COST

SECRET = "accounts-test-secret-" + "w" * 32
REPO = Path(__file__).resolve().parents[2]
HOME, AWAY = "198.51.100.7", "203.0.113.9"


@pytest.fixture
def make_app(session: Session, db_engine) -> Iterator[Callable[..., FastAPI]]:
    """make_app(**settings) -> the app serving them on the test's rolled-back session (one
    per test: the process's shared app)."""
    with contextlib.ExitStack() as served:

        def make(**overrides: object) -> FastAPI:
            settings = Settings(
                database_url=db_engine.url.render_as_string(hide_password=False),
                secret_key=SECRET,
                **(TEST_PASSWORD_COST | overrides),
            )
            return served.enter_context(
                serving(settings, session, enqueue=lambda submission_id, *, priority="live": True)
            )

        yield make


def at(app: FastAPI, address: str = HOME) -> TestClient:
    """A client of `app` connecting from `address`."""
    return TestClient(app, client=(address, 50000), raise_server_exceptions=False)


def user(session: Session, name: str) -> str:
    """Create a student; its password."""
    password = "password-" + name
    repo.create_user(
        session=session, username=name, password_hash=stored_hash(password), role=Role.STUDENT
    )
    session.commit()
    return password


def log_in(client: TestClient, username: str, password: str):
    return client.post("/api/v1/token", data={"username": username, "password": password})


def register(client: TestClient, username: str, **extra: str):
    body = {"username": username, "password": "long-enough-1", **extra}
    return client.post("/api/v1/users", json=body)


# ---- failed logins ------------------------------------------------------------------------


def test_failed_logins_are_throttled_per_username(make_app, session) -> None:
    app = make_app(login_failures_per_username=3, login_failures_per_address=100)
    password = user(session, "carol")
    dave = user(session, "dave")
    home = at(app)
    assert [log_in(home, "carol", "wrong").status_code for _ in range(3)] == [401] * 3
    refused = log_in(home, "carol", password)  # even the right password now
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("too many failed logins for this username")
    assert 1 <= int(refused.headers["retry-after"]) <= 300
    assert log_in(at(app, AWAY), "carol", password).status_code == 429  # from anywhere
    assert log_in(home, "dave", dave).status_code == 200  # other users are not held up
    # A name nobody has is throttled the same way: 429 says nothing about who exists.
    assert [log_in(home, "nobody", "x").status_code for _ in range(4)] == [401] * 3 + [429]


def test_failed_logins_are_throttled_per_address(make_app, session) -> None:
    app = make_app(login_failures_per_username=100, login_failures_per_address=3)
    password = user(session, "erin")
    home = at(app)
    for name in ("erin", "frank", "grace"):
        assert log_in(home, name, "wrong").status_code == 401
    refused = log_in(home, "erin", password)
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("too many failed logins from your address")
    assert log_in(at(app, AWAY), "erin", password).status_code == 200
    # IPv6 addresses count by their /64: one host usually has all of it.
    for host in ("2001:db8:0:1::1", "2001:db8:0:1::2", "2001:db8:0:1::3"):
        assert log_in(at(app, host), "erin", "wrong").status_code == 401
    assert log_in(at(app, "2001:db8:0:1::abcd"), "erin", password).status_code == 429
    assert log_in(at(app, "2001:db8:0:2::1"), "erin", password).status_code == 200


def test_successful_logins_do_not_count(make_app, session) -> None:
    app = make_app(login_failures_per_username=2, login_failures_per_address=2)
    password = user(session, "heidi")
    home = at(app)
    assert [log_in(home, "heidi", password).status_code for _ in range(5)] == [200] * 5
    assert log_in(home, "heidi", "wrong").status_code == 401
    assert log_in(home, "heidi", password).status_code == 200
    assert log_in(home, "heidi", "wrong").status_code == 401
    assert log_in(home, "heidi", password).status_code == 429


def test_old_attempts_stop_counting_and_are_deleted(make_app, session) -> None:
    app = make_app(login_failures_per_username=3, login_failure_window_s=300)
    password = user(session, "ivan")
    now = utcnow()

    def attempt(kind: str, age: timedelta) -> None:
        session.add(LoginAttempt(kind=kind, username="ivan", address=HOME, created_at=now - age))

    for _ in range(3):
        attempt(repo.FAILED_LOGIN, timedelta(minutes=6))  # outside the 5-minute window
    attempt(repo.FAILED_LOGIN, timedelta(hours=2))  # older than any window
    attempt(repo.REGISTRATION, timedelta(minutes=30))  # still counts for registrations
    session.commit()
    assert log_in(at(app), "ivan", password).status_code == 200
    assert log_in(at(app), "ivan", "wrong").status_code == 401  # writing one prunes
    ages = sorted(now - a.created_at for a in session.scalars(select(LoginAttempt)))
    assert len(ages) == 5 and ages[-1] < timedelta(hours=1), ages


# ---- password hashing ---------------------------------------------------------------------


def test_password_hashing_waits_for_a_free_slot(make_app, session) -> None:
    app = make_app(
        password_hash_concurrency=2, password_hash_wait_s=0.05, login_failures_per_username=2
    )
    password = user(session, "judy")
    slots = services_of(app).password_slots
    assert slots.acquire() and slots.acquire()  # every slot busy (a flood of logins)
    try:
        client = at(app)
        for response in [
            log_in(client, "judy", password),
            log_in(client, "judy", "wrong"),
            # A name nobody has waits for a slot too: it verifies a dummy hash, so it
            # costs (and takes) what a real account does.
            log_in(client, "nobody", "wrong"),
            register(client, "newcomer"),
        ]:
            assert response.status_code == 503, response.text
            assert "busy" in response.json()["detail"]
            assert int(response.headers["retry-after"]) >= 1
    finally:
        slots.release()
    assert log_in(client, "judy", password).status_code == 200  # the 503s did not count
    assert register(client, "newcomer").status_code == 201
    slots.release()


@pytest.mark.parametrize(
    "name", ["ab\x00c", "\x00", "caf\x1b[31m", "tab\there", "new\nline", "x" * 65, "\x7f"]
)
def test_login_names_that_cannot_exist_are_refused_not_500(make_app, name) -> None:
    client = at(make_app())
    assert log_in(client, name, "some password").status_code == 401
    assert register(client, name).status_code == 422


def test_usernames_from_the_command_line_still_log_in(make_app, session) -> None:
    # create-user accepts names the registration form does not: they must still log in,
    # while the same name with a NUL is refused before the database (a 500 on PostgreSQL).
    password = user(session, "Dr. Ada Lovelace")
    client = at(make_app())
    assert log_in(client, "Dr. Ada Lovelace", password).status_code == 200
    assert log_in(client, "Dr. Ada Lovelace\x00", password).status_code == 401


def test_new_hashes_default_to_rfc_9106s_cost_and_follow_the_settings(make_app, session) -> None:
    assert (
        Passwords.configured(Settings(secret_key=SECRET))
        .hash("pw")
        .startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    )
    client = at(make_app(password_hash_memory_kib=20 * 1024, password_hash_passes=2))
    assert register(client, "cost").status_code == 201
    stored = repo.get_user_by_name(session=session, username="cost")
    assert stored is not None and stored.password_hash is not None
    assert stored.password_hash.startswith("$argon2id$v=19$m=20480,t=2,p=1$")
    assert log_in(client, "cost", "long-enough-1").status_code == 200


def test_a_hash_is_checked_at_its_own_cost_so_a_new_cost_locks_nobody_out() -> None:
    old = Passwords(memory_kib=8 * 1024, passes=5, lanes=1).hash("kept password")
    newer = Passwords()  # the default cost
    assert newer.verify("kept password", old)
    assert not newer.verify("another password", old)


def test_a_login_keeps_an_older_costs_hash_at_todays_and_its_sessions_go_on(
    make_app, session
) -> None:
    password = user(session, "olga")  # hashed at the tests' cost: 19 MiB x 2
    client = at(make_app(password_hash_memory_kib=20 * 1024, password_hash_passes=2))
    assert log_in(client, "olga", "not it").status_code == 401
    stored = repo.get_user_by_name(session=session, username="olga")
    assert stored is not None and stored.password_hash == stored_hash(password)
    generation = stored.token_generation
    first = log_in(client, "olga", password)
    assert first.status_code == 200
    session.expire_all()
    stored = repo.get_user_by_name(session=session, username="olga")
    assert stored is not None and stored.password_hash is not None
    assert stored.password_hash.startswith("$argon2id$v=19$m=20480,t=2,p=1$")
    assert stored.token_generation == generation  # the same password: no session ends
    token = {"Authorization": "Bearer " + first.json()["access_token"]}
    assert client.get("/api/v1/users/me", headers=token).status_code == 200
    assert log_in(client, "olga", password).status_code == 200  # against the new hash


def test_the_configured_first_instructor_is_made_kept_and_reset(session) -> None:
    def ensure(password: str | None) -> str | None:
        return ensure_admin(
            session=session, passwords=TEST_PASSWORDS, username="root", password=password
        )

    generated = ensure(None)  # none configured: one is made, to be shown this once
    admin = repo.get_user_by_name(session=session, username="root")
    assert generated and admin is not None and admin.role == Role.INSTRUCTOR
    assert TEST_PASSWORDS.verify(generated, admin.password_hash)
    first_hash = admin.password_hash
    assert ensure(None) is None and ensure(generated) == generated
    assert admin.password_hash == first_hash  # the same password: nothing written
    assert ensure("configured-2") == "configured-2"  # the configuration wins
    assert TEST_PASSWORDS.verify("configured-2", admin.password_hash)
    admin.role = Role.STUDENT
    session.commit()
    ensure("configured-2")
    assert admin.role == Role.INSTRUCTOR


def test_a_password_hash_cost_below_owasps_minimum_is_refused_in_production() -> None:
    weak = {"password_hash_memory_kib": 4 * 1024, "password_hash_passes": 2}
    with pytest.warns(UserWarning, match="below OWASP's minimum"):
        Settings(secret_key=SECRET, **weak)
    with pytest.raises(ValueError, match="below OWASP's minimum"):
        Settings(secret_key=SECRET, environment="production", **weak)
    with pytest.raises(ValueError, match="at least 8 per lane"):
        Settings(secret_key=SECRET, password_hash_memory_kib=100, password_hash_lanes=16)
    # The tests' own cost is OWASP's 19 MiB x 2: allowed in production.
    Settings(secret_key=SECRET, environment="production", **TEST_PASSWORD_COST)
    assert 19 * 1024 * 2 >= OWASP_MIN_KIB_PASSES > 19 * 1024 * 1


# ---- registration -------------------------------------------------------------------------


def test_registration_is_open_by_default(make_app) -> None:
    client = at(make_app())
    assert client.get("/api/v1/registration").json() == {"mode": "open"}
    assert register(client, "kim").status_code == 201


def test_closed_registration_is_403_with_a_clear_message(make_app) -> None:
    client = at(make_app(registration="closed"))
    assert client.get("/api/v1/registration").json() == {"mode": "closed"}
    refused = register(client, "leo")
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        "registration is closed here; ask an instructor to create your account"
    )


def test_invite_registration_needs_the_code(make_app) -> None:
    client = at(make_app(registration="invite", invite_code="green-tiger-42"))
    assert client.get("/api/v1/registration").json() == {"mode": "invite"}
    for extra in [{}, {"invite_code": "green-tiger-41"}, {"invite_code": "grün"}]:
        refused = register(client, "mia", **extra)
        assert refused.status_code == 403, refused.text
        assert "invite code" in refused.json()["detail"]
    assert register(client, "mia", invite_code="green-tiger-42").status_code == 201
    assert log_in(client, "mia", "long-enough-1").status_code == 200


def test_invite_mode_refuses_to_start_without_a_code() -> None:
    for code in (None, ""):
        with pytest.raises(ValueError, match="JUDGE_INVITE_CODE"):
            Settings(registration="invite", invite_code=code, secret_key=SECRET)


def test_registrations_are_limited_per_address(make_app) -> None:
    app = make_app(registrations_per_address_per_hour=2)
    home = at(app)
    assert [register(home, n).status_code for n in ("ned", "ola")] == [201, 201]
    refused = register(home, "pam")
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("at most 2 registrations per hour from one address")
    assert 1 <= int(refused.headers["retry-after"]) <= 3600
    assert register(at(app, AWAY), "pam").status_code == 201


def test_wrong_invite_codes_count_towards_the_address_limit(make_app) -> None:
    app = make_app(registration="invite", invite_code="c0de", registrations_per_address_per_hour=2)
    home = at(app)
    assert [register(home, "quinn", invite_code="guess").status_code for _ in range(2)] == [403] * 2
    assert register(home, "quinn", invite_code="c0de").status_code == 429


@pytest.mark.slow
def test_create_user_works_in_every_registration_mode(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'judge.sqlite'}"
    upgrade(url)
    for mode in ("closed", "invite", "open"):
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        env.update(
            JUDGE_DATABASE_URL=url,
            JUDGE_SECRET_KEY=SECRET,
            JUDGE_REGISTRATION=mode,
            JUDGE_INVITE_CODE="c0de",
        )
        name = f"cli-{mode}"
        done = subprocess.run(
            [sys.executable, "-m", "api", "create-user", name, "--password", "cli-password"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        settings = Settings(
            database_url=url, secret_key=SECRET, registration=mode, invite_code="c0de"
        )
        client = at(create_app(settings, enqueue=lambda *args, **kwargs: True))
        assert log_in(client, name, "cli-password").status_code == 200
        expected = {"closed": 403, "invite": 403, "open": 201}[mode]
        assert register(client, f"web-{mode}").status_code == expected


def test_the_register_page_asks_for_an_invite_code_when_needed(make_app) -> None:
    client = at(make_app(registration="invite", invite_code="c0de"))
    page = client.get("/register")
    assert page.status_code == 200 and 'id="invite_code"' in page.text
    script = client.get("/static/js/pages/register.js").text
    assert '"/registration"' in script and "invite_code" in script

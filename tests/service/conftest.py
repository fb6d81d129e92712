"""Fixtures for the service tests (store, api, worker).

PostgreSQL (127.0.0.1:5432, trust auth) and Redis (127.0.0.1:6379) are required: when either
is unreachable the tests FAIL with a message saying so, they never skip. Every run gets its
own PostgreSQL databases (dropped afterwards) and its own Redis key prefix (deleted
afterwards), so parallel runs never share state.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from api.deps import get_session
from api.main import body_limit, build_app, build_services
from api.security import Passwords, create_token
from config import Settings
from store import repo
from store.db import make_engine
from store.migrate import upgrade
from store.models import Role, User
from tests.service.stack import TEST_PASSWORD_COST, Stack, service_env

PG_HOST, PG_PORT = "127.0.0.1", 5432
PG_ADMIN_DSN = f"host={PG_HOST} port={PG_PORT} user=postgres dbname=test"
REDIS_URL = "redis://127.0.0.1:6379"
RUN_ID = uuid.uuid4().hex[:10]


@pytest.fixture(scope="session")
def postgres() -> Iterator[Callable[[], str]]:
    """A factory of fresh, uniquely named PostgreSQL databases, all dropped at the end (a
    database's name is unique to this process: tests run beside others on the server)."""
    try:
        admin = psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is required at {PG_HOST}:{PG_PORT} (user postgres, trust "
            f"auth, database test) and is unreachable: {exc}",
            pytrace=False,
        )
    created: list[str] = []

    def create(template: str | None = None) -> str:
        """A new database; a copy of `template` (one of ours, by URL) when given."""
        name = f"judge_test_{RUN_ID}_{len(created)}"
        copied = f' TEMPLATE "{template.rsplit("/", 1)[1]}"' if template else ""
        admin.execute(f'CREATE DATABASE "{name}"{copied}')
        created.append(name)
        return f"postgresql+psycopg://postgres@{PG_HOST}:{PG_PORT}/{name}"

    yield create
    for name in created:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.close()


@pytest.fixture(scope="session")
def redis_main() -> Iterator[Callable[[], tuple[str, str]]]:
    """A factory of (broker URL, key prefix) on the shared Redis; its keys deleted at the end."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=5)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis is required at {REDIS_URL} and is unreachable: {exc}", pytrace=False)
    prefixes: list[str] = []

    def create() -> tuple[str, str]:
        prefix = f"judge-test-{RUN_ID}-{len(prefixes)}:"
        prefixes.append(prefix)
        return f"{REDIS_URL}/0", prefix

    yield create
    for prefix in prefixes:
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
    client.close()


@pytest.fixture(scope="session", autouse=True)
def _bubblewrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.fail(
            "bubblewrap (bwrap) is required: the worker grades in the real sandbox", pytrace=False
        )


def stack_env(kind: str, tmp: Path, postgres, redis_main) -> dict[str, str]:
    """Embedded defaults (SQLite + SQLAlchemy broker under the data dir), or services."""
    if kind == "embedded":
        return service_env(tmp)
    broker, prefix = redis_main()
    return service_env(
        tmp, JUDGE_DATABASE_URL=postgres(), JUDGE_BROKER_URL=broker, JUDGE_BROKER_KEY_PREFIX=prefix
    )


def together(*steps: Callable[[], object]) -> None:
    """Run the steps (starting or stopping a stack's processes) at once, not one after
    another: a Celery worker takes seconds to start, or to stop warmly."""
    with ThreadPoolExecutor(len(steps)) as pool:
        for done in [pool.submit(step) for step in steps]:
            done.result()


@contextlib.contextmanager
def started_stack(
    name: str, kind: str, tmp_path_factory, postgres, redis_main, *, runner: bool, **env: str
) -> Iterator[Stack]:
    """A started stack (`kind` embedded or services, with `env` added to its environment) in a
    fresh directory, stopped after; with the run lane's worker if `runner` (an idle Celery
    worker is a second of CPU to start and a little to keep: not where nothing runs code)."""
    tmp = tmp_path_factory.mktemp(f"stack-{name}")
    running = Stack(name, tmp, stack_env(kind, tmp, postgres, redis_main) | env)
    try:
        yield running.start(runner=runner)
    finally:
        running.stop()


# The stacks a test of the shared `stack` fixture runs on: PostgreSQL + Redis (production's)
# always, and the embedded defaults (SQLite + the SQLAlchemy broker) too for a test marked
# `every_stack`: one whose property rests on what differs between them (the broker's delivery,
# delayed messages and redelivery, the database written and read by several processes at
# once). The rest would only prove the same code twice. Parametrized by value, so one
# services stack per module serves both kinds of test.
STACKS = ("services", "embedded")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "stack" in metafunc.fixturenames and "stack" not in vars(metafunc.module):
        every = metafunc.definition.get_closest_marker("every_stack") is not None
        metafunc.parametrize("stack", STACKS if every else STACKS[:1], indirect=True)


@pytest.fixture(scope="module")
def stack(request, tmp_path_factory, postgres, redis_main) -> Iterator[Stack]:
    """API + workers + sweeper processes, fresh database, per test module and configuration
    (request.param: "services" or "embedded", see STACKS); the run lane's worker too in a
    module marked `run_lane`."""
    runner = request.node.get_closest_marker("run_lane") is not None
    with started_stack(
        request.param, request.param, tmp_path_factory, postgres, redis_main, runner=runner
    ) as running:
        yield running


# ---- unit level: one migrated database per backend, a rolled-back transaction per test --


@pytest.fixture(scope="session")
def migrated(tmp_path_factory, postgres) -> Callable[[str], str]:
    """migrated("sqlite" | "postgresql") -> the URL of a fresh database at the head revision.
    Each backend is migrated once per process (what `alembic upgrade head` does) and copied
    after: a copied SQLite file, a PostgreSQL database made from it as a template."""
    originals: dict[str, str] = {}

    def make(backend: str) -> str:
        if backend not in originals:
            if backend == "sqlite":
                originals[backend] = str(tmp_path_factory.mktemp("db-original") / "judge.sqlite")
                upgrade(f"sqlite:///{originals[backend]}")
            else:
                originals[backend] = postgres()
                upgrade(originals[backend])
        if backend == "sqlite":
            copy = tmp_path_factory.mktemp("db") / "judge.sqlite"
            shutil.copyfile(originals[backend], copy)
            return f"sqlite:///{copy}"
        return postgres(template=originals[backend])

    return make


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def db_engine(request, migrated) -> Iterator[Engine]:
    engine = make_engine(migrated(request.param))
    yield engine
    engine.dispose()


@pytest.fixture
def session(db_engine: Engine) -> Iterator[Session]:
    """A session whose commits are savepoints inside one transaction rolled back at the end."""
    connection = db_engine.connect()
    outer = connection.begin()
    with Session(
        bind=connection, join_transaction_mode="create_savepoint", expire_on_commit=False
    ) as session:
        yield session
    with contextlib.suppress(Exception):
        outer.rollback()
    connection.close()


# ---- api/ at unit level: the app on the rolled-back session, tokens made directly ---------

API_SECRET = "unit-test-secret-" + "x" * 32


@contextlib.contextmanager
def api_client(
    session: Session,
    db_engine: Engine,
    *,
    enqueue: Callable[..., bool] = lambda *args, **kwargs: True,
    enqueue_run: Callable[[int], bool] = lambda run_id: True,
    enqueue_check: Callable[[int], bool] = lambda version_id: True,
    request_preview: Callable[[str], bool] = lambda key: True,
    raise_server_exceptions: bool = True,
    **settings: object,
) -> Iterator[TestClient]:
    """The app (`serving`) on `session` (every request), messages handed to the given
    callables instead of a broker. With `raise_server_exceptions=False` a server error comes
    back as the 500 a browser would see."""
    config = Settings(
        database_url=db_engine.url.render_as_string(hide_password=False),
        secret_key=API_SECRET,
        **(TEST_PASSWORD_COST | settings),
    )
    senders = dict(
        enqueue=enqueue,
        enqueue_run=enqueue_run,
        enqueue_check=enqueue_check,
        request_preview=request_preview,
    )
    with (
        serving(config, session, **senders) as app,
        TestClient(app, raise_server_exceptions=raise_server_exceptions) as client,
    ):
        yield client


@functools.cache
def shared_app(max_body_size: int) -> FastAPI:
    """One app per body cap for this process's unit tests, each test giving it services of
    its own (`serving`): FastAPI works out a new app's routes on its first request, about
    0.3 s of CPU that hundreds of tests paid again each."""
    return build_app(max_body_size=max_body_size)


@contextlib.contextmanager
def serving(config: Settings, session: Session | None = None, **senders: Any) -> Iterator[FastAPI]:
    """The process's shared app serving `config` with the services `build_services(config,
    **senders)` makes, every request on `session` when one is given; both taken back after.
    One at a time: a second would take the first one's services from under it."""
    app = shared_app(body_limit(config))
    assert not hasattr(app.state, "services"), "the shared app is already serving"
    app.state.services = build_services(config, **senders)
    if session is not None:
        app.dependency_overrides[get_session] = lambda: session
    try:
        yield app
    finally:
        app.dependency_overrides.clear()
        del app.state.services


TEST_PASSWORDS = Passwords.configured(Settings(secret_key=API_SECRET, **TEST_PASSWORD_COST))


@functools.cache
def stored_hash(password: str) -> str:
    """A real argon2 hash of `password` (at the tests' cost), made once per test run: users
    that fixtures create are stored as a registration would store them (the tests that log
    in verify against it)."""
    return TEST_PASSWORDS.hash(password)


def make_account(
    session: Session, name: str, role: Role = Role.STUDENT
) -> tuple[User, dict[str, str]]:
    """A stored user and the headers of a token `api_client` accepts."""
    user = repo.create_user(
        session=session, username=name, password_hash=stored_hash("password-" + name), role=role
    )
    session.commit()
    token = create_token(user_id=user.id, secret=API_SECRET, minutes=5)
    return user, {"Authorization": f"Bearer {token}"}


def make_user(session: Session, name: str, role: Role = Role.STUDENT) -> dict[str, str]:
    return make_account(session, name, role)[1]


@pytest.fixture
def alice(session: Session) -> dict[str, str]:
    return make_user(session, "alice")


@pytest.fixture
def bob(session: Session) -> dict[str, str]:
    return make_user(session, "bob")


@pytest.fixture
def teacher(session: Session) -> dict[str, str]:
    return make_user(session, "teacher", Role.INSTRUCTOR)

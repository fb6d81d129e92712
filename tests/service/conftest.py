"""Fixtures for the service tests (store, api, worker).

PostgreSQL (127.0.0.1:5432, trust auth) and Redis (127.0.0.1:6379) are required: when either
is unreachable the tests FAIL with a message saying so, they never skip. Every run gets its
own PostgreSQL databases (dropped afterwards) and its own Redis key prefix (deleted
afterwards), so parallel runs never share state.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
import redis
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from store.db import make_engine
from store.migrate import upgrade
from tests.service.stack import Stack, service_env

PG_HOST, PG_PORT = "127.0.0.1", 5432
PG_ADMIN_DSN = f"host={PG_HOST} port={PG_PORT} user=postgres dbname=test"
REDIS_URL = "redis://127.0.0.1:6379"
RUN_ID = uuid.uuid4().hex[:10]


@pytest.fixture(scope="session")
def postgres() -> Iterator[Callable[[], str]]:
    """A factory of fresh, uniquely named PostgreSQL databases, all dropped at the end."""
    try:
        admin = psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is required at {PG_HOST}:{PG_PORT} (user postgres, trust "
            f"auth, database test) and is unreachable: {exc}",
            pytrace=False,
        )
    created: list[str] = []

    def create() -> str:
        name = f"judge_test_{RUN_ID}_{len(created)}"
        admin.execute(f'CREATE DATABASE "{name}"')
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


@pytest.fixture(scope="module", params=["embedded", "services"])
def stack(request, tmp_path_factory, postgres, redis_main) -> Iterator[Stack]:
    """API + worker + sweeper processes, fresh database, per test module and configuration."""
    tmp = tmp_path_factory.mktemp(f"stack-{request.param}")
    running = Stack(request.param, tmp, stack_env(request.param, tmp, postgres, redis_main))
    try:
        yield running.start()
    finally:
        running.stop()


# ---- unit level: one migrated database per backend, a rolled-back transaction per test --


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def db_engine(request, tmp_path_factory, postgres) -> Iterator[Engine]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'judge.sqlite'}"
    else:
        url = postgres()
    upgrade(url)  # what `alembic upgrade head` does
    engine = make_engine(url)
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

"""A stack's database, set up once per test process and copied after.

Setting one up is two Python processes (`alembic upgrade head`, then `python -m api
create-user` for the first instructor): ~3 s of CPU, and the suite starts dozens of stacks.
The first stack of each kind of database in a process is set up that way, its result kept as
a template; every later one gets a copy (a file copy for SQLite, `CREATE DATABASE ... TEMPLATE`
for PostgreSQL), with the same first instructor. Only a new database is replaced by a copy
(`_fresh`): one that holds data, or is not the test fixture's, is set up in place as before.
The commands themselves are tested on their own (tests/service/test_migrations.py,
test_accounts.py), and still run once per kind of database in each process here.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg
from sqlalchemy.engine import URL, make_url


@dataclass(frozen=True)
class Template:
    """A set-up database to copy, and its first instructor."""

    copy_to: Callable[[URL], None]
    admin: tuple[str, str]


_templates: dict[str, Template] = {}


def database_url(env: dict[str, str]) -> URL:
    """The database a stack with this environment uses (config.Settings' default included)."""
    given = env.get("JUDGE_DATABASE_URL")
    if given:
        return make_url(given)
    return make_url(f"sqlite:///{Path(env['JUDGE_DATA_DIR']).resolve() / 'judge.sqlite'}")


def set_up(
    env: dict[str, str], admin: tuple[str, str], run_setup: Callable[[], None]
) -> tuple[str, str]:
    """Set up the stack's database (a copy of this process's template when there is one) and
    answer the first instructor's name and password."""
    url = database_url(env)
    kind = url.get_backend_name()
    if not _fresh(url):  # someone else's, or one holding data already: set up as ever
        run_setup()
        return admin
    template = _templates.get(kind)
    if template is not None:
        template.copy_to(url)
        return template.admin
    run_setup()
    keep = _keep_sqlite if kind == "sqlite" else _keep_postgres
    _templates[kind] = Template(copy_to=keep(url), admin=admin)
    return admin


# The databases the service tests' `postgres` fixture makes (tests/service/conftest.py).
FIXTURE_DATABASES = "judge_test_"


def _fresh(url: URL) -> bool:
    """Whether the database is new and ours to replace: a SQLite file not made yet, or an
    empty PostgreSQL database the test fixture made. Anything else (a stack started again on
    a data directory, a benchmark's own server) is set up in place, never copied over."""
    kind = url.get_backend_name()
    if kind == "sqlite":
        return url.database is not None and not Path(url.database).exists()
    if kind != "postgresql" or not (url.database or "").startswith(FIXTURE_DATABASES):
        return False
    with psycopg.connect(
        host=url.host, port=url.port or 5432, user=url.username, dbname=url.database
    ) as target:
        tables = target.execute(
            "SELECT count(*) FROM pg_tables"
            " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        ).fetchone()
    return tables is not None and tables[0] == 0


def _keep_sqlite(url: URL) -> Callable[[URL], None]:
    source = Path(url.database)
    kept = Path(tempfile.mkdtemp(prefix="judge-stack-template-")) / source.name
    shutil.copy2(source, kept)  # the set-up processes have exited: no journal is left
    atexit.register(shutil.rmtree, kept.parent, ignore_errors=True)

    def copy_to(target: URL) -> None:
        destination = Path(target.database)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kept, destination)

    return copy_to


def _server(url: URL) -> psycopg.Connection:
    return psycopg.connect(
        host=url.host, port=url.port or 5432, user=url.username, dbname="postgres", autocommit=True
    )


def _create(server: psycopg.Connection, name: str, template: str) -> None:
    """CREATE DATABASE from a template; a set-up process's connection may take a moment to be
    gone from the server after the process exited (the template must have none)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            server.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            return
        except psycopg.errors.ObjectInUse:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _keep_postgres(url: URL) -> Callable[[URL], None]:
    kept = f"judge_stack_template_{uuid.uuid4().hex[:12]}"
    with _server(url) as server:
        _create(server, kept, url.database)

    def drop() -> None:
        with contextlib.suppress(psycopg.Error), _server(url) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{kept}" WITH (FORCE)')

    atexit.register(drop)

    def copy_to(target: URL) -> None:
        # The target was made empty by the test's fixture, under the name it will drop.
        with _server(target) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)')
            _create(server, target.database, kept)

    return copy_to

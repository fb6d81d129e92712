"""store.transient tells the database errors worth a retry from the rest, on errors each
database really raises: a lock held by another connection, a statement timeout, a broken
connection, against a constraint or a missing table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from store.transient import is_transient


def error_of(engine: Engine, *statements: str) -> DBAPIError:
    with pytest.raises(DBAPIError) as caught, engine.connect() as connection:
        for statement in statements:
            connection.execute(text(statement))
    return caught.value


@pytest.fixture
def sqlite_pair(tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    url = f"sqlite:///{tmp_path / 'locked.sqlite'}"
    holder = create_engine(url)
    impatient = create_engine(url, connect_args={"timeout": 0})  # no busy wait
    with holder.begin() as connection:
        connection.execute(text("CREATE TABLE t (k INTEGER PRIMARY KEY)"))
    yield holder, impatient
    holder.dispose()
    impatient.dispose()


def test_sqlite_database_is_locked_is_transient(sqlite_pair) -> None:
    holder, impatient = sqlite_pair
    with holder.connect() as connection:
        connection.exec_driver_sql("BEGIN IMMEDIATE")  # the write lock, held
        connection.exec_driver_sql("INSERT INTO t VALUES (1)")
        locked = error_of(impatient, "INSERT INTO t VALUES (2)")
        connection.rollback()
    assert "database is locked" in str(locked)
    assert is_transient(locked)


def test_sqlite_errors_about_the_data_or_schema_are_not(sqlite_pair) -> None:
    holder, _ = sqlite_pair
    assert not is_transient(
        error_of(holder, "INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)")
    )
    assert not is_transient(error_of(holder, "SELECT * FROM no_such_table"))


@pytest.fixture(scope="module")
def pg(postgres) -> Iterator[Engine]:
    engine = create_engine(postgres())
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (k INTEGER PRIMARY KEY)"))
    yield engine
    engine.dispose()


def test_postgresql_lock_and_statement_timeouts_are_transient(pg: Engine) -> None:
    with pg.connect() as holder:
        holder.execute(text("LOCK TABLE t IN ACCESS EXCLUSIVE MODE"))  # held until rollback
        lock_timeout = error_of(pg, "SET lock_timeout = '50ms'", "SELECT * FROM t")
        holder.rollback()
    assert lock_timeout.orig.sqlstate == "55P03" and is_transient(lock_timeout)
    statement_timeout = error_of(pg, "SET statement_timeout = '50ms'", "SELECT pg_sleep(5)")
    assert statement_timeout.orig.sqlstate == "57014" and is_transient(statement_timeout)


def test_postgresql_connection_killed_under_a_statement_is_transient(pg: Engine) -> None:
    with pg.connect() as victim:
        pid = victim.execute(text("SELECT pg_backend_pid()")).scalar_one()
        with pg.connect() as killer:
            killer.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        with pytest.raises(DBAPIError) as caught:
            victim.execute(text("SELECT 1"))
    assert is_transient(caught.value)


def test_postgresql_errors_about_the_data_or_schema_are_not(pg: Engine) -> None:
    duplicate = error_of(pg, "INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)")
    assert duplicate.orig.sqlstate == "23505" and not is_transient(duplicate)
    assert not is_transient(error_of(pg, "SELECT * FROM no_such_table"))
    assert not is_transient(error_of(pg, "SELECT 1/0"))

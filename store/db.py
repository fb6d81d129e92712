"""Engine and session factories. Nothing is connected at import; callers pass the URL."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import CursorResult, Engine, Result, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from store.files import private_sqlite

# Connections an engine's pool holds at most (the API admits as many requests at once).
POOL_SIZE, POOL_OVERFLOW = 5, 10
POOL_CAPACITY = POOL_SIZE + POOL_OVERFLOW


def make_engine(
    url: str, *, echo: bool = False, stalled_transaction_s: float | None = None
) -> Engine:
    """`stalled_transaction_s` (PostgreSQL): the server ends a session left idle inside a
    transaction this long. A worker stopped or hung between a write and its commit holds
    its rows' locks until then, and the grading it held cannot be taken over meanwhile."""
    parsed = make_url(url)
    pool = {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW}
    if parsed.get_backend_name() != "sqlite":
        connect_args = {}
        if stalled_transaction_s is not None:
            timeout_ms = max(1, round(stalled_transaction_s * 1000))
            connect_args["options"] = f"-c idle_in_transaction_session_timeout={timeout_ms}"
        # pre_ping: a restarted PostgreSQL must not turn the next request into an error.
        return create_engine(url, echo=echo, pool_pre_ping=True, connect_args=connect_args, **pool)
    private_sqlite(url)  # 0600 before SQLite creates it 0644 (its -wal and -shm follow)
    # The API, the worker processes and the sweeper share the file: wait for locks instead
    # of failing at once.
    engine = create_engine(
        url, echo=echo, connect_args={"timeout": 30, "check_same_thread": False}, **pool
    )

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record) -> None:
        # WAL lets readers (the SSE stream, history) run while a worker writes.
        # Take the write lock at BEGIN (IMMEDIATE is set per transaction below) so two
        # writers queue on busy_timeout rather than deadlock on a lock upgrade.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _sqlite_begin(connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE matched. Its result is a CursorResult, but
    Session.execute is typed as returning any Result."""
    return cast(CursorResult[Any], result).rowcount


def ping(session: Session) -> None:
    """Raise if the database does not answer (the health check)."""
    session.execute(text("SELECT 1"))

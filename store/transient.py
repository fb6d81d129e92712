"""Which database errors are transient: worth the same write again after a pause.

A deadlock, a serialization failure, a lock or statement timeout, a lost or refused
connection (a restart, a network reset), SQLite's "database is locked": none says anything
about the data written, so the caller retries instead of reporting a failure. Anything else
(a constraint, a syntax error, a missing table) would fail again the same way.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError

# PostgreSQL SQLSTATEs: whole classes, then single conditions.
TRANSIENT_CLASSES = {
    "08",  # connection exception
    "40",  # transaction rollback: serialization failure, deadlock
    "53",  # insufficient resources: too many connections, out of memory, disk full
    "57",  # operator intervention: statement timeout, shutdown, cannot connect now
    "58",  # system error (I/O)
}
# Lock not available, object in use, the server ended a transaction left idle too long.
TRANSIENT_STATES = {"55P03", "55006", "25P03"}

# sqlite3 extended error codes, low byte: SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL.
SQLITE_TRANSIENT = {5, 6, 15}


def is_transient(exc: BaseException) -> bool:
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True  # SQLAlchemy saw the connection die under the statement
    orig = exc.orig
    state = getattr(orig, "sqlstate", None)
    if isinstance(state, str) and state:
        return state in TRANSIENT_STATES or state[:2] in TRANSIENT_CLASSES
    code = getattr(orig, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in SQLITE_TRANSIENT
    # A driver error without a code: psycopg's for a connection that failed or broke.
    return type(orig).__module__.startswith("psycopg") and type(orig).__name__ in {
        "OperationalError",
        "InterfaceError",
    }


def first_line(exc: BaseException) -> str:
    """What a log line says of an error (a database error's text runs over many lines)."""
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"

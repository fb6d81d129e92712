"""The embedded broker: kombu's SQLAlchemy transport on a SQLite file, with two fixes.

kombu hands every transport option to create_engine, so its own `polling_interval` (virtual
transports poll; the 1 s default adds a second to every submission) cannot be set through the
URL alone; and several processes share the file, so they should wait for its lock rather
than fail, and may declare the same queue at once (kombu's guard against that is a lock of
its own process: `make run` starts the workers together, and one died of the duplicate).
And kombu's channel never closes its session: each channel a consumer's reconnect replaced
kept a pooled connection, and on a full disk the worker's consumer reconnected until the pool
refused ("QueuePool limit of size 5 overflow 10 reached") and it died. A channel gives its
session back when it closes and whenever a step of it fails. And a consumer waits between
polls on a wake-up that every put sends (worker/broker_wake.py), so a message is taken at once.
"""

from __future__ import annotations

import functools
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from queue import Empty
from typing import Any, TypeVar

from kombu.transport import sqlalchemy as sqla
from sqlalchemy import create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError

from store.files import private_sqlite
from worker import broker_wake

TRANSPORT = "worker.broker:Transport"
WAL_TRIES = 100  # 5 s

F = TypeVar("F", bound=Callable[..., Any])


def gives_back_the_session_on_error(step: F) -> F:
    """A failed step leaves the session in a broken transaction, holding its connection:
    roll back and close it (the next step opens a fresh one)."""

    @functools.wraps(step)
    def guarded(self: Channel, *args: Any, **kwargs: Any) -> Any:
        try:
            return step(self, *args, **kwargs)
        except Empty:  # no message: not an error, the session is fine
            raise
        except BaseException:
            self.give_back_session()
            raise

    return guarded  # type: ignore[return-value]


class Channel(sqla.Channel):
    def _engine_from_config(self):
        url = self.connection.client.hostname
        private_sqlite(url)  # 0600, as the judge's own database
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _wal(dbapi_connection, _record) -> None:
            # Switching a fresh file to WAL takes its lock without waiting for it: processes
            # opening it together (make run's) try again for a while.
            for _ in range(WAL_TRIES - 1):
                try:
                    dbapi_connection.execute("PRAGMA journal_mode=WAL")
                    return
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc):
                        raise
                    time.sleep(0.05)
            dbapi_connection.execute("PRAGMA journal_mode=WAL")

        return engine

    def _open(self):
        for _table in range(3):  # kombu's two tables, each of which may be raced once
            try:
                return super()._open()
            except OperationalError as exc:
                # Another process created a table between kombu's look and its CREATE TABLE
                # (a fresh broker file, workers starting together): it is there now.
                if "already exists" not in str(exc):
                    raise
        return super()._open()

    def _get_or_create(self, queue):
        try:
            return super()._get_or_create(queue)
        except IntegrityError:
            # Another process inserted the queue between kombu's look and its insert: it is
            # there now.
            self.session.rollback()
            return super()._get_or_create(queue)

    def give_back_session(self) -> None:
        session, self._session = self._session, None
        if session is None:
            return
        try:
            session.rollback()
        except Exception:  # a broken connection: closing it invalidates it all the same
            pass
        finally:
            session.close()

    _get = gives_back_the_session_on_error(sqla.Channel._get)
    _put_row = gives_back_the_session_on_error(sqla.Channel._put)
    _purge = gives_back_the_session_on_error(sqla.Channel._purge)
    _size = gives_back_the_session_on_error(sqla.Channel._size)
    _new_queue = gives_back_the_session_on_error(sqla.Channel._new_queue)

    def _put(self, queue, payload, **kwargs):  # type: ignore[override]
        self._put_row(queue, payload, **kwargs)
        broker_wake.wake_all(wake_folder(self.connection.client.hostname))

    # A consumer whose slots were all taken waits on its socket too: a slot freed by an ack (on
    # the pool's result thread) ends the wait, or a queued message would wait for the poll.
    def basic_ack(self, delivery_tag, multiple=False):
        super().basic_ack(delivery_tag, multiple)
        self._slot_freed()

    def basic_reject(self, delivery_tag, requeue=False):
        super().basic_reject(delivery_tag, requeue)
        self._slot_freed()

    def _slot_freed(self) -> None:
        waiter = getattr(self.connection, "_waiter", None)
        if waiter is not None:
            waiter.poke()

    def close(self):
        try:  # requeuing the unacked messages may fail too
            super().close()
        finally:
            self.give_back_session()


class Transport(sqla.Transport):
    """kombu's loop, except that between polls a consumer waits on its wake-up socket
    (worker/broker_wake.py) rather than sleeping: a message put or a slot freed meanwhile
    ends the wait."""

    Channel = Channel
    _waiter: broker_wake.Waiter | None = None

    def drain_events(self, connection, timeout=None):  # type: ignore[override]
        started = time.monotonic()
        polling_interval = self.polling_interval
        if timeout and polling_interval and polling_interval > timeout:
            polling_interval = timeout
        while True:
            try:
                self.cycle.get(self._deliver, timeout=timeout)  # type: ignore[union-attr]
                return
            except Empty:
                if timeout is not None and time.monotonic() - started >= timeout:
                    raise TimeoutError() from None
                if polling_interval is not None:
                    self._waiter_for().wait(polling_interval)

    def _waiter_for(self) -> broker_wake.Waiter:
        if self._waiter is None:
            self._waiter = broker_wake.Waiter(wake_folder(self.client.hostname))  # type: ignore[union-attr]
        return self._waiter

    def close_connection(self, connection):
        try:
            super().close_connection(connection)
        finally:
            if self._waiter is not None:
                self._waiter.close()
                self._waiter = None


@functools.cache
def wake_folder(url: str) -> Path:
    return broker_wake.folder_for(make_url(url).database or "")

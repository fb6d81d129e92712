"""This worker process's heartbeat (store/repo/heartbeats.py): registered at start, beaten
from a thread of the main process, marked stopping when the worker is asked to stop.

The main process beats, not the pool's: a worker whose main process is gone takes no more
messages, whatever its pool still runs. Its own engine, disposed after every use, as the
uid-block lease's: no connection is inherited by the pool processes forked after it."""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from config import Settings
from store.db import make_engine, make_session_factory
from store.repo import heartbeats
from store.transient import first_line

log = logging.getLogger(__name__)


class WorkerBeat:
    def __init__(self, settings: Settings, lane: str) -> None:
        self.settings = settings
        self.lane = lane
        self._engine = make_engine(settings.db_url)
        self._sessions = make_session_factory(self._engine)
        self.worker_id: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @contextmanager
    def _session(self) -> Iterator[Session]:
        try:
            with self._sessions() as session:
                yield session
        finally:
            self._engine.dispose()

    def _register(self) -> int:
        with self._session() as session:
            self.worker_id = heartbeats.register(
                session=session, lane=self.lane, host=socket.gethostname(), pid=os.getpid()
            )
        return self.worker_id

    def start(self) -> None:
        """Register (or, the database being down, leave it to the first beat) and beat."""
        try:
            self._register()
        except Exception as exc:
            log.warning("could not register this worker's heartbeat yet: %s", first_line(exc))
        self._thread = threading.Thread(target=self._run, name="worker-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.settings.heartbeat_s):
            try:
                if self.worker_id is None:
                    self._register()
                    continue
                with self._session() as session:
                    if not heartbeats.beat(session=session, worker_id=self.worker_id):
                        self._register()
            except Exception as exc:  # the database is down: /healthz will say so
                log.warning("worker heartbeat failed: %s", first_line(exc))

    def stopping(self) -> None:
        """Asked to stop (SIGTERM, a deploy): no longer alive, and what it leaves unfinished
        is not held against the submissions (store/repo/judging.py)."""
        self._stop.set()
        if self.worker_id is None:
            return
        # An engine of its own: this runs in a signal handler, maybe while the beat thread
        # uses the other.
        engine = make_engine(self.settings.db_url)
        try:
            with make_session_factory(engine)() as session:
                heartbeats.stopping(session=session, worker_id=self.worker_id)
        except Exception as exc:
            log.warning("could not mark this worker as stopping: %s", first_line(exc))
        finally:
            engine.dispose()

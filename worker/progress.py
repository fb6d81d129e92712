"""A grading's live progress (each finished test), stored beside the grading, not in its way.

The grading hands each test over and goes on to the next; a thread stores what has come in,
all of it in one transaction when tests finish faster than they are written. So a slow or
busy database no longer slows the grading (each write was about 0.8 ms on an idle SQLite and
more on a loaded PostgreSQL, 47 of them in a footholds grading), and one write per
WRITE_INTERVAL_S at most gathers the tests that finish meanwhile. Progress is for the live
view only: the final write (store.repo.finish) replaces the rows.

A failure of the machinery (a database that stays down) is the grading's failure, as it was
when the writes were in line: raised at the grading's next test, or when it ends.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Tests = list[dict[str, Any]]

# At most one write this often: the live view polls at 0.25 s (JUDGE_EVENTS_POLL_S), and each
# write held the grading's interpreter lock for about a millisecond; 47 writes in a footholds
# grading made it ~35 ms slower in the worker than the same grading alone.
WRITE_INTERVAL_S = 0.1


class ProgressWriter:
    """`store(tests)` called on a thread of its own for the tests `add`ed since its last
    call, in order. An exception of a type in `fatal` stops the writing and is raised to the
    grading (`add`, `close`); any other is logged (the rows' content refused: progress only)."""

    def __init__(
        self,
        store: Callable[[Tests], object],
        fatal: tuple[type[BaseException], ...],
        what: str,
        interval_s: float = WRITE_INTERVAL_S,
    ) -> None:
        self._store, self._fatal, self._what = store, fatal, what
        self._interval_s = interval_s
        self._pending: Tests = []
        self._closing = False
        self._failed: BaseException | None = None
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="progress-writer", daemon=True)

    def __enter__(self) -> ProgressWriter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()  # the grading failed, or close() ran: what is pending is written first

    def add(self, test: dict[str, Any]) -> None:
        with self._changed:
            if self._failed is not None:
                raise self._failed
            self._pending.append(test)
            self._changed.notify()

    def close(self) -> None:
        """Wait until every test handed over is stored; raise the writing's failure."""
        self._stop()
        if self._failed is not None:
            raise self._failed

    def _stop(self) -> None:
        with self._changed:
            self._closing = True
            self._changed.notify()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._pending and not self._closing:
                    self._changed.wait()
                if not self._pending:
                    return
                batch, self._pending = self._pending, []
            wrote = time.monotonic()
            if not self._write(batch):
                return
            # The next write gathers what comes in meanwhile, unless the grading ended.
            with self._changed:
                while not self._closing:
                    left = wrote + self._interval_s - time.monotonic()
                    if left <= 0:
                        break
                    self._changed.wait(left)

    def _write(self, batch: Tests) -> bool:
        """Store `batch`; False once the writing has failed. A batch refused for its content
        is tried a test at a time, so one bad row does not cost the others their progress."""
        try:
            self._store(batch)
        except self._fatal as exc:
            with self._changed:
                self._failed = exc
                self._pending = []
            return False
        except Exception:
            if len(batch) > 1:
                return all(self._write([test]) for test in batch)
            log.exception("%s: could not store test %s", self._what, batch[0].get("index"))
        return True

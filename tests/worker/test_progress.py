"""worker/progress.py: a grading's live progress is stored beside it, in order, batched while
a write is slow; a failure of the machinery reaches the grading, refused content does not."""

from __future__ import annotations

import threading
import time

import pytest

from worker.progress import ProgressWriter


class DatabaseDown(Exception):
    pass


def finished(*indexes: int) -> list[dict]:
    return [{"index": i, "verdict": "AC"} for i in indexes]


def test_tests_handed_over_while_a_write_is_slow_go_in_one_write_in_order():
    writing, may_finish = threading.Event(), threading.Event()
    writes: list[list[int]] = []

    def store(batch):
        writes.append([t["index"] for t in batch])
        writing.set()
        assert may_finish.wait(30)

    with ProgressWriter(store, (DatabaseDown,), "submission 1") as progress:
        progress.add(finished(0)[0])
        assert writing.wait(30)
        for test in finished(1, 2, 3, 4):
            progress.add(test)  # the grading goes on while test 0 is still being written
        assert writes == [[0]]
        may_finish.set()
        progress.close()
    assert writes == [[0], [1, 2, 3, 4]]


def test_a_failure_of_the_database_reaches_the_grading_and_nothing_after_it_is_written():
    writes: list[list[int]] = []

    def store(batch):
        writes.append([t["index"] for t in batch])
        raise DatabaseDown("connection refused")

    with ProgressWriter(store, (DatabaseDown,), "submission 2") as progress:
        progress.add(finished(0)[0])
        with pytest.raises(DatabaseDown, match="connection refused"):
            progress.close()
        with pytest.raises(DatabaseDown):
            progress.add(finished(1)[0])  # the grading's next test fails the same way
    assert writes == [[0]]


def test_refused_content_is_logged_and_its_neighbours_are_still_written(caplog):
    writing, may_finish = threading.Event(), threading.Event()
    writes: list[list[int]] = []
    stored: list[int] = []

    def store(batch):
        writes.append([t["index"] for t in batch])
        writing.set()
        assert may_finish.wait(30)
        if any(t["index"] == 1 for t in batch):
            raise ValueError("a row the database refuses")
        stored.extend(t["index"] for t in batch)

    with ProgressWriter(store, (DatabaseDown,), "submission 3") as progress:
        progress.add(finished(0)[0])
        assert writing.wait(30)
        progress.add(finished(1)[0])  # refused, in one batch with test 2
        progress.add(finished(2)[0])
        may_finish.set()
        progress.close()  # progress only: the grading is not failed for it
    assert writes == [[0], [1, 2], [1], [2]]
    assert stored == [0, 2]
    assert "submission 3: could not store test 1" in caplog.text


def test_a_grading_that_fails_still_writes_what_it_handed_over_and_ends_the_thread():
    writes: list[int] = []

    progress = ProgressWriter(lambda b: writes.extend(t["index"] for t in b), (), "s4")
    with pytest.raises(RuntimeError, match="the grading broke"), progress:
        progress.add(finished(0)[0])
        progress.add(finished(1)[0])
        raise RuntimeError("the grading broke")
    assert writes == [0, 1]
    assert not progress._thread.is_alive()


def test_tests_finished_soon_after_a_write_wait_for_the_next_one_and_the_end_cuts_the_wait():
    wrote = threading.Event()
    writes: list[list[int]] = []

    def store(batch):
        writes.append([t["index"] for t in batch])
        wrote.set()

    started = time.monotonic()
    with ProgressWriter(store, (DatabaseDown,), "submission 5", interval_s=60) as progress:
        progress.add(finished(0)[0])
        assert wrote.wait(30)
        for test in finished(1, 2, 3):
            progress.add(test)  # within the minute after test 0's write: gathered
        progress.close()  # the grading ended: written now, not a minute later
    assert writes == [[0], [1, 2, 3]]
    assert time.monotonic() - started < 30

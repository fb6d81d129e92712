"""The embedded broker (kombu's SQLAlchemy transport on one SQLite file) when several processes
declare the same queue at once, as `make run`'s workers do when they start together."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kombu import Connection
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from worker import broker
from worker.broker import TRANSPORT

DECLARE = """
import sys, time
from kombu import Connection, Queue
url, name, at = sys.argv[1], sys.argv[2], float(sys.argv[3])
with Connection(url, transport="worker.broker:Transport") as connection:
    channel = connection.channel()
    time.sleep(max(at - time.time(), 0))  # all of them at the same moment
    Queue(name, channel=channel).declare()
    print("declared")
"""


def test_processes_declaring_one_queue_at_once_all_succeed(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'broker.sqlite'}"  # as worker/app.py hands it to kombu
    repo = Path(__file__).resolve().parents[2]
    for round_ in range(5):
        at = time.time() + 1.5
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", DECLARE, url, f"queue-{round_}", str(at)],
                cwd=repo,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0 and out.strip() == "declared", err[-2000:]


def assert_round_trip(url: str, payload: dict[str, int]) -> None:
    """A message put on the broker at `url` comes back as it was."""
    with Connection(url, transport=TRANSPORT) as connection:
        queue = connection.SimpleQueue("grading")
        queue.put(payload)
        message = queue.get(timeout=1)
        assert message.payload == payload
        message.ack()
        queue.close()


def test_a_failing_broker_database_does_not_leak_connections(tmp_path: Path):
    """A broker file that keeps failing (a full disk) while the consumer reconnects again and
    again: every failed channel gives its connection back, so the pool does not grow until
    SQLAlchemy refuses ("QueuePool limit of size 5 overflow 10 reached")."""
    url = f"sqlite:///{tmp_path / 'broker.sqlite'}"
    assert_round_trip(url, {"submission": 1})
    engine = broker.Channel._engines[url][0]
    assert engine.pool.checkedout() == 0

    def disk_full(*_args) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    event.listen(engine, "before_cursor_execute", disk_full)
    try:
        for _ in range(20):  # more than the pool's 5 + 10: each would have kept one
            with Connection(url, transport=TRANSPORT) as connection:
                channel = connection.channel()
                with pytest.raises(OperationalError, match="disk is full"):
                    channel._get("grading")
                with pytest.raises(OperationalError, match="disk is full"):
                    channel._put("grading", {"submission": 2})
            assert engine.pool.checkedout() == 0
    finally:
        event.remove(engine, "before_cursor_execute", disk_full)
    assert_round_trip(url, {"submission": 3})  # and it works once space is back
    assert engine.pool.checkedout() == 0

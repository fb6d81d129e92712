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

# Each process declares queue-0 .. queue-N, each round at the same moment as the others,
# on a fresh connection and engine each round as a new process would (the processes start
# once, not once a round: 6 interpreters importing kombu, not 30).
DECLARE = """
import sys, time
from kombu import Connection, Queue
from worker import broker
url, rounds, first, step = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
for round_ in range(rounds):
    broker.Channel._engines.clear()
    with Connection(url, transport="worker.broker:Transport") as connection:
        channel = connection.channel()
        time.sleep(max(first + round_ * step - time.time(), 0))  # all of them at once
        Queue(f"queue-{round_}", channel=channel).declare()
    print("declared", round_)
"""
ROUNDS, PROCESSES = 5, 6


def test_processes_declaring_one_queue_at_once_all_succeed(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'broker.sqlite'}"  # as worker/app.py hands it to kombu
    repo = Path(__file__).resolve().parents[2]
    first = time.time() + 2.5  # the processes started and connected by then
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", DECLARE, url, str(ROUNDS), str(first), "0.75"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        declared = [f"declared {n}" for n in range(ROUNDS)]
        assert proc.returncode == 0 and out.splitlines() == declared, err[-2000:]


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

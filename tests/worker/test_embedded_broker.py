"""The embedded broker (kombu's SQLAlchemy transport on one SQLite file) when several processes
declare the same queue at once, as `make run`'s workers do when they start together."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kombu import Connection
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from worker import broker, broker_wake
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


# A consumer that would poll once a minute: it must get the message from the wake-up.
CONSUME = """
import sys, time
from kombu import Connection
from worker.broker import TRANSPORT
options = {"polling_interval": 60}
with Connection(sys.argv[1], transport=TRANSPORT, transport_options=options) as connection:
    queue = connection.SimpleQueue("grading")
    started = time.monotonic()
    message = queue.get(timeout=90)
    print(message.payload, "woken" if time.monotonic() - started < 30 else "polled", flush=True)
"""


def test_a_put_wakes_a_consumer_between_its_polls(tmp_path: Path):
    """The consumer polls once a minute: the message reaches it long before its next poll
    only if the put's wake-up ended its wait."""
    broker_file = tmp_path / "broker.sqlite"
    url = f"sqlite:///{broker_file}"
    assert_round_trip(url, {"submission": 0})  # the tables exist before the consumer starts
    consumer = subprocess.Popen(
        [sys.executable, "-c", CONSUME, url],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    folder = broker_wake.folder_for(str(broker_file))
    socket_path = folder / f"{consumer.pid}.sock"
    try:
        for _ in range(600):  # its first poll found nothing and it waits on its socket
            if socket_path.exists() or consumer.poll() is not None:
                break
            time.sleep(0.05)
        assert socket_path.exists(), consumer.communicate(timeout=5)
        assert oct(folder.stat().st_mode & 0o777) == "0o700"
        with Connection(url, transport=TRANSPORT) as connection:
            connection.SimpleQueue("grading").put({"submission": 7})
        out, err = consumer.communicate(timeout=120)
    finally:
        consumer.kill()
    assert out.strip() == "{'submission': 7} woken", err[-2000:]
    assert not socket_path.exists()  # removed when its connection closed


def test_a_socket_left_by_a_dead_consumer_is_removed_and_a_live_one_woken(tmp_path: Path):
    folder = tmp_path / "broker.sqlite.wake"
    dead = broker_wake.Waiter(folder)
    assert dead.sock is not None
    dead.sock.close()  # its process died: the file stays, nobody reads it
    live = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    live.bind(str(folder / "live.sock"))
    live.settimeout(5)
    broker_wake.wake_all(folder)
    assert not dead.path.exists()
    assert live.recv(8) == b"!"
    live.close()


def test_a_folder_too_deep_for_a_socket_means_polling(tmp_path: Path):
    deep = tmp_path / ("d" * 120)
    waiter = broker_wake.Waiter(deep)
    assert waiter.sock is None and not deep.exists()
    started = time.monotonic()
    waiter.wait(0.01)  # sleeps its interval instead
    assert time.monotonic() - started >= 0.01
    broker_wake.wake_all(deep)  # nobody to wake: nothing happens


# A consumer with one slot, polling once a minute: the second message waits for the first's
# ack, which comes from another thread (as Celery's pool results do).
ONE_SLOT = """
import sys, threading, time
from kombu import Connection, Consumer
from worker.broker import TRANSPORT
options = {"polling_interval": 60}
with Connection(sys.argv[1], transport=TRANSPORT, transport_options=options) as connection:
    got = []
    channel = connection.channel()
    channel.basic_qos(0, 1, False)
    queue = connection.SimpleQueue("grading").queue
    with Consumer(channel, queues=[queue], callbacks=[lambda body, m: got.append((body, m))]):
        connection.drain_events(timeout=90)
        threading.Timer(0.5, got[0][1].ack).start()
        started = time.monotonic()
        connection.drain_events(timeout=90)
        woken = time.monotonic() - started < 30
        print(got[0][0], got[1][0], "woken" if woken else "polled", flush=True)
"""


def test_a_slot_freed_by_an_ack_wakes_a_consumer_whose_slots_were_full(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'broker.sqlite'}"
    with Connection(url, transport=TRANSPORT) as connection:
        queue = connection.SimpleQueue("grading")
        queue.put({"submission": 1})
        queue.put({"submission": 2})
    done = subprocess.run(
        [sys.executable, "-c", ONE_SLOT, url],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.stdout.strip() == "{'submission': 1} {'submission': 2} woken", done.stderr[-2000:]

"""`python -m worker sweep`: run the sweeper until interrupted.

`python -m worker alive LANE`: exit 0 when a worker of LANE (grading, run, hidden, sweeper)
on this host has a fresh heartbeat (a container's healthcheck), 1 otherwise.
"""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import threading

from config import Settings
from store.db import make_engine, make_session_factory
from store.repo import heartbeats


def alive(settings: Settings, lane: str) -> bool:
    engine = make_engine(settings.db_url)
    try:
        with make_session_factory(engine)() as session:
            counts = heartbeats.alive_workers(
                session=session, stale_s=settings.heartbeat_stale_s, host=socket.gethostname()
            )
    finally:
        engine.dispose()
    return counts[lane] > 0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m worker")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sweep", help="run the sweeper until interrupted")
    check = commands.add_parser("alive", help="exit 0 if a LANE worker on this host beats")
    check.add_argument("lane", choices=heartbeats.LANES)
    args = parser.parse_args()
    settings = Settings()
    if args.command == "alive":
        sys.exit(0 if alive(settings, args.lane) else 1)
    # Imported here, not at the top: `alive` is a container's healthcheck, run every few
    # seconds, and needs none of Celery, the judge or the sweeper (half its start-up time).
    from worker import sweeper
    from worker.app import make_celery
    from worker.liveness import WorkerBeat
    from worker.queue import Enqueuer
    from worker.runtime import Runtime

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    beat = WorkerBeat(settings, "sweeper")
    beat.start()
    try:
        sweeper.run(Runtime(settings), Enqueuer(make_celery(settings)), stop)
    finally:
        beat.stopping()


if __name__ == "__main__":
    main()

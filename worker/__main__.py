"""`python -m worker sweep`: run the sweeper until interrupted."""

from __future__ import annotations

import argparse
import logging
import signal
import threading

from config import Settings
from worker import sweeper
from worker.app import make_celery
from worker.queue import Enqueuer
from worker.runtime import Runtime


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m worker")
    parser.add_argument("command", choices=["sweep"])
    parser.parse_args()
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = Settings()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    sweeper.run(Runtime(settings), Enqueuer(make_celery(settings)), stop)


if __name__ == "__main__":
    main()

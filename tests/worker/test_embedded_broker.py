"""The embedded broker (kombu's SQLAlchemy transport on one SQLite file) when several processes
declare the same queue at once, as `make run`'s workers do when they start together."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

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

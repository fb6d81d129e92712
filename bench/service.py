"""Service benchmark: submit-to-verdict latency and grading throughput of the real stack
(API + Celery worker with 2 grading slots + sweeper, embedded SQLite and SQLAlchemy broker),
grading a correct footholds solution on the problem's full default test plan.

    from bench import service
    numbers = service.run(report)    # report(name, value) per number; returns them all
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.service.stack import Stack, service_env, solution, wait_for

SUBMISSIONS = 20
SLOTS = 2


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def verdict_time(stack: Stack, token: str, submission_id: int) -> float:
    """Poll finely (20 ms) so the measured latency is the service's, not the poll's."""

    def done() -> float | None:
        body = stack.detail(token, submission_id)
        if body["status"] == "done":
            assert body["verdict"] == "AC", body
            return time.monotonic()
        return None

    return wait_for(
        done, timeout=300, interval=0.02, what=f"submission {submission_id}", context=stack.logs
    )


def cli_floor(source: str, submissions: int) -> dict[str, float]:
    """The same grading through `python -m judge grade`, no server: latency of one run, and
    throughput with as many CLI processes at once as the service has slots."""
    with tempfile.TemporaryDirectory(prefix="judge-bench-cli-") as tmp:
        path = Path(tmp, "solution.py")
        path.write_text(source)
        command = [sys.executable, "-m", "judge", "grade", "footholds", str(path), "--json"]

        def one(_: int) -> float:
            started = time.monotonic()
            subprocess.run(command, check=True, capture_output=True)
            return time.monotonic() - started

        latencies = [one(i) for i in range(submissions)]
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=SLOTS) as pool:
            list(pool.map(one, range(submissions)))
        elapsed = time.monotonic() - started
    return {
        "latency_p50_s": statistics.median(latencies),
        "throughput_per_min": submissions / elapsed * 60,
    }


def measure(submissions: int = SUBMISSIONS) -> dict[str, Any]:
    source = solution("footholds_ok")
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        env = service_env(
            Path(tmp),
            JUDGE_WORKER_SLOTS=str(SLOTS),
            JUDGE_SUBMIT_RATE_PER_MINUTE="100000",
            JUDGE_LEASE_S="30",
            JUDGE_RESEND_AFTER_S="60",
        )
        stack = Stack("bench", Path(tmp), env).start()
        try:
            token = stack.register("bench")
            stack.wait_done(token, stack.submit(token, "footholds", source))  # warm up

            # Latency: one submission at a time on an idle service.
            latencies = []
            for _ in range(submissions):
                started = time.monotonic()
                sid = stack.submit(token, "footholds", source)
                latencies.append(verdict_time(stack, token, sid) - started)

            # Throughput: a burst of submissions from as many students (one student's are
            # graded one at a time), until the last verdict.
            tokens = [stack.register(f"burst{n}") for n in range(submissions)]
            started = time.monotonic()
            ids = [stack.submit(t, "footholds", source) for t in tokens]
            with ThreadPoolExecutor(max_workers=4) as pool:
                finished = list(pool.map(lambda t, i: verdict_time(stack, t, i), tokens, ids))
            elapsed = max(finished) - started
            tests = stack.detail(tokens[0], ids[0])["total"]
        finally:
            stack.stop()
    floor = cli_floor(source, submissions)
    throughput = submissions / elapsed * 60
    return {
        "config": f"embedded (SQLite + SQLAlchemy broker), {SLOTS} grading slots",
        "submissions": submissions,
        "tests_per_submission": tests,
        "latency_p50_s": round(statistics.median(latencies), 3),
        "latency_p95_s": round(_percentile(latencies, 0.95), 3),
        "latency_max_s": round(max(latencies), 3),
        "throughput_per_min": round(throughput, 1),
        "cli_floor_latency_p50_s": round(floor["latency_p50_s"], 3),
        "cli_floor_throughput_per_min": round(floor["throughput_per_min"], 1),
        "latency_p50_over_cli": round(statistics.median(latencies) / floor["latency_p50_s"], 2),
        "throughput_vs_cli": round(throughput / floor["throughput_per_min"], 2),
    }


def run(report: Callable[[str, str], None] | None = None) -> dict[str, Any]:
    numbers = measure()
    if report is not None:
        for name, value in numbers.items():
            report(f"service {name}", str(value))
    return numbers


if __name__ == "__main__":
    run(lambda name, value: print(f"{name:40} {value}"))

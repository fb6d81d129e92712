"""Service benchmark: submit-to-verdict latency and grading throughput of the real stack
(API + Celery worker with 2 grading slots + sweeper, embedded SQLite and SQLAlchemy broker),
grading a correct footholds solution on the problem's full default test plan.

    from bench import service
    numbers = service.run(report)    # report(name, value) per number; returns them all
"""

from __future__ import annotations

import statistics
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


def _verdict_time(stack: Stack, token: str, submission_id: int) -> float:
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
                latencies.append(_verdict_time(stack, token, sid) - started)

            # Throughput: a burst of submissions, until the last verdict.
            started = time.monotonic()
            ids = [stack.submit(token, "footholds", source) for _ in range(submissions)]
            with ThreadPoolExecutor(max_workers=4) as pool:
                finished = list(pool.map(lambda i: _verdict_time(stack, token, i), ids))
            elapsed = max(finished) - started
            tests = stack.detail(token, ids[0])["total"]
        finally:
            stack.stop()
    return {
        "config": f"embedded (SQLite + SQLAlchemy broker), {SLOTS} grading slots",
        "submissions": submissions,
        "tests_per_submission": tests,
        "latency_p50_s": round(statistics.median(latencies), 3),
        "latency_p95_s": round(_percentile(latencies, 0.95), 3),
        "latency_max_s": round(max(latencies), 3),
        "throughput_per_min": round(submissions / elapsed * 60, 1),
    }


def run(report: Callable[[str, str], None] | None = None) -> dict[str, Any]:
    numbers = measure()
    if report is not None:
        for name, value in numbers.items():
            report(f"service {name}", str(value))
    return numbers


if __name__ == "__main__":
    run(lambda name, value: print(f"{name:40} {value}"))

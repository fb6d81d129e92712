"""Service benchmark: submit-to-verdict latency and grading throughput of the real stack
(API + Celery worker with 2 grading slots + the run lane's worker + sweeper, embedded SQLite
and SQLAlchemy broker), grading a correct footholds solution on the problem's full default
test plan; and the latency of a run of it on the problem's samples (POST /runs).

    from bench import service
    numbers = service.run(report)    # report(name, value) per number; returns them all
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.report import Report, percentile, print_line, report_numbers
from tests.service.packages import package_zip, unique_slug
from tests.service.stack import Stack, service_env, solution, wait_for

SUBMISSIONS = 20
SLOTS = 2


def verdict_time(stack: Stack, token: str, submission_id: int) -> float:
    """Poll finely (20 ms) so the measured latency is the service's, not the poll's. As the
    student, this is when the verdict is released; as an instructor, when it is stored."""

    def done() -> float | None:
        body = stack.detail(token, submission_id)
        if body["status"] == "done":
            assert body["verdict"] == "AC", body
            return time.monotonic()
        return None

    return wait_for(
        done, timeout=300, interval=0.02, what=f"submission {submission_id}", context=stack.logs
    )


@contextmanager
def inprocess_grading(source: str) -> Iterator[Callable[[], float]]:
    """The same grading as the worker's, `grade()` in this process with a sandbox made once
    (the worker's are warm too): what the service adds is the rest (queue, claim, writes)."""
    from judge import problems
    from judge.grading.grade import grade
    from judge.sandbox import SandboxConfig, make_sandbox

    sandbox = make_sandbox(SandboxConfig(mode="bwrap"))
    problem = problems.get("footholds")

    def one() -> float:
        started = time.monotonic()
        result = grade(problem, source.encode(), sandbox=sandbox)
        assert result.verdict == "AC", result.message
        return time.monotonic() - started

    one()
    yield one


def run_time(stack: Stack, token: str, source: str) -> float:
    """Seconds from POST /runs (the samples) to the run's results, polled every 20 ms."""
    started = time.monotonic()
    response = stack.request(
        "POST", "/api/v1/runs", token, json={"problem": "footholds", "source": source}
    )
    assert response.status_code == 202, response.text
    path = f"/api/v1/runs/{response.json()['id']}"

    def done() -> float | None:
        body = stack.request("GET", path, token).json()
        if body["status"] in ("done", "error"):
            assert body["status"] == "done" and body["results"], body
            return time.monotonic()
        return None

    return wait_for(done, timeout=120, interval=0.02, what=path, context=stack.logs) - started


def check_time(stack: Stack, token: str) -> float:
    """An instructor's upload of the tic-tac-toe fixture package until its check's report
    (the run lane runs every check but mutants in the sandbox), in seconds."""
    started = time.monotonic()
    files = {"file": ("package.zip", package_zip(unique_slug("bench")), "application/zip")}
    response = stack.request("POST", "/api/v1/problems", token, files=files)
    assert response.status_code == 202, response.text
    version = response.json()
    path = f"/api/v1/problems/{version['slug']}/versions/{version['id']}"

    def done() -> float | None:
        body = stack.request("GET", path, token).json()
        if body["status"] == "checking":
            return None
        assert body["status"] == "passed", body["report"]
        return time.monotonic()

    return wait_for(done, timeout=180, interval=0.05, what="the package check") - started


def burst(stack: Stack, source: str, students: int, tag: str) -> float:
    """Seconds from the first submission of a burst from as many students (one student's
    are graded one at a time) to its last verdict."""
    tokens = [stack.register(f"{tag}{n}") for n in range(students)]
    started = time.monotonic()
    ids = [stack.submit(token, "footholds", source) for token in tokens]
    with ThreadPoolExecutor(max_workers=4) as pool:
        finished = list(pool.map(lambda t, i: verdict_time(stack, t, i), tokens, ids))
    return max(finished) - started


@contextmanager
def cli_grading(source: str) -> Iterator[Callable[[], float]]:
    """The same grading through `python -m judge grade`, no server: each call grades the
    source in a fresh process and returns its seconds (a first run warms the page cache)."""
    with tempfile.TemporaryDirectory(prefix="judge-bench-cli-") as tmp:
        path = Path(tmp, "solution.py")
        path.write_text(source)
        command = [sys.executable, "-m", "judge", "grade", "footholds", str(path), "--json"]

        def one() -> float:
            started = time.monotonic()
            subprocess.run(command, check=True, capture_output=True)
            return time.monotonic() - started

        one()
        yield one


def per_minute(grade_one: Callable[[], object], submissions: int, at_once: int) -> float:
    """Submissions per minute, `at_once` gradings at a time."""
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        list(pool.map(lambda _: grade_one(), range(submissions)))
    return submissions / (time.monotonic() - started) * 60


def measure(submissions: int = SUBMISSIONS) -> dict[str, Any]:
    source = solution("footholds_ok")
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        env = service_env(
            Path(tmp),
            JUDGE_WORKER_SLOTS=str(SLOTS),
            JUDGE_SUBMIT_RATE_PER_MINUTE="100000",
            JUDGE_RUN_RATE_PER_MINUTE="100000",
            JUDGE_LEASE_S="30",
            JUDGE_RESEND_AFTER_S="60",
        )
        stack = Stack("bench", Path(tmp), env).start()
        try:
            token = stack.register("bench")
            warm_up = stack.submit(token, "footholds", source)
            tests = stack.wait_done(token, warm_up)["total"]

            # Latency: one submission at a time on an idle service, as the instructor sees it
            # (stored) and as the student does (released: see store/release.py), in turns
            # with the same grading in this process.
            teacher = stack.instructor()
            latencies, stored, inprocess = [], [], []
            with inprocess_grading(source) as grade_here:
                for _ in range(submissions):
                    started = time.monotonic()
                    sid = stack.submit(token, "footholds", source)
                    stored.append(verdict_time(stack, teacher, sid) - started)
                    latencies.append(verdict_time(stack, token, sid) - started)
                    inprocess.append(grade_here())

            # A run on the samples, one at a time on an idle service (one warm-up first).
            run_time(stack, token, source)
            run_latencies = [run_time(stack, token, source) for _ in range(submissions)]

            # Throughput: a burst of submissions, until the last verdict.
            elapsed = burst(stack, source, submissions, "burst")

            # An instructor's package upload until its check's report, on the idle service.
            checks = [check_time(stack, teacher) for _ in range(min(submissions, 3))]
        finally:
            stack.stop()
    with cli_grading(source) as one:
        cli_latencies = [one() for _ in range(submissions)]
        cli_per_min = per_minute(one, submissions, at_once=SLOTS)
    throughput = submissions / elapsed * 60
    return {
        "config": f"embedded (SQLite + SQLAlchemy broker), {SLOTS} grading slots",
        "submissions": submissions,
        "tests_per_submission": tests,
        "latency_p50_s": round(statistics.median(latencies), 3),
        "latency_p95_s": round(percentile(latencies, 0.95), 3),
        "latency_max_s": round(max(latencies), 3),
        "stored_latency_p50_s": round(statistics.median(stored), 3),
        "inprocess_grade_p50_s": round(statistics.median(inprocess), 3),
        # What the service adds to the same grading: queue, claim, writes, the poll's 20 ms;
        # and with the release (a judging is shown at least one quantum after its hidden
        # tier began, so a student cannot time the hidden tier).
        "service_adds_stored_p50_s": round(
            statistics.median(s - g for s, g in zip(stored, inprocess, strict=True)), 3
        ),
        "service_adds_released_p50_s": round(
            statistics.median(r - g for r, g in zip(latencies, inprocess, strict=True)), 3
        ),
        "run_latency_p50_s": round(statistics.median(run_latencies), 3),
        "run_latency_p95_s": round(percentile(run_latencies, 0.95), 3),
        "throughput_per_min": round(throughput, 1),
        "package_upload_to_checked_p50_s": round(statistics.median(checks), 2),
        "cli_floor_latency_p50_s": round(statistics.median(cli_latencies), 3),
        "cli_floor_throughput_per_min": round(cli_per_min, 1),
        "latency_p50_over_cli": round(
            statistics.median(latencies) / statistics.median(cli_latencies), 2
        ),
        "throughput_vs_cli": round(throughput / cli_per_min, 2),
    }


def run(report: Report | None = None, submissions: int = SUBMISSIONS) -> dict[str, Any]:
    return report_numbers("service", measure(submissions), report)


if __name__ == "__main__":
    run(print_line)

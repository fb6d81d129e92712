"""Scaling: grading throughput with 1, 2 and 4 worker processes of one slot each, all on one
PostgreSQL + Redis, against the floor of as many `python -m judge grade` processes at once,
measured in the same run (on a 2-core machine the ceiling is the cores, not the service:
the CLI's own scaling from 1 to 4 processes says how far the machine lets anything scale).

Needs PostgreSQL (127.0.0.1:5432, user postgres, trust, database `test`, where a fresh
database is created and dropped per configuration) and Redis (127.0.0.1:6379, a key prefix
of its own, deleted afterwards): the same services as the test suite.

    from bench import scaling
    numbers = scaling.run(report)
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import redis

from bench.report import Report, print_line, report_numbers
from bench.service import burst, cli_grading, per_minute
from tests.service.stack import START_TIMEOUT_S, Stack, service_env, solution, wait_for

PG_ADMIN_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"
PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
REDIS_URL = "redis://127.0.0.1:6379/0"
WORKERS = (1, 2, 4)
SUBMISSIONS = 20  # a burst from as many students (one student's are graded one at a time)


@contextmanager
def fresh_services() -> Iterator[dict[str, str]]:
    """A new PostgreSQL database and a Redis key prefix, both removed afterwards."""
    name = f"judge_bench_{uuid.uuid4().hex[:10]}"
    prefix = f"judge-bench-{name}:"
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield {
            "JUDGE_DATABASE_URL": PG_URL.format(name=name),
            "JUDGE_BROKER_URL": REDIS_URL,
            "JUDGE_BROKER_KEY_PREFIX": prefix,
        }
    finally:
        with psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
        client.close()


def start_workers(stack: Stack, count: int) -> None:
    names = [f"worker{n}" for n in range(count)]
    for name in names:
        stack.spawn(
            name,
            *("-m", "celery", "-A", "worker.main", "worker", "--loglevel=INFO"),
            *("--without-gossip", "--without-mingle", "--without-heartbeat"),
            f"--hostname={name}-{os.getpid()}-{time.monotonic_ns()}@%h",
        )
    for name in names:
        wait_for(
            lambda name=name: " ready." in (stack.tmp / f"{name}.log").read_text(errors="replace"),
            timeout=START_TIMEOUT_S,
            what=name,
            context=lambda: "\n".join(stack.log_tail(n) for n in names),
        )


def service_throughput(workers: int, source: str, submissions: int) -> float:
    """Submissions per minute through the service with `workers` one-slot workers."""
    with fresh_services() as services, tempfile.TemporaryDirectory(prefix="judge-scale-") as tmp:
        env = service_env(
            Path(tmp),
            **services,
            JUDGE_WORKER_SLOTS="1",
            JUDGE_LEASE_S="30",
            JUDGE_RESEND_AFTER_S="60",
        )
        stack = Stack(f"scale{workers}", Path(tmp), env)
        try:
            stack.setup()
            stack.start_api()
            start_workers(stack, workers)
            burst(stack, source, 2 * workers, "warm")  # every worker's sandbox set up once
            elapsed = burst(stack, source, submissions, "burst")
        finally:
            stack.stop()
    return submissions / elapsed * 60


def measure(
    workers: tuple[int, ...] = WORKERS, submissions: int = SUBMISSIONS, rounds: int = 2
) -> dict[str, Any]:
    """Each configuration's service and CLI throughput back to back, the configurations in
    the order 1, 2, 4, 4, 2, 1 (...), so a drift in the machine's other load (shared
    machines) weighs on every configuration alike; the sums of the rounds are compared."""
    source = solution("footholds_ok")
    numbers: dict[str, Any] = {
        "config": "PostgreSQL + Redis, N Celery workers of 1 slot, full footholds plan",
        "cores": os.cpu_count(),
        "load_average_before": round(os.getloadavg()[0], 1),
    }
    service = dict.fromkeys(workers, 0.0)
    floor = dict.fromkeys(workers, 0.0)
    for round_ in range(rounds):
        for count in workers if round_ % 2 == 0 else tuple(reversed(workers)):
            service[count] += service_throughput(count, source, submissions) / rounds
            with cli_grading(source) as one:
                floor[count] += per_minute(one, submissions, at_once=count) / rounds
    numbers["load_average_after"] = round(os.getloadavg()[0], 1)
    for count in workers:
        numbers[f"workers_{count}_per_min"] = round(service[count], 1)
        numbers[f"cli_{count}_at_once_per_min"] = round(floor[count], 1)
        numbers[f"workers_{count}_vs_cli"] = round(service[count] / floor[count], 2)
        numbers[f"workers_{count}_vs_1_worker"] = round(service[count] / service[workers[0]], 2)
        numbers[f"cli_{count}_vs_1_cli"] = round(floor[count] / floor[workers[0]], 2)
    return numbers


def run(
    report: Report | None = None,
    workers: tuple[int, ...] = WORKERS,
    submissions: int = SUBMISSIONS,
    rounds: int = 2,
) -> dict[str, Any]:
    return report_numbers("workers", measure(workers, submissions, rounds), report)


if __name__ == "__main__":
    run(print_line)

"""The service under abuse, measured: an unrelated student's requests and submissions while
others flood it (the targets come from the security issue; nothing here is asserted).

- latency of an authenticated GET /api/v1/submissions: idle, during 400 open live-progress
  streams (50 students x 8, the per-student cap), and during a 60-way flood of wrong logins;
- a correct submission's submit-to-verdict time on an idle service and while another student
  keeps six sleeping submissions queued.

    from bench import service_load
    numbers = service_load.run(report)
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from bench.report import Report, percentile, print_line, report_numbers
from bench.service import verdict_time
from tests.service.stack import Stack, service_env, solution

STUDENTS = 50
STREAMS_PER_STUDENT = 8
LOGIN_FLOODERS = 60
SAMPLES = 40
SLEEPERS = 6
SLEEPER = """
import time

def solution(board, aloc, bloc):
    time.sleep(9)
    return 0
"""


def _p95(values: list[float]) -> float:
    return percentile(values, 0.95)


def _get_latencies(stack: Stack, token: str, count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        started = time.monotonic()
        response = stack.request("GET", "/api/v1/submissions", token)
        latencies.append(time.monotonic() - started)
        assert response.status_code == 200, response.text
        time.sleep(0.05)
    return latencies


async def _hold_streams(base_url: str, targets: list[tuple[str, int]], opened, stop) -> int:
    """Open one stream per (token, submission id) and hold them until `stop` is set."""
    limits = httpx.Limits(max_connections=len(targets) + 10)
    async with httpx.AsyncClient(base_url=base_url, timeout=None, limits=limits) as client:
        statuses: list[int] = []

        async def hold(token: str, sid: int) -> None:
            headers = {"Authorization": f"Bearer {token}"}
            url = f"/api/v1/submissions/{sid}/events"
            async with client.stream("GET", url, headers=headers) as response:
                statuses.append(response.status_code)
                if len(statuses) == len(targets):
                    opened.set()
                while not stop.is_set():
                    await asyncio.sleep(0.1)

        tasks = [asyncio.create_task(hold(t, s)) for t, s in targets]
        await asyncio.gather(*tasks, return_exceptions=True)
        return sum(code == 200 for code in statuses)


def measure_floods(
    students: int = STUDENTS,
    streams: int = STREAMS_PER_STUDENT,
    flooders: int = LOGIN_FLOODERS,
    samples: int = SAMPLES,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="judge-bench-load-") as tmp:
        # service_env lifts the per-address limits (every client here is 127.0.0.1); the
        # per-username login throttle stays as configured by default.
        stack = Stack("load", Path(tmp), service_env(Path(tmp)))
        stack.setup()
        stack.start_api()  # no worker: submissions stay queued and their streams stay open
        try:
            observer = stack.register("observer")
            idle = _get_latencies(stack, observer, samples)

            targets = []
            for n in range(students):
                token = stack.register(f"streamer{n}")
                sid = stack.submit(token, "numbergame", solution("numbergame_ok"))
                targets += [(token, sid)] * streams
            opened, stop = threading.Event(), threading.Event()
            held: list[int] = []
            holder = threading.Thread(
                target=lambda: held.append(
                    asyncio.run(_hold_streams(stack.base_url, targets, opened, stop))
                )
            )
            holder.start()
            opened.wait(120)
            during_streams = _get_latencies(stack, observer, samples)
            stop.set()
            holder.join(60)

            flooding = threading.Event()
            flooding.set()
            refused: list[int] = []

            def flood(_: int) -> None:
                with httpx.Client(base_url=stack.base_url, timeout=60) as client:
                    while flooding.is_set():
                        response = client.post(
                            "/api/v1/token", data={"username": "observer", "password": "wrong"}
                        )
                        refused.append(response.status_code)

            with ThreadPoolExecutor(max_workers=flooders) as pool:
                futures = [pool.submit(flood, i) for i in range(flooders)]
                time.sleep(1.0)
                during_logins = _get_latencies(stack, observer, samples)
                flooding.clear()
                for future in futures:
                    future.result()
        finally:
            stack.stop()
    return {
        "get_idle_p50_s": round(statistics.median(idle), 4),
        "get_idle_p95_s": round(_p95(idle), 4),
        "streams_open": held[0] if held else 0,
        "get_during_streams_p95_s": round(_p95(during_streams), 4),
        "get_during_streams_p95_over_idle": round(_p95(during_streams) / _p95(idle), 2),
        "login_attempts_during_flood": len(refused),
        "login_flood_answers_429": sum(code == 429 for code in refused),
        "get_during_login_flood_p95_s": round(_p95(during_logins), 4),
        "get_during_login_flood_p95_over_idle": round(_p95(during_logins) / _p95(idle), 2),
    }


def _verdict_latency(stack: Stack, token: str, source: str) -> float:
    started = time.monotonic()
    sid = stack.submit(token, "numbergame", source)
    return verdict_time(stack, token, sid) - started


def measure_fairness(rounds: int = 5, sleepers: int = SLEEPERS) -> dict[str, Any]:
    source = solution("numbergame_ok")
    with tempfile.TemporaryDirectory(prefix="judge-bench-fair-") as tmp:
        # Six queued at once is over the default per-student cap (5): service_env lifts it,
        # so that the scheduler alone is measured.
        env = service_env(Path(tmp))
        stack = Stack("fair", Path(tmp), env).start()
        try:
            fair = stack.register("fair")
            _verdict_latency(stack, fair, source)  # warm up
            idle = [_verdict_latency(stack, fair, source) for _ in range(rounds)]
            hog = stack.register("hog")
            for _ in range(sleepers):
                stack.submit(hog, "footholds", SLEEPER)
            time.sleep(1.0)  # the first sleeper holds a slot, the others wait in the queue
            loaded = [_verdict_latency(stack, fair, source) for _ in range(rounds)]
        finally:
            stack.stop()
    return {
        "verdict_idle_p50_s": round(statistics.median(idle), 3),
        "verdict_beside_6_sleepers_p50_s": round(statistics.median(loaded), 3),
        "verdict_beside_6_sleepers_max_s": round(max(loaded), 3),
        "verdict_beside_sleepers_over_idle": round(
            statistics.median(loaded) / statistics.median(idle), 2
        ),
    }


def run(
    report: Report | None = None,
    floods: dict[str, int] | None = None,
    fairness: dict[str, int] | None = None,
) -> dict[str, Any]:
    """`floods`, `fairness`: the sizes of each part (measure_floods', measure_fairness'
    arguments), the benchmark's by default."""
    numbers = {**measure_floods(**(floods or {})), **measure_fairness(**(fairness or {}))}
    return report_numbers("load", numbers, report)


if __name__ == "__main__":
    run(print_line)

"""`make bench`'s service groups (the embedded stack: SQLite and the SQLAlchemy broker) at
their smallest: a change to the API, the worker or the stack that breaks a benchmark fails
here. Nothing is held to a target."""

from __future__ import annotations

import pytest

from bench import service, service_load

# Each starts its own stack (tests/service/stack.py) and grades in the sandbox.
pytestmark = [pytest.mark.bench_smoke, pytest.mark.sandbox, pytest.mark.slow]


def test_the_service_benchmark_runs():
    lines: dict[str, str] = {}
    numbers = service.run(lines.__setitem__, submissions=1)
    assert numbers["submissions"] == 1 and numbers["throughput_per_min"] > 0, numbers
    assert {
        "service latency_p50_s",
        "service run_latency_p50_s",
        "service throughput_vs_cli",
        "service package_upload_to_checked_p50_s",
        "service service_adds_stored_p50_s",
        "service service_adds_released_p50_s",
    } <= set(lines)
    assert numbers["inprocess_grade_p50_s"] > 0, numbers
    assert numbers["package_upload_to_checked_p50_s"] > 0, numbers


def test_the_load_benchmark_runs():
    lines: dict[str, str] = {}
    numbers = service_load.run(
        lines.__setitem__,
        floods={"students": 2, "streams": 2, "flooders": 2, "samples": 2},
        fairness={"rounds": 1, "sleepers": 0},  # a sleeper holds the stack's stop ~9 s
    )
    assert numbers["streams_open"] == 4, numbers
    assert numbers["login_attempts_during_flood"] > 0, numbers  # too few for a 429 here
    assert "load verdict_beside_sleepers_over_idle" in lines

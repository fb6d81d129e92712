"""`make bench`'s chaos group at its smallest: each fault is made for real (kills, a worker
stopped past its lease, Redis and PostgreSQL restarted, a full disk) and no accepted
submission may be lost, shown an internal error, graded wrong or graded twice."""

from __future__ import annotations

import os

import pytest

from bench import chaos

# Each starts its own stack (tests/service/stack.py) and grades in the sandbox.
pytestmark = [pytest.mark.bench_smoke, pytest.mark.services, pytest.mark.sandbox, pytest.mark.slow]

SMALLEST = {
    "kill_storm": {"students": 3, "each": 2, "kills": 3},
    "stop_past_lease": {"students": 2, "lease_s": 3.0},
    "redis_restart": {"students": 2, "each": 1},
    "postgres_restart": {"students": 2, "each": 1, "down_s": 4.0},
    "full_disk": {"students": 2, "full_s": 6.0},
}


@pytest.mark.parametrize("scenario", list(chaos.SCENARIOS))
def test_a_fault_loses_nothing(scenario: str) -> None:
    lines: dict[str, str] = {}
    numbers = chaos.run(lines.__setitem__, only=[scenario], sizes=SMALLEST)[scenario]
    if "not_run" in numbers:
        # Only the full disk may not run, and only without root (it mounts a tmpfs).
        assert scenario == "full_disk" and os.geteuid() != 0, numbers
        return
    assert numbers["accepted"] > 0 and f"chaos {scenario} lost" in lines, numbers
    zeros = {key: numbers[key] for key in ("lost", "ie", "wrong", "judged_twice")}
    assert zeros == dict.fromkeys(zeros, 0), numbers
    if scenario == "stop_past_lease":
        assert numbers["taken_over"] is True, numbers  # claimed while the first was stopped
        assert numbers["stale_writes_fenced"] >= 1, numbers  # its late verdict was refused
    if "processes_alive_after" in numbers:
        assert "NO" not in numbers["processes_alive_after"], numbers
    for key in ("answers_while_down", "answers_while_full"):
        assert "500" not in numbers.get(key, ""), numbers  # refused with 503, never a crash

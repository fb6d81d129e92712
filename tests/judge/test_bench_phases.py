"""`python -m bench --only phases` at a tiny size: it runs, and what it reports holds."""

from __future__ import annotations

from bench import phases


def test_the_phase_benchmark_runs_at_a_tiny_size(sandbox):
    numbers = phases.measure(submissions=2, rounds=1)
    ratio = numbers["throughput with / without the lock"]
    assert "per min" in ratio and "x**" in ratio, numbers
    assert "runs)" in numbers["... without the lock"]


def test_the_release_steps_it_reports(sandbox):
    numbers = phases.release_steps(spins=(0.0, 0.7))
    assert numbers["hidden tier spinning 0 / 0.7 s: released after"].startswith("0.5 / 1 s")
    assert "3.0 bits" in numbers["what a student can time of a hidden tier"]

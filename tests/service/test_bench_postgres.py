"""`make bench`'s groups on PostgreSQL + Redis (burst, workers) and `python -m bench scale`, each
at its smallest: a change to the schema, the API or the stack that breaks a benchmark fails
here, not minutes into a benchmark run. Nothing is timed against a target."""

from __future__ import annotations

import pytest

from bench import burst, scale, scaling

# The benchmarks make their own databases and Redis prefixes (as the fixtures do) and grade
# in the sandbox.
pytestmark = [pytest.mark.bench_smoke, pytest.mark.services, pytest.mark.sandbox, pytest.mark.slow]


def test_the_scale_benchmark_fills_and_measures():
    lines: dict[str, str] = {}
    # The strength report is left out: its computation alone takes ~20 s (its API has its
    # own tests, tests/service/test_strength_api.py).
    sizes = scale.Sizes(samples=1, crowd=2, crowd_rounds=1, strength_seeds=0)
    scale.run(lines.__setitem__, submissions=300, sizes=sizes)
    assert lines["filled"].startswith("300 submissions, ")
    assert "instructor: history, newest first" in lines
    for gradebook in (
        "an assignment's gradebook (JSON)",
        "gradebook CSV (Canvas)",
        "the gradebook after a student's submission (by rows)",
        "the gradebook after a credit change for everyone (computed)",
    ):
        assert lines[f"instructor: {gradebook}"].startswith("p50 "), lines
    assert "20 at once" not in "".join(lines) and "2 at once, a verdict stored every 0.2 s" in lines


def test_the_fill_sets_every_column_the_models_require():
    """COPY applies no Python default: every NOT NULL column without a database default must
    be in the fill's columns (the check the fill itself makes before it starts)."""
    from store.models import TestRow

    assert scale.unfilled(TestRow, ["submission_id"], python_defaults=False)
    assert "output_cut" in scale.unfilled(TestRow, ["submission_id"], python_defaults=False)


def test_the_burst_benchmarks_run():
    lines: dict[str, str] = {}
    numbers = burst.run(lines.__setitem__, submissions=4)
    assert numbers["lost"] == 0 and numbers["ie_verdicts"] == 0, numbers
    assert numbers["other_non_ac_verdicts"] == 0, numbers
    numbers = burst.run_class(lines.__setitem__, submissions=4, students=2)
    assert numbers["lost"] == 0 and numbers["students"] == 2, numbers
    assert {"burst throughput_per_min", "burst of a class latency_p95_s"} <= set(lines)


def test_the_workers_benchmark_runs():
    lines: dict[str, str] = {}
    numbers = scaling.run(lines.__setitem__, workers=(1,), submissions=2, rounds=1)
    assert numbers["workers_1_per_min"] > 0 and numbers["cli_1_at_once_per_min"] > 0, numbers
    assert "workers workers_1_vs_cli" in lines

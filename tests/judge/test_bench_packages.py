"""`make bench`'s problem-packages group at its smallest (one grading each way, no check): a
change to the loader, the host or grade() that breaks the benchmark fails here."""

from __future__ import annotations

import pytest

from bench import packages

pytestmark = [pytest.mark.bench_smoke]


def test_the_packages_benchmark_runs(sandbox):  # the fixture: bubblewrap is required
    lines: dict[str, str] = {}
    packages.run(lambda name, value: lines.__setitem__(name, value), repeat=1, check=False)
    assert set(lines) == {
        "grade footholds accepted, problem.py imported",
        "grade footholds accepted, problem.py hosted",
        "hosted / imported",
    }
    assert lines["hosted / imported"].endswith("x (goal <= 1.1x)")
    assert float(lines["hosted / imported"].split("x")[0]) > 0

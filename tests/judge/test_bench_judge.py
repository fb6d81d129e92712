"""`make bench`'s grading-core and phase-lock groups at their smallest (one repetition, a few
boards, two gradings a round): a change to grade(), the plan, the CLI or the sandbox that
breaks a benchmark fails here. Nothing is held to a target: the figures are the bench's."""

from __future__ import annotations

import re

import pytest

from bench import judge_bench, phases

pytestmark = [pytest.mark.bench_smoke, pytest.mark.sandbox, pytest.mark.slow]


def test_the_judge_benchmark_runs(monkeypatch):
    monkeypatch.setenv("DMOJ_CLI", "/nonexistent/dmoj-cli")  # the peer is optional: skipped
    lines: dict[str, str] = {}
    judge_bench.run(lines.__setitem__, repeat=1, boards=5)
    names = "\n".join(lines)
    assert "full default plan, footholds footholds_minimax" in names
    assert "small tier, numbergame" in names
    assert lines["5 small boards as hidden cases"].startswith("graded ")
    assert "the same from the command line (5 boards, a fresh process each)" in lines
    peer = lines["DMOJ peer, the same 5 boards only"]
    assert peer.startswith("skipped: ") and "pip install dmoj" in peer
    peer = lines["DMOJ peer in C++17, the same 5 boards only"]
    assert peer.startswith("skipped: ") and "pip install dmoj" in peer
    assert "  compiling it (a source the build cache has not seen)" not in lines
    assert "where is the bug below a failing full 5x5 board (min and max swapped)" in lines
    assert (
        "none found"
        not in lines["where is the bug below a failing full 5x5 board (min and max swapped)"]
    )


def test_the_phases_benchmark_runs():
    lines: dict[str, str] = {}
    phases.run(lines.__setitem__, submissions=2, rounds=1, spins=(0.0,))
    assert "phase lock: throughput with / without the lock" in lines
    # The figure itself depends on the machine's load: its form is what is held here.
    released = lines["phase lock: hidden tier spinning 0 s: released after"]
    assert re.fullmatch(r"[0-9.]+ s \(1 distinct steps?\)", released), released

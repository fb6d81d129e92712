"""The phase lock's cost: grading throughput and a Run's latency with the lock and without it,
measured in one run, the two configurations taking turns.

Two grading processes (the worker's two slots) grade 20 correct footholds submissions of 20
students (the full default plan plus five hidden boards each, so every grading has a
hidden tier), while a third process (the run lane) runs a student's code on the samples
again and again. Without the lock the same processes run with `sandbox.phases = None`.

    from bench import phases
    numbers = phases.run(report)
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from bench.report import Report, percentile, report_numbers

SOURCE = (
    Path(__file__).parents[1] / "problems/footholds/submissions/accepted/footholds_memo.py"
).read_text()
SUBMISSIONS = 20
SLOTS = 2
HIDDEN_BOARDS = 5
ROUNDS = 2  # with, without, with, without

_sandbox: Any = None


def _start(locked: bool) -> None:
    global _sandbox
    from judge.sandbox import SandboxConfig, make_sandbox

    _sandbox = make_sandbox(SandboxConfig())
    if not locked:
        _sandbox.phases = None


def _hidden_boards(seed: int) -> list[dict[str, Any]]:
    from judge.problems import get

    footholds = get("footholds")

    rng = random.Random(seed)
    return [{"input": footholds.generate(rng, "random")} for _ in range(HIDDEN_BOARDS)]


def _ready(_: int) -> int:
    return os.getpid()


def _grade(seed: int) -> float:
    from judge.grading.grade import grade

    began = time.monotonic()
    result = grade(
        "footholds", SOURCE, hidden_cases=_hidden_boards(seed), seed=seed, sandbox=_sandbox
    )
    assert result.verdict.value == "AC", result.message
    return time.monotonic() - began


def _runs(locked: bool, stop: Any) -> list[float]:
    """A student's Runs on the samples, one after another, until `stop`: their latencies."""
    from judge.grading.runs import run_cases

    _start(locked)
    latencies = []
    while not stop.is_set():
        began = time.monotonic()
        result = run_cases("footholds", SOURCE, sandbox=_sandbox)
        assert result.status == "done", result.message
        latencies.append(time.monotonic() - began)
    return latencies


def _round(locked: bool, seed: int, submissions: int) -> dict[str, Any]:
    context = get_context("fork")
    with (
        context.Manager() as manager,
        ProcessPoolExecutor(
            SLOTS, mp_context=context, initializer=_start, initargs=(locked,)
        ) as graders,
        ProcessPoolExecutor(1, mp_context=context) as runner,
    ):
        # Each pool starts (and checks its sandbox) before the clock starts.
        list(graders.map(_ready, range(SLOTS)))
        stop = manager.Event()
        runs = runner.submit(_runs, locked, stop)
        began = time.monotonic()
        list(graders.map(_grade, range(seed, seed + submissions)))
        elapsed = time.monotonic() - began
        stop.set()
        latencies = runs.result()
    return {"per_min": submissions / elapsed * 60, "runs": latencies}


def measure(submissions: int = SUBMISSIONS, rounds: int = ROUNDS) -> dict[str, Any]:
    taken: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for turn in range(rounds):
        for locked in (True, False):
            taken[locked].append(_round(locked, 1000 * turn + 1, submissions))

    def summary(locked: bool) -> tuple[float, list[float]]:
        per_min = statistics.mean(r["per_min"] for r in taken[locked])
        return per_min, [t for r in taken[locked] for t in r["runs"]]

    with_lock, runs_locked = summary(True)
    without, runs_free = summary(False)
    return {
        "throughput with / without the lock": f"{with_lock:.1f} / {without:.1f} per min: "
        f"**{with_lock / without:.2f}x** (target >= 0.8x)",
        "a Run's latency while hidden tiers grade, p50 / p95, with the lock": (
            f"{statistics.median(runs_locked) * 1000:.0f} / "
            f"{percentile(runs_locked, 0.95) * 1000:.0f} ms ({len(runs_locked)} runs)"
        ),
        "... without the lock": (
            f"{statistics.median(runs_free) * 1000:.0f} / "
            f"{percentile(runs_free, 0.95) * 1000:.0f} ms ({len(runs_free)} runs)"
        ),
    }


SPINNER = (
    SOURCE
    + """
import time as _time
_honest = solution
SPIN_S = @SPIN@


def solution(board, aloc, bloc):
    if board == @BOARD@:  # the hidden board: spend a chosen time on it
        end = _time.monotonic() + SPIN_S
        while _time.monotonic() < end:
            pass
    return _honest(board, aloc, bloc)
"""
)
SPINS_S = (0.0, 0.2, 0.4, 0.7, 1.4, 2.8)


def release_steps(spins: tuple[float, ...] = SPINS_S) -> dict[str, Any]:
    """What a student can time of a hidden tier: gradings whose hidden tier spins for a
    chosen time, each released as the service releases it (store/release.py), from the
    start of its hidden tier in doubling steps of 0.5 s."""
    from datetime import UTC, datetime, timedelta

    from judge.grading.grade import grade
    from judge.problems import get

    footholds = get("footholds")
    from store.release import release_moment

    _start(True)
    board = footholds.generate(random.Random(7), "random")
    epoch = datetime(2026, 1, 1, tzinfo=UTC)
    seen = {}
    for spin in spins:
        source = SPINNER.replace("@SPIN@", repr(spin)).replace("@BOARD@", repr(board["board"]))
        result = grade(
            "footholds",
            source,
            hidden_cases=[{"input": board}],
            seed=1,
            random_count=0,
            sandbox=_sandbox,
            diagnose=False,
        )
        assert result.verdict.value == "AC" and result.hidden_after_ms is not None
        began = epoch + timedelta(milliseconds=result.hidden_after_ms)
        ended = epoch + timedelta(milliseconds=result.wall_ms)
        seen[spin] = (release_moment(began, ended, 0.5) - began).total_seconds()
    steps = sorted(set(seen.values()))
    budget = footholds.LIMITS.total_s
    reachable = 1 + max(math.ceil(math.log2(budget / 0.5)), 0)
    spun = " / ".join(f"{spin:g}" for spin in spins)
    released = " / ".join(f"{seen[spin]:g}" for spin in spins)
    return {
        f"hidden tier spinning {spun} s: released after": (
            f"{released} s ({len(steps)} distinct steps)"
        ),
        "what a student can time of a hidden tier": f"one of {reachable} steps in a "
        f"{budget:g} s budget: **{math.log2(reachable):.1f} bits** per judging at most",
    }


def run(
    report: Report | None = None,
    submissions: int = SUBMISSIONS,
    rounds: int = ROUNDS,
    spins: tuple[float, ...] = SPINS_S,
) -> dict[str, Any]:
    numbers = measure(submissions, rounds)
    numbers.update(release_steps(spins))
    return report_numbers("phase lock:", numbers, report)

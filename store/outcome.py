"""What a finished judging stores: the typed argument of `repo.finish`.

Built by the worker from the grader's result (or as an internal error when grading itself
failed); store/ only writes it, so it knows nothing of how a verdict is reached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JudgingOutcome:
    verdict: str
    passed: int
    total: int
    # One mapping per test, keyed like judge.verdict.TestResult.to_dict() (the same shape
    # `repo.record_test` stores for live progress).
    tests: Sequence[Mapping[str, Any]] = ()
    max_time_ms: float = 0.0
    peak_memory_kb: int = 0
    judge_version: str | None = None
    message: str = ""
    sandboxed: bool | None = None  # None: not known (an internal error before any run)
    # Seconds from the start of the hidden tier to the end of the grading (None: no hidden
    # tier ran): the release is timed from there (store/release.py).
    hidden_s: float | None = None
    # The package digest graded against (problem_versions.digest, or a built-in's).
    problem_version: str | None = None

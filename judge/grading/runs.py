"""Running code before submitting: a source run on the problem's samples or on the student's
own cases, each answer compared with the reference, what each call printed kept.

A run is not a grading: no hidden or random boards, no shrinking, no verdict for the
submission as a whole. It runs in one visible sandbox, so everything it reports may be shown.

    result = run_cases("footholds", source, [case], sandbox=make_sandbox(SandboxConfig()))
    result.to_dict()  # {"problem", "status", "message", "results": [case_json(test), ...]}
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge import problems
from judge.execution.build import BuildCache, built
from judge.execution.program import CompileError, Program, unreadable
from judge.execution.runners import Outcome, runner_for
from judge.execution.runners.base import OUTPUT_LIMIT
from judge.grading.grade import INFRASTRUCTURE_ERRORS
from judge.grading.plan import PlannedTest
from judge.grading.results import check_answer, skipped_tests, test_result
from judge.languages import resolve
from judge.problems import ProblemSpec
from judge.sandbox import Sandbox
from judge.verdict import TestKind, TestResult, Verdict

log = logging.getLogger(__name__)

MAX_CASES = 10
# A run's whole budget: a slow or looping source cannot hold the run lane for the problem's
# full grading budget (runs share one lane, and a student reruns often).
RUN_BUDGET_S = 20.0
__all__ = ["MAX_CASES", "OUTPUT_LIMIT", "RunResult", "case_json", "run_cases"]

DONE, COMPILE_ERROR, INTERNAL_ERROR = "done", "compile_error", "internal_error"


class _CallerFailed(Exception):
    """on_case raised: the caller's failure, re-raised as it was, not an internal error."""


@dataclass
class RunResult:
    problem: str
    status: str  # DONE, COMPILE_ERROR or INTERNAL_ERROR
    message: str = ""
    results: list[TestResult] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "status": self.status,
            "message": self.message,
            "results": [case_json(test) for test in self.results],
        }


def case_json(test: TestResult) -> dict[str, Any]:
    """One case of a run as the runs API shows it."""
    error = traceback = ""
    if test.verdict is Verdict.RE and test.message:
        first, _, rest = test.message.partition("\n")
        error, traceback = first, rest
    return {
        "index": test.index,
        "input": test.input,
        "answer": test.got,
        "expected": test.expected,
        "verdict": test.verdict.value,
        "message": test.message,
        "time_ms": test.time_ms,
        "wall_ms": test.wall_ms,
        "memory_kb": test.memory_kb,
        "stdout": test.stdout,
        "stderr": test.stderr,
        "output_cut": test.output_cut,
        "error": error,
        "traceback": traceback,
    }


def planned_cases(
    module: ProblemSpec, cases: Sequence[Mapping[str, Any]] | None
) -> list[PlannedTest]:
    """The samples (cases None) or the student's cases, each checked by the problem.

    Raises judge.problems.InvalidCase for a case the problem refuses, ValueError for more
    than MAX_CASES."""
    if cases is None:
        return [PlannedTest(TestKind.SAMPLE, s["input"], s["answer"]) for s in module.SAMPLES]
    if len(cases) > MAX_CASES:
        raise ValueError(f"at most {MAX_CASES} cases per run, got {len(cases)}")
    for case in cases:
        module.validate(case)
    return [PlannedTest(TestKind.CUSTOM, dict(c), module.reference(c)) for c in cases]


def run_cases(
    problem: str | ProblemSpec,
    source: str | bytes,
    cases: Sequence[Mapping[str, Any]] | None = None,
    *,
    sandbox: Sandbox,
    on_case: Callable[[TestResult], None] | None = None,
    interrupts: tuple[type[BaseException], ...] = (),
    language: str = "python",
    style: str = "function",
    build_cache: BuildCache | None = None,
) -> RunResult:
    """Run `source` on the samples (cases None) or on `cases`; `on_case` sees each result as
    it is decided. Raises like planned_cases for bad cases and one of INFRASTRUCTURE_ERRORS
    when the sandbox cannot run (nothing was decided: retry); whatever `on_case` raises, and
    the caller's `interrupts` (a task's soft time limit) as they are. After a time-out the
    remaining cases are not run (SKIPPED): each would most likely wait out its limit too.
    `language`, `style`, `build_cache` as for judge.grading.grade.grade (NotOffered, a ValueError,
    for a language or style there is not)."""
    module = problems.get(problem) if isinstance(problem, str) else problem
    plugin, chosen = resolve(module, language, style)
    plugin.version()  # LanguageUnavailable now, not an internal error later
    planned = planned_cases(module, cases)
    result = RunResult(module.SLUG, DONE)
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    why = unreadable(raw)
    if why:
        result.status, result.message = COMPILE_ERROR, why
        return result

    def report(test: TestResult) -> None:
        result.results.append(test)
        if on_case is not None:
            try:
                on_case(test)
            except Exception as exc:
                raise _CallerFailed from exc

    deadline = time.monotonic() + min(module.LIMITS.total_s, RUN_BUDGET_S)
    try:
        with built(module, plugin, chosen, raw, sandbox, build_cache, deadline) as program:
            deadline += program.build_waited_s  # the machine's time, not the submission's
            _run_all(module, program, sandbox, planned, deadline, report)
    except CompileError as exc:
        result.status, result.message, result.results = COMPILE_ERROR, str(exc), []
    except _CallerFailed as exc:
        raise (exc.__cause__ or exc) from None
    except INFRASTRUCTURE_ERRORS:
        raise
    except interrupts:
        raise
    except Exception as exc:
        log.exception("running a %s source failed", module.SLUG)
        result.status, result.message = INTERNAL_ERROR, f"internal error: {type(exc).__name__}"
    return result


def _run_all(
    module: ProblemSpec,
    program: Program,
    sandbox: Sandbox,
    planned: list[PlannedTest],
    deadline: float,
    report: Callable[[TestResult], None],
) -> None:
    """Every case in one visible sandbox, each result reported as it is decided."""

    done: set[int] = set()

    def judge_case(index: int, outcome: Outcome) -> bool:
        test = planned[index]
        check_answer(module, test.case, test.expected, outcome)
        report(test_result(index, test, outcome))
        done.add(index)
        return not outcome.ends_the_rest

    runner = runner_for(
        module, program, sandbox, module.LIMITS.time_s, deadline, capture_output=True
    )
    runner.run([t.case for t in planned], judge_case)
    for skipped in skipped_tests([t.kind for t in planned], done):
        report(skipped)

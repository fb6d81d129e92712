"""Grading: plan tests -> run them in the sandbox -> check answers -> verdict; shrink failures.

    result = grade("footholds", source, hidden_cases=[{"input": case, "answer": 5}], seed=7)

All tests of a submission run in one sandboxed process; a test that times out or kills that
process gets its verdict and grading resumes in a fresh sandbox at the next test. Expected
answers never enter the sandbox: the harness reports answers, the verdict is decided here.
"""

from __future__ import annotations

import json
import logging
import math
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import islice
from types import ModuleType
from typing import Any

import judge
from judge import answers, problems
from judge.sandbox import Process, RunLimits, Sandbox, SandboxUnavailable, make_sandbox
from judge.verdict import (
    Counterexample,
    GradeResult,
    TestKind,
    TestResult,
    Verdict,
    overall_verdict,
)

log = logging.getLogger(__name__)

# The machinery failed, not the submission: no verdict, worth another attempt.
INFRASTRUCTURE_ERRORS = (SandboxUnavailable, OSError)

STARTUP_S = 5.0  # allowance for starting Python and loading the solution, beyond the test limit
SHRINK_BUDGET_S = 6.0  # wall time spent minimising one counterexample
SHRINK_ROUNDS = 30
SHRINK_CANDIDATES = 40  # candidates tried per round, in one sandboxed run


@dataclass
class PlannedTest:
    kind: TestKind
    input: dict[str, Any]
    expected: Any
    profile: str | None = None
    ref: Any = None  # the caller's id for a hidden board


@cache  # read once per process, not once per sandboxed run
def harness_source() -> bytes:
    return resources.files(judge).joinpath("harness.py").read_bytes()


# -- planning --------------------------------------------------------------------------------
def allocate(weights: Mapping[str, float], count: int) -> list[str]:
    """`count` profile names in proportion to `weights` (largest remainder, deterministic)."""
    total = sum(weights.values())
    shares = {name: count * w / total for name, w in weights.items()}
    counts = {name: math.floor(s) for name, s in shares.items()}
    by_remainder = sorted(shares, key=lambda n: (counts[n] - shares[n], n))
    for name in by_remainder[: count - sum(counts.values())]:
        counts[name] += 1
    return [name for name in weights for _ in range(counts[name])]


def plan_tests(
    problem: ModuleType,
    hidden_cases: Iterable[Mapping[str, Any]] = (),
    seed: int = 0,
    random_count: int | None = None,
    solve: bool = True,
) -> list[PlannedTest]:
    """Samples, then hidden boards, then random boards drawn from `seed`.

    With solve=False, answers not already known are left None, to be computed later.
    """
    tests = [PlannedTest(TestKind.SAMPLE, s["input"], s["answer"]) for s in problem.SAMPLES]
    for hidden in hidden_cases:
        case = hidden["input"]
        problem.validate(case)
        expected = hidden.get("answer")
        if expected is None and solve:
            expected = problem.reference(case)
        tests.append(PlannedTest(TestKind.HIDDEN, case, expected, ref=hidden.get("id")))
    count = problem.RANDOM_COUNT if random_count is None else random_count
    rng = random.Random(seed)
    for profile in allocate(problem.PROFILES, count):
        case = problem.generate(rng, profile)
        expected = problem.reference(case) if solve else None
        tests.append(PlannedTest(TestKind.RANDOM, case, expected, profile))
    return tests


# -- running -----------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What happened to one test, before it is dressed as a TestResult."""

    verdict: Verdict
    message: str = ""
    got: Any = None
    cpu_s: float = 0.0
    wall_s: float = 0.0
    rss_kb: int = 0
    fatal: bool = False  # the process is gone or spent: resume in a fresh one


class CompileError(Exception):
    pass


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def parse_report(line: bytes) -> dict[str, Any]:
    """Strict parse of one harness line; anything odd counts against the submission."""
    try:
        report = json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise answers.MalformedReport(f"unparseable report: {exc}") from None
    if not isinstance(report, dict) or not isinstance(report.get("event"), str):
        raise answers.MalformedReport("report is not an event object")
    return report


def _number(report: Mapping[str, Any], key: str) -> float:
    value = report.get(key)
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise answers.MalformedReport(f"report field {key!r} is not a sane number")
    return float(value)


class Runner:
    """Runs one source on a list of cases, resuming in a fresh sandbox after a fatal test."""

    def __init__(
        self, problem: ModuleType, source: bytes, sandbox: Sandbox, time_s: float, deadline: float
    ) -> None:
        self.problem = problem
        self.source = source
        self.sandbox = sandbox
        self.time_s = time_s
        self.deadline = deadline  # time.monotonic() at which the whole budget ends
        self.notes: list[str] = []
        self.peak_memory_kb = 0

    def run(self, cases: Sequence[dict[str, Any]], judge_one: Callable[[int, Outcome], bool]):
        """Run every case; `judge_one(index, outcome)` returns False to stop early.

        Raises CompileError when the source does not compile or has no callable solution.
        """
        spec = json.dumps({"params": list(self.problem.PARAMS), "tests": list(cases)}).encode()
        files = {"harness.py": harness_source(), "solution.py": self.source, "tests.json": spec}
        start = 0
        while start < len(cases):
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                for index in range(start, len(cases)):
                    first = index == start
                    verdict = Verdict.TLE if first else Verdict.SKIPPED
                    message = (
                        "the submission's total time budget ran out"
                        if first
                        else ("not run: the total time budget ran out")
                    )
                    if not judge_one(index, Outcome(verdict, message)):
                        break
                return
            start = self._run_from(files, len(cases), start, remaining, judge_one)

    def _run_from(self, files, count, start, remaining, judge_one) -> int:
        """One sandboxed process from test `start`; returns where the next one resumes."""
        limits = RunLimits(
            cpu_s=remaining,
            wall_s=remaining + 1.0,
            memory_bytes=self.problem.LIMITS.memory_mb << 20,
        )
        proc = self.sandbox.run_python(
            files, "harness.py", ["--results-fd", "{results_fd}", "--start", str(start)], limits
        )
        with proc:
            try:
                ready = self._read(proc, min(STARTUP_S + self.time_s, remaining))
            except TimeoutError:
                proc.kill()
                return self._fail_rest(
                    start,
                    count,
                    Outcome(Verdict.TLE, "solution.py did not finish loading in time"),
                    judge_one,
                )
            if ready is None:
                outcome = self._died(proc, 0.0)
                outcome.message = "the process died while loading solution.py: " + outcome.message
                return self._fail_rest(start, count, outcome, judge_one)
            event = ready.get("event")
            if event == "compile_error":
                raise CompileError(str(ready.get("message", "compile error"))[:2000])
            if event == "load_error":
                return self._fail_rest(
                    start,
                    count,
                    Outcome(
                        Verdict.RE,
                        "solution.py raised an exception while loading: " + _error_text(ready),
                    ),
                    judge_one,
                )
            if event != "ready":
                return self._fail_rest(
                    start,
                    count,
                    Outcome(Verdict.RE, "the process wrote an unexpected report"),
                    judge_one,
                )
            for index in range(start, count):
                outcome = self._one(proc, index)
                keep_going = judge_one(index, outcome)
                if not keep_going:
                    return count
                if outcome.fatal:
                    return index + 1
        return count

    def _read(self, proc: Process, timeout: float) -> dict[str, Any] | None:
        line = proc.read_result(timeout=timeout)
        return None if line is None else parse_report(line)

    def _one(self, proc: Process, index: int) -> Outcome:
        began = time.monotonic()
        timeout = min(self.time_s * 1.2 + 0.5, max(self.deadline - began, 0.0))
        try:
            report = self._read(proc, timeout)
        except TimeoutError:
            proc.kill()
            wall = time.monotonic() - began
            return Outcome(
                Verdict.TLE, f"no answer within {self.time_s:g} s", wall_s=wall, fatal=True
            )
        except answers.MalformedReport as exc:
            proc.kill()
            return Outcome(Verdict.RE, f"the process wrote a malformed report ({exc})", fatal=True)
        wall = time.monotonic() - began
        if report is None:
            return self._died(proc, wall)
        try:
            if report.get("i") != index or report["event"] not in ("result", "error"):
                raise answers.MalformedReport("report out of sequence")
            cpu = min(_number(report, "cpu"), wall)  # never trust a claim above the outside
            rss_kb = int(_number(report, "rss_kb"))
            self.peak_memory_kb = max(self.peak_memory_kb, rss_kb)
            if report["event"] == "error":
                if report.get("error") == "MemoryError":
                    return Outcome(
                        Verdict.MLE,
                        "memory limit exceeded (MemoryError)",
                        cpu_s=cpu,
                        wall_s=wall,
                        rss_kb=rss_kb,
                        fatal=True,
                    )
                return Outcome(
                    Verdict.RE, _error_text(report), cpu_s=cpu, wall_s=wall, rss_kb=rss_kb
                )
            got = answers.decode(report["answer"])
        except (answers.MalformedReport, KeyError, TypeError) as exc:
            proc.kill()
            return Outcome(
                Verdict.RE, f"the process wrote a malformed report ({exc})", wall_s=wall, fatal=True
            )
        if cpu > self.time_s:
            return Outcome(
                Verdict.TLE,
                f"took {cpu:.2f} s of CPU, the limit is {self.time_s:g} s",
                got=got,
                cpu_s=cpu,
                wall_s=wall,
                rss_kb=rss_kb,
            )
        return Outcome(Verdict.AC, "", got=got, cpu_s=cpu, wall_s=wall, rss_kb=rss_kb)

    def _died(self, proc: Process, wall: float) -> Outcome:
        """The process ended or was killed before reporting: find out why."""
        result = proc.finish(grace=0.5)
        self.notes.extend(n for n in result.notes if n not in self.notes)
        self.peak_memory_kb = max(self.peak_memory_kb, result.peak_memory_bytes // 1024)
        outcome = Outcome(Verdict.RE, wall_s=wall, fatal=True)
        if result.limit == "memory":
            outcome.verdict, outcome.message = Verdict.MLE, "memory limit exceeded"
        elif result.limit in ("output", "results"):
            outcome.verdict, outcome.message = Verdict.OLE, "output limit exceeded"
        elif result.limit in ("cpu", "wall"):
            outcome.verdict, outcome.message = Verdict.TLE, "time limit exceeded"
        elif result.signal is not None:
            outcome.message = f"the process was killed by signal {result.signal}"
        else:
            outcome.message = f"the process exited with code {result.exit_code}"
        return outcome

    def _fail_rest(self, start, count, outcome: Outcome, judge_one) -> int:
        for index in range(start, count):
            if not judge_one(index, Outcome(outcome.verdict, outcome.message)):
                break
        return count


def _error_text(report: Mapping[str, Any]) -> str:
    error = str(report.get("error", "Exception"))[:200]
    message = str(report.get("message", ""))[:1000]
    trace = str(report.get("traceback", ""))[:4000]
    return f"{error}: {message}" + (f"\n{trace}" if trace else "")


# -- grading -----------------------------------------------------------------------------------
def grade(
    problem: str | ModuleType,
    source: str | bytes,
    *,
    hidden_cases: Iterable[Mapping[str, Any]] = (),
    seed: int | None = None,
    random_count: int | None = None,
    sandbox: Sandbox | None = None,
    on_test: Callable[[TestResult], None] | None = None,
) -> GradeResult:
    """Grade one submission; never raises for anything the submission does.

    Raises one of INFRASTRUCTURE_ERRORS when the sandbox itself cannot run (no free slot,
    bubblewrap failing, out of processes): nothing was decided, so the caller may retry.
    Any other failure of the judge becomes an IE verdict.
    """
    started = time.monotonic()
    module = problems.get(problem) if isinstance(problem, str) else problem
    seed = secrets.randbelow(2**31) if seed is None else seed
    sandbox = sandbox or make_sandbox()
    result = GradeResult(
        problem=module.SLUG,
        verdict=Verdict.IE,
        passed=0,
        total=0,
        tests=[],
        seed=seed,
        judge_version=judge.__version__,
        sandboxed=sandbox.sandboxed,
        sandbox_notes=list(sandbox.notes),
    )
    if not sandbox.sandboxed:
        result.message = "UNSANDBOXED (JUDGE_SANDBOX=none): development use only. "
    try:
        planned = plan_tests(module, hidden_cases, seed, random_count, solve=False)
    except Exception as exc:  # a bad stored board or a failing reference: the judge's fault
        log.exception("planning tests for %s failed", module.SLUG)
        result.message += f"internal error while planning tests: {exc}"
        return _finish(result, started)
    result.total = len(planned)

    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    why = unreadable(raw)
    if why:
        result.verdict, result.message = Verdict.CE, result.message + why
        return _finish(result, started)

    runner = Runner(module, raw, sandbox, module.LIMITS.time_s, started + module.LIMITS.total_s)
    # Reference answers are solved in plan order on a thread of their own, overlapping the
    # sandbox's start and the submission's run on the other core.
    solver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reference")
    try:
        expected = [
            None if t.expected is not None else solver.submit(module.reference, t.input)
            for t in planned
        ]
        _run_planned(module, runner, planned, expected, result, on_test)
    except CompileError as exc:
        result.verdict, result.message = Verdict.CE, result.message + str(exc)
        result.tests = []
    except INFRASTRUCTURE_ERRORS:
        raise  # the sandbox could not run at all: the caller retries or reports it
    except Exception as exc:
        log.exception("grading a %s submission failed", module.SLUG)
        result.verdict = Verdict.IE
        result.message += f"internal error: {type(exc).__name__}: {exc}"
    finally:
        solver.shutdown(wait=False, cancel_futures=True)
    return _finish(result, started, runner)


def _run_planned(
    module: ModuleType,
    runner: Runner,
    planned: list[PlannedTest],
    expected: list[Future | None],
    result: GradeResult,
    on_test: Callable[[TestResult], None] | None,
) -> None:
    def record(test: TestResult) -> None:
        result.tests.append(test)
        if on_test is not None:
            on_test(test)

    def judge_one(index: int, outcome: Outcome) -> bool:
        test = planned[index]
        if expected[index] is not None:
            test.expected = expected[index].result()
        if outcome.verdict is Verdict.AC:
            ok, message = module.check(test.input, test.expected, outcome.got)
            if not ok:
                outcome.verdict, outcome.message = Verdict.WA, message
        record(_test_result(index, test, outcome))
        # After a time-out the rest would most likely time out too, each costing the full
        # limit: skip them, as judges do, so one slow submission cannot hog a grading slot.
        return not (outcome.verdict is Verdict.TLE and outcome.fatal)

    runner.run([t.input for t in planned], judge_one)
    for index in range(len(result.tests), len(planned)):
        message = "not run after a time limit exceeded"
        record(TestResult(index, planned[index].kind, Verdict.SKIPPED, message=message))

    result.passed = sum(t.verdict is Verdict.AC for t in result.tests)
    result.verdict = overall_verdict(result.tests)
    failing = next((t for t in result.tests if t.verdict is not Verdict.AC), None)
    if failing and failing.kind is TestKind.RANDOM and failing.verdict in (Verdict.WA, Verdict.RE):
        try:
            failing.counterexample = shrink(
                module,
                runner.source,
                runner.sandbox,
                planned[failing.index],
                failing,
                runner.time_s,
            )
        except Exception:
            log.exception("shrinking a counterexample failed")  # the verdict stands without it


def unreadable(raw: bytes) -> str:
    """Why a source cannot even be handed to Python, or '' when it can."""
    if b"\0" in raw:
        return "source contains a NUL byte"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"source is not valid UTF-8 (byte {exc.start})"
    return ""


def _test_result(index: int, test: PlannedTest, outcome: Outcome) -> TestResult:
    visible = test.kind.visible
    message = outcome.message
    if not visible and outcome.verdict is not Verdict.AC:
        # Anything the submission wrote (exception text, its answer) could carry hidden data.
        message = outcome.verdict.description + " on a hidden test"
    return TestResult(
        index=index,
        kind=test.kind,
        verdict=outcome.verdict,
        time_ms=round(outcome.cpu_s * 1000, 3),
        wall_ms=round(outcome.wall_s * 1000, 3),
        memory_kb=outcome.rss_kb,
        message=message,
        profile=test.profile,
        input=test.input if visible else None,
        expected=test.expected if visible else None,
        got=answers.to_json(outcome.got) if visible else None,
        board_id=None if visible else test.ref,
    )


def _finish(result: GradeResult, started: float, runner: Runner | None = None) -> GradeResult:
    if runner is not None:
        result.sandbox_notes += [n for n in runner.notes if n not in result.sandbox_notes]
        result.peak_memory_kb = max([runner.peak_memory_kb, *(t.memory_kb for t in result.tests)])
    result.max_time_ms = max((t.time_ms for t in result.tests), default=0.0)
    result.wall_ms = round((time.monotonic() - started) * 1000, 3)
    return result


# -- counterexamples --------------------------------------------------------------------------
def shrink(
    module: ModuleType,
    source: bytes,
    sandbox: Sandbox,
    test: PlannedTest,
    failing: TestResult,
    time_s: float,
) -> Counterexample:
    """Greedily replace the failing case by a smaller one the submission still fails."""
    case, expected = test.input, test.expected
    verdict, message, got = failing.verdict, failing.message, failing.got
    deadline = time.monotonic() + SHRINK_BUDGET_S
    for _ in range(SHRINK_ROUNDS):
        if time.monotonic() >= deadline:
            break
        candidates = list(islice(module.shrink(case), SHRINK_CANDIDATES))
        if not candidates:
            break
        found: list[tuple[int, Outcome]] = []
        expected_of = [module.reference(c) for c in candidates]

        def judge_candidate(
            index: int,
            outcome: Outcome,
            expected_of=expected_of,
            candidates=candidates,
            found=found,
        ) -> bool:
            if outcome.verdict is Verdict.AC:
                ok, text = module.check(candidates[index], expected_of[index], outcome.got)
                if ok:
                    return True
                outcome.verdict, outcome.message = Verdict.WA, text
            if outcome.verdict in (Verdict.WA, Verdict.RE):
                found.append((index, outcome))
                return False
            return True  # slower or odder on a smaller case: not a cleaner counterexample

        runner = Runner(module, source, sandbox, min(time_s, 2.0), deadline)
        runner.run(candidates, judge_candidate)
        if not found:
            break
        index, outcome = found[0]
        case, expected = candidates[index], expected_of[index]
        verdict, message = outcome.verdict, outcome.message
        got = answers.to_json(outcome.got)
    return Counterexample(
        input=case,
        expected=expected,
        got=got,
        verdict=verdict,
        message=message,
        explanation=module.explain(case),
    )

"""Grading: plan tests -> run them in the sandbox -> check answers -> verdict; shrink failures.

    result = grade("footholds", source, hidden_cases=[{"input": case, "answer": 5}], seed=7)

Visible tests (samples, every small position, the worst cases, random boards) run in one
sandboxed process and hidden boards in another, so nothing a student sees comes from a process
that held a hidden input. A test that times out or kills its process gets its verdict and
grading resumes in a fresh sandbox at the next test. Expected answers never enter the sandbox:
the harness reports answers, the verdict is decided here, and every figure or text it reports
is validated, bounded and sanitised.
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
from typing import Any

import judge
from judge import answers, problems
from judge.problems import Problem
from judge.sandbox import (
    OverlongLine,
    Process,
    RunLimits,
    Sandbox,
    SandboxUnavailable,
    make_sandbox,
)
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
    input: dict[str, Any] | None  # None for the small tier until a position fails
    expected: Any  # the small tier: the list of every position's answer
    profile: str | None = None
    ref: Any = None  # the caller's id for a hidden board
    positions: list[dict[str, Any]] | None = None  # the small tier: every position, in order

    @property
    def case(self) -> dict[str, Any]:
        """The input of a test of any tier but the small one (which has many)."""
        if self.input is None:
            raise ValueError(f"a {self.kind} test has no single input")
        return self.input

    @property
    def small_positions(self) -> list[dict[str, Any]]:
        """Every position of the small tier's test."""
        if self.positions is None:
            raise ValueError(f"a {self.kind} test has no positions")
        return self.positions


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


# The small tier is the same for every submission: enumerated and solved once per process.
# Callers only read these lists.
@cache
def small_positions(problem: Problem) -> list[dict[str, Any]]:
    """Every small position the problem declares, smallest first (none without small_cases)."""
    return problem.small_cases() if hasattr(problem, "small_cases") else []


@cache
def small_answers(problem: Problem) -> list[Any]:
    return [problem.reference(case) for case in small_positions(problem)]


def plan_size(problem: Problem, hidden_count: int = 0, random_count: int | None = None) -> int:
    """How many tests `plan_tests` plans (the small tier is one test)."""
    count = problem.RANDOM_COUNT if random_count is None else random_count
    small = 1 if small_positions(problem) else 0
    worst = len(getattr(problem, "WORST_CASES", ()))
    return len(problem.SAMPLES) + small + worst + count + hidden_count


def plan_tests(
    problem: Problem,
    hidden_cases: Iterable[Mapping[str, Any]] = (),
    seed: int = 0,
    random_count: int | None = None,
    solve: bool = True,
) -> list[PlannedTest]:
    """Samples, every small position (one test), the worst cases, random boards drawn from
    `seed`, then hidden boards.

    The small tier comes first after the samples: a failure there is the smallest
    counterexample there is. Hidden boards come last: visible and hidden tests run in
    separate sandboxes (see `grade`), each tier in one contiguous run, and a student's first
    failure is a visible one, with its input and a counterexample, whenever there is one.
    With solve=False, answers not already known are left None, to be computed later.
    """
    tests = [PlannedTest(TestKind.SAMPLE, s["input"], s["answer"]) for s in problem.SAMPLES]
    if small_positions(problem):
        expected = small_answers(problem) if solve else None
        tests.append(
            PlannedTest(TestKind.SMALL, None, expected, positions=small_positions(problem))
        )
    for case in getattr(problem, "WORST_CASES", ()):
        tests.append(PlannedTest(TestKind.WORST, case, problem.reference(case) if solve else None))
    count = problem.RANDOM_COUNT if random_count is None else random_count
    rng = random.Random(seed)
    for profile in allocate(problem.PROFILES, count):
        case = problem.generate(rng, profile)
        expected = problem.reference(case) if solve else None
        tests.append(PlannedTest(TestKind.RANDOM, case, expected, profile))
    for hidden in hidden_cases:
        case = hidden["input"]
        problem.validate(case)
        expected = hidden.get("answer")
        if expected is None and solve:
            expected = problem.reference(case)
        tests.append(PlannedTest(TestKind.HIDDEN, case, expected, ref=hidden.get("id")))
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


class _ProgressFailed(Exception):
    """The caller's on_test raised (a database write, say): neither the judge's failure nor
    the submission's, so grade() re-raises the original instead of making it a verdict."""


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


MAX_REPORTED = 1e12  # larger "seconds" or "KiB" than any real run: a forged report


def _number(report: Mapping[str, Any], key: str) -> float:
    """A time or memory figure the harness claims: finite, >= 0 and of sane size, or RE."""
    value: Any = report.get(key)
    if type(value) is int:
        ok = 0 <= value <= MAX_REPORTED  # compared as ints: float(10**400) would overflow
    else:
        ok = type(value) is float and math.isfinite(value) and 0 <= value <= MAX_REPORTED
    if not ok:
        raise answers.MalformedReport(f"report field {key!r} is not a sane number")
    return float(value)


class Runner:
    """Runs one source on a list of cases, resuming in a fresh sandbox after a fatal test.

    `compile_checked`: an earlier process already compiled and loaded this source, so a
    compile error reported now is a lie (a submission choosing its own error text), not CE.
    """

    def __init__(
        self,
        problem: Problem,
        source: bytes,
        sandbox: Sandbox,
        time_s: float,
        deadline: float,
        compile_checked: bool = False,
    ) -> None:
        self.problem = problem
        self.source = source
        self.sandbox = sandbox
        self.time_s = time_s
        self.deadline = deadline  # time.monotonic() at which the whole budget ends
        self.compile_checked = compile_checked
        self.notes: list[str] = []
        self.peak_memory_kb = 0
        self.memory_limit_kb = problem.LIMITS.memory_mb << 10
        self._cpu_mark = 0.0  # whole-tree CPU of the current process at its last report

    def run(
        self,
        cases: Sequence[dict[str, Any]],
        judge_one: Callable[[int, Outcome], bool],
        resume: Callable[[int], int] | None = None,
    ):
        """Run every case; `judge_one(index, outcome)` returns False to stop early. After a
        fatal test, the next process starts at `resume(next index)` (default: the next one).

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
            if resume is not None:
                start = resume(start)

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
        # Loading the module counts against the first test of each process: work moved to
        # import time (precomputing every answer) is still work done for the tests.
        self._cpu_mark = 0.0
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
            except answers.MalformedReport as exc:
                proc.kill()
                outcome = Outcome(Verdict.RE, f"the process wrote a malformed report ({exc})")
                return self._fail_rest(start, count, outcome, judge_one)
            if ready is None:
                outcome = self._died(proc, 0.0)
                outcome.message = "the process died while loading solution.py: " + outcome.message
                return self._fail_rest(start, count, outcome, judge_one)
            event = ready.get("event")
            if event == "compile_error" and not self.compile_checked:
                raise CompileError(answers.clean_text(ready.get("message"), 2000))
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
            self.compile_checked = True
            for index in range(start, count):
                outcome = self._one(proc, index)
                keep_going = judge_one(index, outcome)
                if not keep_going:
                    return count
                if outcome.fatal:
                    return index + 1
        return count

    def _read(self, proc: Process, timeout: float) -> dict[str, Any] | None:
        try:
            line = proc.read_result(timeout=timeout)
        except OverlongLine as exc:
            raise answers.MalformedReport(str(exc)) from None
        return None if line is None else parse_report(line)

    def _tree_cpu(self, proc: Process, claimed: float, wall: float) -> float:
        """CPU of this test: the whole process tree's usage since the last report, measured
        outside; where that cannot be measured, the harness's claim, never above the wall."""
        now = proc.cpu_seconds()
        if now is None:
            return min(claimed, wall)
        used, self._cpu_mark = max(now - self._cpu_mark, 0.0), now
        return used

    def _one(self, proc: Process, index: int) -> Outcome:
        began = time.monotonic()
        timeout = min(self.time_s * 1.2 + 0.5, max(self.deadline - began, 0.0))
        try:
            report = self._read(proc, timeout)
        except TimeoutError:
            wall = time.monotonic() - began
            cpu = self._tree_cpu(proc, 0.0, wall)  # what it used before the kill, not zero
            proc.kill()
            return Outcome(
                Verdict.TLE,
                f"no answer within {self.time_s:g} s",
                cpu_s=cpu,
                wall_s=wall,
                fatal=True,
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
            _number(report, "wall")  # unused (measured outside), but a forged one is malformed
            cpu = self._tree_cpu(proc, _number(report, "cpu"), wall)
            # Only a display figure (the cgroup enforces the limit): bounded by the limit.
            rss_kb = min(int(_number(report, "rss_kb")), self.memory_limit_kb)
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
        cpu = self._tree_cpu(proc, 0.0, wall)
        result = proc.finish(grace=0.5)
        self.notes.extend(n for n in result.notes if n not in self.notes)
        self.peak_memory_kb = max(self.peak_memory_kb, result.peak_memory_bytes // 1024)
        outcome = Outcome(Verdict.RE, cpu_s=cpu, wall_s=wall, fatal=True)
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
    error = answers.clean_text(report.get("error", "Exception"), 200)
    message = answers.clean_text(report.get("message", ""), 1000)
    trace = answers.clean_text(report.get("traceback", ""), 4000)
    return f"{error}: {message}" + (f"\n{trace}" if trace else "")


# -- grading -----------------------------------------------------------------------------------
MAX_SOURCE_BYTES = 64 * 1024


def grade(
    problem: str | Problem,
    source: str | bytes,
    *,
    hidden_cases: Iterable[Mapping[str, Any]] = (),
    seed: int | None = None,
    random_count: int | None = None,
    sandbox: Sandbox | None = None,
    on_test: Callable[[TestResult], None] | None = None,
    max_source_bytes: int = MAX_SOURCE_BYTES,
) -> GradeResult:
    """Grade one submission; never raises for anything the submission does.

    Visible tests (samples, small positions, worst cases, random boards) and hidden boards run
    in separate sandboxes: the process whose messages, answers and timings a student sees
    never holds a hidden input.
    Raises one of INFRASTRUCTURE_ERRORS when the sandbox itself cannot run (no free slot,
    bubblewrap failing, out of processes): nothing was decided, so the caller may retry; and
    whatever `on_test` raises, as it is.
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
    why = unreadable(raw, max_source_bytes)
    if why:
        result.verdict, result.message = Verdict.CE, result.message + why
        return _finish(result, started)

    deadline = started + module.LIMITS.total_s
    runners = []
    # Reference answers are solved in plan order on a thread of their own, overlapping the
    # sandbox's start and the submission's run on the other core.
    solver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reference")
    try:
        expected = [
            None
            if t.expected is not None
            else solver.submit(small_answers, module)
            if t.kind is TestKind.SMALL
            else solver.submit(module.reference, t.case)
            for t in planned
        ]
        runners = _run_planned(module, raw, sandbox, deadline, planned, expected, result, on_test)
    except CompileError as exc:
        result.verdict, result.message = Verdict.CE, result.message + str(exc)
        result.tests = []
    except _ProgressFailed as exc:
        raise (exc.__cause__ or exc) from None  # _report always sets the cause
    except INFRASTRUCTURE_ERRORS:
        raise  # the sandbox could not run at all: the caller retries or reports it
    except Exception as exc:
        log.exception("grading a %s submission failed", module.SLUG)
        result.verdict = Verdict.IE
        result.message += f"internal error: {type(exc).__name__}: {exc}"
    finally:
        solver.shutdown(wait=False, cancel_futures=True)
    return _finish(result, started, runners)


@dataclass
class _SmallGroup:
    """The small tier's positions folded into one test: all passed, or the first failure."""

    index: int  # the test's place in the plan
    first: int  # where its positions start among the tier's cases
    count: int
    tried: int = 0
    cpu_s: float = 0.0  # the slowest position's (the limit is per position)
    wall_s: float = 0.0  # all positions'
    rss_kb: int = 0
    done: bool = False


def _run_planned(
    module: Problem,
    source: bytes,
    sandbox: Sandbox,
    deadline: float,
    planned: list[PlannedTest],
    expected: list[Future | None],
    result: GradeResult,
    on_test: Callable[[TestResult], None] | None,
) -> list[Runner]:
    """Run the visible tier, then the hidden tier, each in sandboxes of its own; returns the
    visible tier's runner (the only one whose figures a student may see) first."""
    stopped = False

    def answer_of(index: int) -> Any:
        test = planned[index]
        pending = expected[index]
        if pending is not None:
            test.expected, expected[index] = pending.result(), None
        return test.expected

    def finish_test(test_result: TestResult, outcome: Outcome) -> bool:
        nonlocal stopped
        result.tests.append(test_result)
        _report(on_test, test_result)
        # After a time-out the rest would most likely time out too, each costing the full
        # limit: skip them, as judges do, so one slow submission cannot hog a grading slot.
        stopped = outcome.verdict is Verdict.TLE and outcome.fatal
        return not stopped

    def judge_test(index: int, outcome: Outcome) -> bool:
        test = planned[index]
        want = answer_of(index)
        if outcome.verdict is Verdict.AC:
            ok, message = module.check(test.case, want, outcome.got)
            if not ok:
                outcome.verdict, outcome.message = Verdict.WA, message
        return finish_test(_test_result(index, test, outcome), outcome)

    def judge_position(group: _SmallGroup, number: int, outcome: Outcome) -> bool:
        if group.done:  # the positions after the first failure do not count
            return True
        test = planned[group.index]
        position, want = test.small_positions[number], answer_of(group.index)[number]
        if outcome.verdict is Verdict.AC:
            ok, message = module.check(position, want, outcome.got)
            if not ok:
                outcome.verdict, outcome.message = Verdict.WA, message
        group.tried += 1
        group.cpu_s = max(group.cpu_s, outcome.cpu_s)
        group.wall_s += outcome.wall_s
        group.rss_kb = max(group.rss_kb, outcome.rss_kb)
        if outcome.verdict is Verdict.AC and group.tried < group.count:
            return True
        group.done = True
        return finish_test(_small_result(module, group, test, want, outcome), outcome)

    time_s = module.LIMITS.time_s
    runners = []
    for hidden_tier in (False, True):
        tier = [i for i, t in enumerate(planned) if t.kind.visible is not hidden_tier]
        # One case per test, and one per position of the small tier.
        cases: list[dict[str, Any]] = []
        owners: list[tuple[int, _SmallGroup | None, int]] = []
        for i in tier:
            positions = planned[i].positions
            if positions is None:
                cases.append(planned[i].case)
                owners.append((i, None, 0))
            else:
                group = _SmallGroup(i, len(cases), len(positions))
                cases.extend(positions)
                owners.extend((i, group, number) for number in range(len(positions)))

        def judge_one(k: int, outcome: Outcome, owners=owners) -> bool:
            index, group, number = owners[k]
            if group is None:
                return judge_test(index, outcome)
            return judge_position(group, number, outcome)

        def resume(k: int, owners=owners) -> int:
            """After a process died on a small position that failed, go on past the tier's
            positions (a fresh sandbox for each of them would cost a start each)."""
            group = owners[k][1] if k < len(owners) else None
            return group.first + group.count if group is not None and group.done else k

        if not stopped and cases:
            # The hidden tier's source was compiled by the visible tier's first process.
            runner = Runner(module, source, sandbox, time_s, deadline, compile_checked=hidden_tier)
            runners.append(runner)
            runner.run(cases, judge_one, resume)
        if not hidden_tier:
            # Before any process holds a hidden input: nothing a student reads may come from a
            # run after one did (it could have left a trace a later run picks up).
            _shrink_first_failure(module, source, sandbox, planned, result, time_s)

    done = {t.index for t in result.tests}
    for index in range(len(planned)):
        if index not in done:
            message = "not run after a time limit exceeded"
            skipped = TestResult(index, planned[index].kind, Verdict.SKIPPED, message=message)
            result.tests.append(skipped)
            _report(on_test, skipped)
    result.tests.sort(key=lambda t: t.index)

    result.passed = sum(t.verdict is Verdict.AC for t in result.tests)
    result.verdict = overall_verdict(result.tests)
    return runners


def _small_result(
    module: Problem, group: _SmallGroup, test: PlannedTest, want: Any, outcome: Outcome
) -> TestResult:
    """The small tier as one test: how many positions were tried and, when one failed, that
    position (the smallest counterexample there is) with its optimal line."""
    test_result = TestResult(
        index=group.index,
        kind=TestKind.SMALL,
        verdict=outcome.verdict,
        time_ms=round(group.cpu_s * 1000, 3),
        wall_ms=round(group.wall_s * 1000, 3),
        memory_kb=group.rss_kb,
        message=f"all {group.count} small positions passed",
        positions=group.tried,
    )
    if outcome.verdict is Verdict.AC:
        return test_result
    position = test.small_positions[group.tried - 1]
    test_result.message = f"small position {group.tried} of {group.count} failed: {outcome.message}"
    test_result.input, test_result.expected = position, want
    test_result.got = answers.to_json(outcome.got)
    if outcome.verdict in (Verdict.WA, Verdict.RE):
        try:
            explanation = module.explain(position)
        except Exception:
            log.exception("explaining a small position failed")
        else:
            test_result.counterexample = Counterexample(
                input=position,
                expected=want,
                got=test_result.got,
                verdict=outcome.verdict,
                message=outcome.message,
                explanation=explanation,
            )
    return test_result


def _shrink_first_failure(
    module: Problem,
    source: bytes,
    sandbox: Sandbox,
    planned: list[PlannedTest],
    result: GradeResult,
    time_s: float,
) -> None:
    """A failing random board or worst case (the first failure so far) shrunk to a smallest
    failing one. (A failing small position is shown as it is: nothing is smaller.)"""
    failing = next((t for t in result.tests if t.verdict is not Verdict.AC), None)
    shrinkable = (TestKind.RANDOM, TestKind.WORST)
    if failing and failing.kind in shrinkable and failing.verdict in (Verdict.WA, Verdict.RE):
        try:
            failing.counterexample = shrink(
                module, source, sandbox, planned[failing.index], failing, time_s
            )
        except Exception:
            log.exception("shrinking a counterexample failed")  # the verdict stands without it


def _report(on_test: Callable[[TestResult], None] | None, test: TestResult) -> None:
    if on_test is not None:
        try:
            on_test(test)
        except Exception as exc:
            raise _ProgressFailed from exc


def unreadable(raw: bytes, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """Why a source cannot even be handed to Python, or '' when it can."""
    if len(raw) > max_bytes:
        return f"source too large: {len(raw)} bytes, the limit is {max_bytes}"
    if b"\0" in raw:
        return "source contains a NUL byte"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"source is not valid UTF-8 (byte {exc.start})"
    return ""


def _test_result(index: int, test: PlannedTest, outcome: Outcome) -> TestResult:
    """Everything about the test, hidden ones included: instructors see it all, and what a
    student may see of a hidden test is cut at presentation (`verdict.student_view`)."""
    return TestResult(
        index=index,
        kind=test.kind,
        verdict=outcome.verdict,
        time_ms=round(outcome.cpu_s * 1000, 3),
        wall_ms=round(outcome.wall_s * 1000, 3),
        memory_kb=outcome.rss_kb,
        message=outcome.message,
        profile=test.profile,
        input=test.input,
        expected=test.expected,
        got=answers.to_json(outcome.got),
        board_id=test.ref,
    )


def _finish(result: GradeResult, started: float, runners: Sequence[Runner] = ()) -> GradeResult:
    """The submission's figures. Peak memory and longest time are those of the visible tests:
    a student sees them, and a hidden test's time or memory could encode its input."""
    visible = [t for t in result.tests if t.kind.visible]
    for runner in runners:
        result.sandbox_notes += [n for n in runner.notes if n not in result.sandbox_notes]
    if runners:
        result.peak_memory_kb = max([runners[0].peak_memory_kb, *(t.memory_kb for t in visible)])
    result.max_time_ms = max((t.time_ms for t in visible), default=0.0)
    result.wall_ms = round((time.monotonic() - started) * 1000, 3)
    return result


# -- counterexamples --------------------------------------------------------------------------
def shrink(
    module: Problem,
    source: bytes,
    sandbox: Sandbox,
    test: PlannedTest,
    failing: TestResult,
    time_s: float,
) -> Counterexample:
    """Greedily replace the failing case by a smaller one the submission still fails."""
    case, expected = test.case, test.expected
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

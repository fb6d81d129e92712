"""The runner: a function-style program run on a list of cases in the sandbox, each answer
read, checked for forgery and turned into an outcome (verdict, figures, the answer it gave).

The program's language says how a run is started (`Language.run_command`: Python's harness, a
compiled driver); every language's driver speaks the harness protocol of
judge/languages/drivers/harness.py. The tests go in one at a time on the run's input pipe: test k+1
is written only once the report of test k is read (and its CPU taken), so a solution cannot read a
later test, nor do a later test's work during an earlier call. A test that times out or kills its
process gets its verdict and the run resumes in a fresh sandbox at the next test. Expected answers
never enter the sandbox: the driver reports answers, and every figure or text it reports is
validated, bounded and sanitised here.

Time: a test whose CPU is over its limit is TLE when it answers; one that does not answer is
stopped at a guard above the limit (GUARD_FACTOR, GUARD_EXTRA_S) that counts only its CPU and
its time asleep or blocked (limits.charged_s): time it waited for a CPU that other work held
moves the guard on, up to its cap (then MachineBusy, unless its CPU is over the limit already).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from typing import Any

from judge import answers
from judge.execution.program import CompileError, Program
from judge.execution.runners.base import (
    OUTPUT_LIMIT,
    Outcome,
    Runner,
    Together,
    cpu_used,
    death,
    no_answer_within,
    process_memory_mb,
    time_used,
)
from judge.languages.base import RunRequest
from judge.problems import ProblemSpec
from judge.sandbox import MachineBusy, OverlongLine, Process, RunLimits
from judge.sandbox.command import Command
from judge.sandbox.limits import WallBound
from judge.verdict import Verdict

# A test's wall guard: its CPU limit times this, plus GUARD_EXTRA_S (a start, a pause for the
# judge to read the report), of time charged (CPU, or asleep or blocked).
GUARD_FACTOR = 1.2
GUARD_EXTRA_S = 0.5
MIN_WAIT_S = 0.01  # the shortest wait between two looks at a test's time

# Cases handed over together (the small tier's positions) go to a driver that reports batches
# up to this many per {"batch": k} line, answered in one reply of at most this many bytes
# (the harness's MAX_BATCH and MAX_BATCH_REPLY): one report read, one CPU reading, per batch.
BATCH_POSITIONS = 64
MAX_BATCH_REPLY_BYTES = 32 * 1024

# Errors a driver reports for running out of memory, in each language's words.
MEMORY_ERRORS = frozenset(
    {"MemoryError", "std::bad_alloc", "java.lang.OutOfMemoryError", "OutOfMemoryError"}
)


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


class _TimeUp(Exception):
    """A test (or the loading) ran out of time: what it used, and which bound it reached
    ("cpu", "wall" or "budget")."""

    def __init__(self, bound: str, wall_s: float, cpu_s: float | None, waited_s: float | None):
        super().__init__(bound)
        self.bound, self.wall_s, self.cpu_s, self.waited_s = bound, wall_s, cpu_s, waited_s

    def used(self, cpu_limit_s: float) -> str:
        """What was used, against which bound: a TLE's message."""
        if self.bound == "cpu":
            return cpu_used(self.cpu_s or 0.0, cpu_limit_s)
        if self.bound == "budget":
            return "the submission's total time budget ran out"
        return time_used(self.wall_s, self.waited_s, self.cpu_s)


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


def process_of(
    problem: ProblemSpec, program: Program, start: int, remaining_s: float, capture_output: bool
) -> tuple[Command, RunLimits]:
    """The command and limits of the process that runs `program`'s tests from `start`, with
    `remaining_s` of the grading's budget left: a process's CPU is bounded by the budget (each
    test's limit is held here, outside)."""
    language = program.language
    memory_mb = process_memory_mb(problem, language)
    limits = language.run_limits(
        RunLimits(cpu_s=remaining_s, wall_s=remaining_s + 1.0, memory_bytes=memory_mb << 20)
    )
    request = RunRequest(
        problem, program.style, program.source, program.artifact, start, capture_output
    )
    return language.run_command(request), limits


class FunctionRunner(Runner):
    """Runs one function-style program on a list of cases, resuming in a fresh sandbox
    after a fatal test. Tests are handed over one at a time, or with the cases `together`
    says may go with them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.memory_limit_kb = self.memory_mb << 10
        self._cpu_mark = 0.0  # whole-tree CPU of the current process at its last report
        self._limit_s = self.time_s  # the current test's limit
        # After a troubled batch (_after_trouble): the cases from _single_from go one at a
        # time, and the replaying process answers those below _unjudged_below unjudged.
        self._single_from: int | None = None
        self._unjudged_below = 0

    def _run_from(self, cases, start, remaining, judge_one) -> int:
        language = self.program.language
        command, limits = process_of(
            self.problem, self.program, start, remaining, self.capture_output
        )
        proc = self.sandbox.run(command, limits, hidden=self.hidden_input)
        self._waited(proc)
        # Every test's line, encoded while the sandbox starts the process on the other core.
        lines = [language.test_line(self.problem, case) for case in cases[start:]]
        batch_below = 0
        if self.batches:
            batch_below = len(cases) if self._single_from is None else self._single_from
        tests = _Tests(proc, lines, start, self.together, batch_below)
        # Loading the module counts against the first test of each process: work moved to
        # import time (precomputing every answer) is still work done for the tests.
        self._cpu_mark = 0.0
        self._limit_s = self.time_s + self.start_s
        try:
            with proc:
                return self._tests_of(proc, tests, cases, start, judge_one)
        finally:  # the time it waited for a CPU that other work held moves the deadline on
            self._credit_cpu_wait(proc.outcome.cpu_wait_s if proc.outcome else None)

    def _tests_of(self, proc: Process, tests: _Tests, cases, start: int, judge_one) -> int:
        """The tests of one process from `start`; returns where the next process starts."""
        count, name = len(cases), self.program.language.source_name
        # Loading counts against the first test's CPU, and may take the start allowed on top.
        try:
            ready = self._read_in_time(
                proc, proc.started, self._limit_s, self.startup_s + self._limit_s
            )
        except _TimeUp as up:
            proc.kill()
            message = f"{name} did not finish loading in time: {up.used(self._limit_s)}"
            return self._fail_rest(start, count, Outcome(Verdict.TLE, message), judge_one)
        except answers.MalformedReport as exc:
            proc.kill()
            outcome = Outcome(Verdict.RE, f"the process wrote a malformed report ({exc})")
            return self._fail_rest(start, count, outcome, judge_one)
        if ready is None:
            outcome = self._died(proc, 0.0)
            outcome.message = f"the process died while loading {name}: " + outcome.message
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
                    f"{name} raised an exception while loading: " + _error_text(ready),
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
        tests.feed(start)
        return self._judge_tests(proc, tests, start, count, judge_one)

    def _judge_tests(self, proc: Process, tests: _Tests, start: int, count: int, judge_one) -> int:
        """Each test's outcome, one report or one batch reply at a time, to `judge_one`;
        returns where the next process starts (`start` again to replay a troubled batch)."""
        index = start
        while index < count:
            end = tests.batch_ends.get(index, index + 1)
            try:
                if end > index + 1:
                    outcomes = self._batch(proc, tests, index, end)
                else:
                    outcomes = [self._one(proc, tests, index)]
            except _Trouble as trouble:
                return self._after_trouble(trouble, start, index, count, judge_one)
            self._limit_s = self.time_s
            for outcome in outcomes:
                if index < self._unjudged_below:  # answered again to rebuild the state only
                    if outcome.fatal:
                        return self._replay_failed(outcome, count, judge_one)
                elif not judge_one(index, outcome):
                    return count
                elif outcome.fatal:
                    proc.kill()  # gone already, or spent: judge_one may say its rest is moot
                    return index + 1
                index += 1
        return count

    def _after_trouble(
        self, trouble: _Trouble, start: int, index: int, count: int, judge_one
    ) -> int:
        """A batch from `index` whose reply cannot vouch for each test (its process is ended):
        replay the process from `start` in a fresh one, the tests before `index` answered
        again unjudged (the same state as this run: memo tables) and the rest one at a time,
        so each test gets the verdict it gets unbatched. A budget run out cannot be replayed:
        TLE at the batch's first test."""
        if index < self._unjudged_below:
            return self._replay_failed(trouble.outcome, count, judge_one)
        if not trouble.replayable:
            return index + 1 if judge_one(index, trouble.outcome) else count
        self._single_from = self._unjudged_below = index
        return start

    def _replay_failed(self, outcome: Outcome, count: int, judge_one) -> int:
        """A replay failed before its first judged test (a test that answered in time before
        did not now): that test's verdict, said so."""
        at = self._unjudged_below
        message = f"while the cases before it were answered again: {outcome.message}"
        failed = Outcome(outcome.verdict, message, cpu_s=outcome.cpu_s, fatal=True)
        return at + 1 if judge_one(at, failed) else count

    def _batch(self, proc: Process, tests: _Tests, first: int, end: int) -> list[Outcome]:
        """Tests first..end-1 answered in one reply: each AC so far (judge_one checks the
        answers), or _Trouble when the reply cannot vouch for each one. The whole batch is
        held to ONE test's CPU limit and guard, so no test in it can have gone over its own
        undetected; replayed cases (judged before) get their limits summed."""
        count = end - first
        limit_s = self._limit_s * (count if first < self._unjudged_below else 1)
        began = time.monotonic()
        try:
            guard_s = limit_s * GUARD_FACTOR + GUARD_EXTRA_S
            report = self._read_in_time(proc, began, limit_s, guard_s)
        except _TimeUp as up:
            raise _Trouble(self._timed_out(proc, up, limit_s), up.bound != "budget") from None
        except answers.MalformedReport as exc:
            proc.kill()
            raise _Trouble(_malformed(exc)) from None
        wall = time.monotonic() - began
        if report is None:
            raise _Trouble(self._died(proc, wall))
        try:
            got = _batch_answers(report, first, count)
            _number(report, "wall")  # unused (measured outside), but a forged one is malformed
            cpu = self._tree_cpu(proc, _number(report, "cpu"), wall)
            rss_kb = min(int(_number(report, "rss_kb")), self.memory_limit_kb)
        except (answers.MalformedReport, KeyError, TypeError) as exc:
            proc.kill()
            raise _Trouble(_malformed(exc)) from None
        if cpu > limit_s:
            proc.kill()
            message = f"took {cpu:.2f} s of CPU, the limit is {limit_s:g} s"
            raise _Trouble(Outcome(Verdict.TLE, message, cpu_s=cpu, wall_s=wall, fatal=True))
        tests.feed(end)
        self.peak_memory_kb = max(self.peak_memory_kb, rss_kb)
        # Only the batch's figures are measured: each test is shown its share.
        cpu, wall = cpu / count, wall / count
        return [Outcome(Verdict.AC, "", got=g, cpu_s=cpu, wall_s=wall, rss_kb=rss_kb) for g in got]

    def _timed_out(self, proc: Process, up: _TimeUp, limit_s: float) -> Outcome:
        """A test (or batch) that did not answer in time: TLE, its process ended."""
        cpu = self._tree_cpu(proc, 0.0, up.wall_s)  # what it used before the kill, not zero
        proc.kill()
        message = (
            no_answer_within(limit_s, up.wall_s, up.waited_s, up.cpu_s)
            if up.bound == "wall"
            else up.used(limit_s)
        )
        return Outcome(Verdict.TLE, message, cpu_s=cpu, wall_s=up.wall_s, fatal=True)

    def _read(self, proc: Process, timeout: float) -> dict[str, Any] | None:
        try:
            line = proc.read_result(timeout=timeout)
        except OverlongLine as exc:
            raise answers.MalformedReport(str(exc)) from None
        if line is None:
            return None
        report = parse_report(line)
        if report["event"] == "batch" and len(line) > MAX_BATCH_REPLY_BYTES:
            raise answers.MalformedReport(
                f"a batch reply longer than {MAX_BATCH_REPLY_BYTES} bytes"
            )
        return report

    def _read_in_time(
        self, proc: Process, began: float, cpu_limit_s: float, guard_s: float
    ) -> dict[str, Any] | None:
        """The next report, waited for while the test (or the loading) begun at `began` may
        still be in time: _TimeUp once its charged time (limits.charged_s: its CPU and its time
        asleep or blocked) reached `guard_s`, or the budget ran out. Time it waited for a CPU
        that other work held moves the guard on, up to its cap: then MachineBusy, unless its
        CPU is over `cpu_limit_s` already (TLE however busy the machine), and the budget's
        deadline (Runner.cpu_wait_s)."""
        guard = WallBound(guard_s)
        wait = guard_s
        while True:
            try:
                return self._read(proc, max(min(wait, self.deadline - time.monotonic()), 0.0))
            except TimeoutError:
                pass
            now = time.monotonic()
            wall = now - began
            total = proc.cpu_seconds()
            cpu = None if total is None else max(total - self._cpu_mark, 0.0)
            self._credit_cpu_wait(proc.cpu_wait_seconds())
            waited = proc.cpu_wait_since(began)
            over = cpu is not None and cpu > cpu_limit_s
            try:
                more = guard.wait_more(wall, waited, cpu)
            except MachineBusy:
                if not over:
                    raise
                more = 0.0
            if more <= 0:
                raise _TimeUp("cpu" if over else "wall", wall, cpu, waited)
            if self.deadline <= now:
                raise _TimeUp("budget", wall, cpu, waited)
            wait = max(more, MIN_WAIT_S)

    def _tree_cpu(self, proc: Process, claimed: float, wall: float) -> float:
        """CPU of this test: the whole process tree's usage since the last report, measured
        outside; where that cannot be measured, the harness's claim, never above the wall."""
        now = proc.cpu_seconds()
        if now is None:
            return min(claimed, wall)
        used, self._cpu_mark = max(now - self._cpu_mark, 0.0), now
        return used

    def _one(self, proc: Process, tests: _Tests, index: int) -> Outcome:
        outcome, report = self._answer(proc, tests, index)
        if self.capture_output and report is not None:
            outcome.stdout, cut_out = _printed(report, "stdout")
            outcome.stderr, cut_err = _printed(report, "stderr")
            outcome.output_cut = cut_out or cut_err or report.get("output_cut") is True
        return outcome

    def _answer(
        self, proc: Process, tests: _Tests, index: int
    ) -> tuple[Outcome, dict[str, Any] | None]:
        """The test's outcome, and the report it came from (None when there was none). The
        next test goes in as soon as this one's report is read and its CPU taken: the
        process works on it while this answer is checked."""
        began = time.monotonic()
        limit_s = self._limit_s
        try:
            guard_s = limit_s * GUARD_FACTOR + GUARD_EXTRA_S
            report = self._read_in_time(proc, began, limit_s, guard_s)
        except _TimeUp as up:
            return self._timed_out(proc, up, limit_s), None
        except answers.MalformedReport as exc:
            proc.kill()
            return _malformed(exc), None
        wall = time.monotonic() - began
        if report is None:
            return self._died(proc, wall), None
        try:
            if report.get("i") != index or report["event"] not in ("result", "error"):
                raise answers.MalformedReport("report out of sequence")
            _number(report, "wall")  # unused (measured outside), but a forged one is malformed
            cpu = self._tree_cpu(proc, _number(report, "cpu"), wall)
            tests.feed(index + 1)
            # Only a display figure (the cgroup enforces the limit): bounded by the limit.
            rss_kb = min(int(_number(report, "rss_kb")), self.memory_limit_kb)
            self.peak_memory_kb = max(self.peak_memory_kb, rss_kb)
            if report["event"] == "error":
                error = report.get("error")
                if isinstance(error, str) and error in MEMORY_ERRORS:
                    return Outcome(
                        Verdict.MLE,
                        f"memory limit exceeded ({error})",
                        cpu_s=cpu,
                        wall_s=wall,
                        rss_kb=rss_kb,
                        fatal=True,
                    ), report
                return Outcome(
                    Verdict.RE, _error_text(report), cpu_s=cpu, wall_s=wall, rss_kb=rss_kb
                ), report
            got = answers.decode(report["answer"])
        except (answers.MalformedReport, KeyError, TypeError) as exc:
            proc.kill()
            return Outcome(
                Verdict.RE, f"the process wrote a malformed report ({exc})", wall_s=wall, fatal=True
            ), None
        if cpu > limit_s:
            return Outcome(
                Verdict.TLE,
                f"took {cpu:.2f} s of CPU, the limit is {limit_s:g} s",
                got=got,
                cpu_s=cpu,
                wall_s=wall,
                rss_kb=rss_kb,
            ), report
        return Outcome(Verdict.AC, "", got=got, cpu_s=cpu, wall_s=wall, rss_kb=rss_kb), report

    def _died(self, proc: Process, wall: float) -> Outcome:
        """The process ended or was killed before reporting: find out why."""
        cpu = self._tree_cpu(proc, 0.0, wall)
        result = proc.finish(grace=0.5)
        self.notes.extend(n for n in result.notes if n not in self.notes)
        self.peak_memory_kb = max(self.peak_memory_kb, result.peak_memory_bytes // 1024)
        verdict, message = death(result)
        return Outcome(verdict, message, cpu_s=cpu, wall_s=wall, fatal=True)

    def _fail_rest(self, start, count, outcome: Outcome, judge_one) -> int:
        for index in range(start, count):
            if not judge_one(index, Outcome(outcome.verdict, outcome.message)):
                break
        return count


class _Tests:
    """The tests of one process, from `first` on, as lines of its language: `feed(k)` hands
    over test k once the report of k - 1 is read (with the tests up to `together(k)`, when
    given), and ends the process's tests after the last one. Tests handed over together below
    `batch_below` go in batches of up to BATCH_POSITIONS, each headed by its {"batch": k} line
    (`batch_ends`: where the batch starting at a test ends)."""

    def __init__(
        self,
        proc: Process,
        lines: list[bytes],
        first: int,
        together: Together | None = None,
        batch_below: int = 0,
    ) -> None:
        self.proc = proc
        self.lines = lines
        self.first = first
        self.together = together
        self.batch_below = batch_below
        self.batch_ends: dict[int, int] = {}
        self.written = first  # the tests before it are handed over

    def feed(self, index: int) -> None:
        count = self.first + len(self.lines)
        if self.written <= index < count:  # else handed over already, or past the last
            end = index + 1 if self.together is None else max(index + 1, self.together(index))
            end = min(end, count)
            self.proc.write_input(self._batched(index, end))
            self.written = end
        if self.written >= count:
            self.proc.close_input()

    def _batched(self, index: int, end: int) -> bytes:
        """The lines of tests index..end-1, in batches where they may be."""
        parts = []
        while index < end:
            stop = min(index + BATCH_POSITIONS, end, self.batch_below)
            if stop - index > 1:
                parts.append(b'{"batch":%d}\n' % (stop - index))
                self.batch_ends[index] = stop
            else:
                stop = index + 1
            parts.extend(self.lines[index - self.first : stop - self.first])
            index = stop
        return b"".join(parts)


class _Trouble(Exception):
    """A batch whose reply cannot vouch for each of its tests (its process is ended), and
    what its first test gets when the batch cannot be replayed."""

    def __init__(self, outcome: Outcome, replayable: bool = True) -> None:
        super().__init__(outcome.message)
        self.outcome, self.replayable = outcome, replayable


def _batch_answers(report: Mapping[str, Any], first: int, count: int) -> list[Any]:
    """The answers of a batch reply, strictly: the batch's first test and its count exactly,
    one valid answer per test. A "redo" reply (a call raised or printed) is trouble too."""
    if report["event"] != "batch" or type(report.get("i")) is not int or report["i"] != first:
        raise answers.MalformedReport("report out of sequence")
    if report.get("redo") is True:
        raise answers.MalformedReport("a batch answered one call at a time")
    items = report.get("answers")
    if type(report.get("n")) is not int or report["n"] != count:
        raise answers.MalformedReport(f"a batch reply not of {count} answers")
    if type(items) is not list or len(items) != count:
        raise answers.MalformedReport(f"a batch reply not of {count} answers")
    return [answers.decode(item) for item in items]


def _malformed(exc: Exception) -> Outcome:
    return Outcome(Verdict.RE, f"the process wrote a malformed report ({exc})", fatal=True)


def _printed(report: Mapping[str, Any], key: str) -> tuple[str, bool]:
    """What the harness says a call printed on one stream: made safe and cut to OUTPUT_LIMIT
    characters, and whether it was cut. Anything but a string counts as nothing printed."""
    value = report.get(key)
    if not isinstance(value, str):
        return "", False
    return answers.clean_text(value, OUTPUT_LIMIT), len(value) > OUTPUT_LIMIT


def _error_text(report: Mapping[str, Any]) -> str:
    error = answers.clean_text(report.get("error", "Exception"), 200)
    message = answers.clean_text(report.get("message", ""), 1000)
    trace = answers.clean_text(report.get("traceback", ""), 4000)
    return f"{error}: {message}" + (f"\n{trace}" if trace else "")

"""What every runner shares, whatever the program's style: the outcome of one test, the
limits of a program's processes, the loop over processes, and why a process died.

A runner runs a program (judge/execution/program.py) on a list of cases and calls
`judge_one(index, outcome)` per case: the function style (function.py: the harness protocol,
one test at a time on the tests channel) and the stdio style (stdio.py: a whole program on
stdin and stdout, several cases per run). `runner_for` (this package's face) picks one.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from judge.execution.budget import HIDDEN_STARTUP_S, STARTUP_S
from judge.execution.program import Program
from judge.languages.base import Language
from judge.problems import ProblemSpec
from judge.sandbox import Process, RunOutcome, Sandbox
from judge.sandbox.limits import charged_s
from judge.verdict import Verdict

# Where the cases handed over together with case k end (exclusive): cases with nothing to hide
# from each other (the small tier's positions, which the judge enumerates; a shrinking round's
# candidates), which a runner may give its program at once. None: each case on its own.
Together = Callable[[int], int]


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
    stdout: str = ""  # what the call printed, when the runner captures output
    stderr: str = ""
    output_cut: bool = False

    @property
    def ends_the_rest(self) -> bool:
        """A time-out that spent its process: the rest would most likely time out too, each
        costing the full limit, so they are skipped, as judges do (one slow submission
        cannot hog a grading slot)."""
        return self.verdict is Verdict.TLE and self.fatal


OUTPUT_LIMIT = 8192  # characters of printed output kept per stream per test


def process_memory_mb(problem: ProblemSpec, language: Language) -> int:
    """A run's memory: the problem's limit and what the language's runtime needs on top."""
    return problem.LIMITS.memory_mb + language.memory_extra_mb


class Runner:
    """What both styles' runners share: a program's limits from the problem's and its
    language's, and the loop over processes. `time_s` is the problem's limit per test; the
    language's `time_factor` scales it, and its `time_extra_s` (a JVM's start) is allowed on
    top on the first test of each process, which also pays for loading the program. Its
    `memory_extra_mb` is added to the problem's memory, and `run_limits` adjusts the rest
    (threads, address space). A subclass runs one process from a test (`_run_from`).

    `compile_checked`: an earlier process already compiled and loaded this source (or
    judge/execution/build.py compiled it), so a compile error reported now is a lie (a
    submission choosing its own error text), not CE.
    `capture_output`: keep what each call prints (visible tests only: output is a channel
    for anything the process read, so a run holding hidden inputs never reports it).
    `hidden_input`: the cases are hidden boards (below).
    `together`: which cases may be handed over at once (`Together`); never hidden ones.
    `batches`: those cases may also be answered in batches, one reply each, when the
    language's driver reports batches (function style only: function.py).
    """

    def __init__(
        self,
        problem: ProblemSpec,
        program: Program,
        sandbox: Sandbox,
        time_s: float,
        deadline: float,
        *,
        compile_checked: bool = False,
        capture_output: bool = False,
        hidden_input: bool = False,
        together: Together | None = None,
        batches: bool = False,
    ) -> None:
        language = program.language
        self.problem = problem
        self.program = program
        self.sandbox = sandbox
        self.time_s = time_s * language.time_factor
        self.start_s = language.time_extra_s  # per process, on its first test
        self.deadline = deadline  # time.monotonic() at which the whole budget ends
        # Time its processes waited for their phase (judge/sandbox/phase.py) before they
        # started, and for a CPU that other work held while they ran (Process.cpu_wait_seconds):
        # not the submission's, so it moves the deadline on.
        self.phase_wait_s = 0.0
        self.cpu_wait_s = 0.0
        self._credited_s = 0.0  # of the current process's waiting for a CPU
        self.capture_output = capture_output
        # The cases hold hidden input: the runs take the hidden phase (judge/sandbox/phase.py)
        # and get no wall time to spend asleep before their first answer (a hidden tier's
        # duration is a channel).
        self.hidden_input = hidden_input
        self.startup_s = HIDDEN_STARTUP_S if hidden_input else STARTUP_S
        self.compile_checked = compile_checked or program.artifact is not None
        self.together = together
        self.batches = batches and together is not None and language.reports_batches
        self.notes: list[str] = []
        self.peak_memory_kb = 0
        self.memory_mb = process_memory_mb(problem, language)

    def run(
        self,
        cases: Sequence[dict[str, Any]],
        judge_one: Callable[[int, Outcome], bool],
        resume: Callable[[int], int] | None = None,
    ) -> None:
        """Run every case; `judge_one(index, outcome)` returns False to stop early. After a
        process ends early, the next starts at `resume(next index)` (default: the next one).

        Raises CompileError when the source does not compile or has no callable solution.
        """
        start = 0
        while start < len(cases):
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                out_of_budget(start, len(cases), judge_one)
                return
            start = self._run_from(cases, start, remaining, judge_one)
            if resume is not None:
                start = resume(start)

    def _run_from(self, cases, start: int, remaining: float, judge_one) -> int:
        """One sandboxed process from test `start`; returns where the next one starts."""
        raise NotImplementedError

    @property
    def waited_s(self) -> float:
        """Time its processes waited for the machine: not the submission's."""
        return self.phase_wait_s + self.cpu_wait_s

    def _waited(self, proc: Process) -> None:
        """A process started, after waiting for its phase."""
        self.phase_wait_s += proc.phase_wait_s
        self.deadline += proc.phase_wait_s
        self._credited_s = 0.0

    def _credit_cpu_wait(self, waited_s: float | None) -> None:
        """The current process has waited `waited_s` for a CPU that other work held, since it
        started (None: not measured): what was not credited yet moves the deadline on."""
        if waited_s is not None and waited_s > self._credited_s:
            self.cpu_wait_s += waited_s - self._credited_s
            self.deadline += waited_s - self._credited_s
            self._credited_s = waited_s


def out_of_budget(start: int, count: int, judge_one: Callable[[int, Outcome], bool]) -> None:
    """The submission's whole budget is spent: TLE for the test at `start`, the rest
    skipped."""
    for index in range(start, count):
        first = index == start
        verdict = Verdict.TLE if first else Verdict.SKIPPED
        message = (
            "the submission's total time budget ran out"
            if first
            else "not run: the total time budget ran out"
        )
        if not judge_one(index, Outcome(verdict, message)):
            break


def death(result: RunOutcome) -> tuple[Verdict, str]:
    """Why a process ended before it answered everything: a limit it hit, a signal, an exit
    code."""
    if result.limit == "memory":
        return Verdict.MLE, "memory limit exceeded"
    if result.limit in ("output", "results"):
        return Verdict.OLE, "output limit exceeded"
    if result.limit in ("cpu", "wall") and result.limit_s is not None:
        if result.limit == "cpu":
            return Verdict.TLE, cpu_used(result.cpu_s, result.limit_s)
        return Verdict.TLE, no_answer_within(
            result.limit_s, result.wall_s, result.cpu_wait_s, result.cpu_s
        )
    if result.limit in ("cpu", "wall"):
        return Verdict.TLE, "time limit exceeded"
    if result.signal is not None:
        return Verdict.RE, f"the process was killed by signal {signal_name(result.signal)}"
    code = result.exit_code
    if code is not None and 128 < code <= 128 + 64:
        # bwrap's init reports a program killed by signal N as exit status 128 + N (a C++
        # segfault, an abort): said plainly, as the signal.
        return Verdict.RE, f"the process was killed by signal {signal_name(code - 128)}"
    return Verdict.RE, f"the process exited with code {code}"


def cpu_used(cpu_s: float, limit_s: float) -> str:
    """What a TLE of the CPU limit says."""
    return f"used {cpu_s:.2f} s of CPU (limit {limit_s:g} s)"


def time_used(wall_s: float, cpu_wait_s: float | None, cpu_s: float | None) -> str:
    """What a TLE of a wall bound says was used: the CPU, and the rest of the time charged
    (limits.charged_s), which the process spent asleep or blocked. Figures measured outside
    the sandbox only."""
    cpu = cpu_s or 0.0
    asleep = charged_s(wall_s, cpu_wait_s, cpu_s) - cpu
    return f"{cpu:.2f} s of CPU used, {asleep:.1f} s asleep or blocked"


def no_answer_within(
    limit_s: float, wall_s: float, cpu_wait_s: float | None, cpu_s: float | None
) -> str:
    """What a TLE of a wall bound says: the limit, and what was used (time_used)."""
    return f"no answer within {limit_s:g} s: {time_used(wall_s, cpu_wait_s, cpu_s)}"


def signal_name(number: int) -> str:
    """'11 (segmentation fault)': the number, and what it means when the system knows."""
    try:
        meaning = signal.strsignal(number)
    except ValueError:
        meaning = None
    return f"{number} ({meaning.lower()})" if meaning else str(number)

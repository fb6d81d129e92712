"""Grading: plan tests (plan.py) -> run them in the sandbox (judge/execution/runners) -> check
answers -> verdict; the first visible failure shrunk to a smallest one (shrink.py).

    result = grade("footholds", source, hidden_cases=[{"input": case, "answer": 5}], seed=7,
                   sandbox=make_sandbox(SandboxConfig()), language="cpp", style="function")

The submission is compiled once (judge/execution/build.py, cached by BuildCache when one is given)
and the same program runs every tier, the shrinking and the search for the bug.

Visible tests (samples, every small position, the worst cases, random boards) run in one
sandboxed process and hidden boards in another, so nothing a student sees comes from a process
that held a hidden input. The verdict of each test is decided here, from the answer the
runner read: expected answers never enter the sandbox.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import judge
from judge import problems
from judge.execution.build import BuildCache, built
from judge.execution.program import MAX_SOURCE_BYTES, CompileError, Program, unreadable
from judge.execution.runners import Outcome, Runner, runner_for
from judge.grading.hidden_tier import HiddenTier, SendHiddenTier
from judge.grading.plan import PlannedTest, plan_tests, small_answers
from judge.grading.results import check_answer, skipped_tests, test_result, with_figures
from judge.grading.shrink import shrink_first_failure
from judge.grading.small_tier import SmallGroup, TierCases, small_result
from judge.languages import Language, Style, resolve
from judge.problems import ProblemSpec
from judge.sandbox import Sandbox, SandboxUnavailable
from judge.verdict import GradeResult, TestKind, TestResult, Verdict, overall_verdict

__all__ = ["INFRASTRUCTURE_ERRORS", "MAX_SOURCE_BYTES", "grade", "test_result", "unreadable"]

log = logging.getLogger(__name__)

# The machinery failed, not the submission: no verdict, worth another attempt.
INFRASTRUCTURE_ERRORS = (SandboxUnavailable, OSError)

# Printed output kept over a whole grading (each test's is cut at OUTPUT_LIMIT already): it is
# stored with every judging and sent with every view of it.
SUBMISSION_OUTPUT_CHARS = 64 * 1024


class _ProgressFailed(Exception):
    """The caller's on_test raised (a database write, say): neither the judge's failure nor
    the submission's, so grade() re-raises the original instead of making it a verdict."""


def grade(
    problem: str | ProblemSpec,
    source: str | bytes,
    *,
    hidden_cases: Iterable[Mapping[str, Any]] = (),
    seed: int | None = None,
    random_count: int | None = None,
    sandbox: Sandbox,
    on_test: Callable[[TestResult], None] | None = None,
    max_source_bytes: int = MAX_SOURCE_BYTES,
    diagnose: bool = True,
    interrupts: tuple[type[BaseException], ...] = (),
    language: str = "python",
    style: str = "function",
    build_cache: BuildCache | None = None,
    hidden_tier: SendHiddenTier | None = None,
) -> GradeResult:
    """Grade one submission; never raises for anything the submission does.

    `language` (a judge.languages name) and `style` ("function", or "stdio" for a whole
    program where the problem offers it): an unknown language or a style the problem does
    not offer raises judge.languages.NotOffered (a ValueError) before anything runs, and a
    language whose toolchain is missing LanguageUnavailable. `build_cache`: where compiled
    programs are kept between gradings (None: compiled afresh, nothing kept).
    Raises one of INFRASTRUCTURE_ERRORS when the sandbox itself cannot run (no free slot,
    bubblewrap failing, out of processes) or the machine was too busy to judge a test's time
    (MachineBusy): nothing was decided, so the caller may retry; and
    whatever `on_test` raises, as it is. Any other failure of the judge is an IE verdict.
    `diagnose`: search below the first failing visible test for where the bug is
    (judge.diagnosis.probe); it costs up to DIAGNOSIS_BUDGET_S on a failing submission.
    `interrupts`: exceptions the caller raises into the grading to stop it (a task's soft
    time limit), re-raised as they are instead of becoming an IE verdict.
    `hidden_tier`: where the hidden boards run instead of here (judge/grading/hidden_tier.py:
    hosts that run hidden tiers alone); None: here, in the hidden phase of the phase lock.
    """
    started = time.monotonic()
    module = problems.get(problem) if isinstance(problem, str) else problem
    plugin, chosen = resolve(module, language, style)
    plugin.version()  # LanguageUnavailable now, not a verdict later
    result = _new_result(module, plugin.name, chosen, seed, sandbox)
    try:
        planned = plan_tests(module, hidden_cases, result.seed, random_count, solve=False)
    except Exception as exc:  # a bad stored board or a failing reference: the judge's fault
        log.exception("planning tests for %s failed", module.SLUG)
        result.message += f"internal error while planning tests: {exc}"
        return with_figures(result, started)
    result.total = len(planned)
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    why = unreadable(raw, max_source_bytes)
    if why:
        result.verdict, result.message = Verdict.CE, result.message + why
        return with_figures(result, started)
    grading = _Grading(module, sandbox, planned, result, on_test, interrupts, hidden_tier, started)
    grading.diagnose = diagnose and chosen is Style.FUNCTION  # the search asks about positions
    grading.build_and_run(plugin, chosen, raw, build_cache)
    return with_figures(result, started, grading.runners)


def _new_result(
    module: ProblemSpec, language: str, style: Style, seed: int | None, sandbox: Sandbox
) -> GradeResult:
    """An IE result until the grading decides otherwise; a seed drawn when none is given."""
    result = GradeResult(
        problem=module.SLUG,
        verdict=Verdict.IE,
        passed=0,
        total=0,
        tests=[],
        seed=secrets.randbelow(2**31) if seed is None else seed,
        judge_version=judge.__version__,
        sandboxed=sandbox.sandboxed,
        sandbox_notes=list(sandbox.notes),
        language=language,
        style=style.value,
    )
    if not sandbox.sandboxed:
        result.message = "UNSANDBOXED (JUDGE_SANDBOX=none): development use only. "
    return result


class _Grading:
    """One grading's tiers, run in order (the visible tier, then the hidden tier, each in
    sandboxes of its own), and the state they share: the expected answers as they are solved,
    the output budget left, and whether a time-out ended the rest."""

    def __init__(
        self,
        module: ProblemSpec,
        sandbox: Sandbox,
        planned: list[PlannedTest],
        result: GradeResult,
        on_test: Callable[[TestResult], None] | None,
        interrupts: tuple[type[BaseException], ...],
        send_hidden: SendHiddenTier | None,
        started: float,
    ) -> None:
        self.module, self.sandbox, self.planned, self.result = module, sandbox, planned, result
        self.on_test, self.interrupts, self.send_hidden = on_test, interrupts, send_hidden
        self.started = started
        self.deadline = started + module.LIMITS.total_s
        self.time_s = module.LIMITS.time_s
        self.diagnose = False
        self.stopped = False
        self.output_left = SUBMISSION_OUTPUT_CHARS
        self.runners: list[Runner] = []  # the visible tier's first: its figures may be shown
        # Reference answers are solved in plan order on a thread of their own, overlapping the
        # sandbox's start and the submission's run on the other core.
        self.solver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reference")
        self.expected: list[tuple[Future, int] | None] = [None] * len(planned)
        for group in _answer_groups(planned):
            self._solve_later(group)

    def _solve_later(self, indexes: list[int]) -> None:
        """One future for the answers of these tests (the small tier's: all its answers)."""
        if self.planned[indexes[0]].kind is TestKind.SMALL:
            future = self.solver.submit(lambda: [small_answers(self.module)])
        else:
            cases = [self.planned[i].case for i in indexes]
            future = self.solver.submit(self.module.answers, cases)
        for k, index in enumerate(indexes):
            self.expected[index] = (future, k)

    def build_and_run(
        self, language: Language, style: Style, raw: bytes, cache: BuildCache | None
    ) -> None:
        """Compile once, run every tier; what fails becomes the result's verdict (CE, IE) or
        is re-raised as grade() promises."""
        module, result = self.module, self.result
        try:
            with built(module, language, style, raw, self.sandbox, cache, self.deadline) as program:
                self.deadline += program.build_waited_s  # the machine's time, not the submission's
                self.run(program)
        except CompileError as exc:
            result.verdict, result.message = Verdict.CE, result.message + str(exc)
            result.tests = []
        except _ProgressFailed as exc:
            raise (exc.__cause__ or exc) from None  # _report always sets the cause
        except INFRASTRUCTURE_ERRORS:
            raise  # the sandbox could not run at all: the caller retries or reports it
        except self.interrupts:
            raise
        except Exception as exc:
            log.exception("grading a %s submission failed", module.SLUG)
            result.verdict = Verdict.IE
            result.message += f"internal error: {type(exc).__name__}: {exc}"
        finally:
            self.solver.shutdown(wait=False, cancel_futures=True)

    def run(self, program: Program) -> None:
        self._run_tier(program, hidden=False)
        # Before any process holds a hidden input: nothing a student reads may come from a run
        # after one did (it could have left a trace a later run picks up).
        args = (self.module, program, self.sandbox)
        shrink_first_failure(*args, self.planned, self.result, self.time_s, self.interrupts)
        if self.diagnose:
            from judge.diagnosis.probe import diagnose_first_failure  # only when asked for

            diagnose_first_failure(*args, self.result, self.interrupts)
        self._run_tier(program, hidden=True)
        self._skip_the_rest()

    def _run_tier(self, program: Program, hidden: bool) -> None:
        tier = [i for i, t in enumerate(self.planned) if t.kind.visible is not hidden]
        spread = TierCases.of(self.planned, tier)

        def judge_one(k: int, outcome: Outcome) -> bool:
            index, group, number = spread.owners[k]
            if group is None:
                return self._judge_test(index, outcome)
            return self._judge_position(group, number, outcome)

        if self.stopped or not spread.cases:
            return
        if hidden:
            self.result.hidden_after_ms = round((time.monotonic() - self.started) * 1000, 3)
        if hidden and self.send_hidden is not None:
            sent = self._sent_away(self.send_hidden, program, spread.cases)
            for k, outcome in enumerate(sent):
                if not judge_one(k, outcome):
                    break
            return
        # The hidden tier's source was compiled by the visible tier's first process. Printed
        # output is kept for visible tests only (a hidden run's output could carry its inputs).
        runner = runner_for(
            self.module,
            program,
            self.sandbox,
            self.time_s,
            self.deadline,
            compile_checked=hidden,
            capture_output=not hidden,
            hidden_input=hidden,
            together=None if hidden else spread.together,
            batches=not hidden,  # the small tier's positions, in batches where the driver can
        )
        self.runners.append(runner)
        runner.run(spread.cases, judge_one, spread.resume)
        self.deadline += runner.waited_s  # waiting for the phase lock or a CPU is not its time

    def _sent_away(
        self, send: SendHiddenTier, program: Program, cases: list[dict[str, Any]]
    ) -> list[Outcome]:
        """The hidden tier run by a host of its own (judge/grading/hidden_tier.py)."""
        tier = HiddenTier(
            self.module.SLUG,
            program.language.name,
            program.style.value,
            program.source.decode("utf-8"),
            cases,
            self.time_s,
            max(self.deadline - time.monotonic(), 0.0),
        )
        return send(tier)[: len(cases)]

    def _answer_of(self, index: int) -> Any:
        test, pending = self.planned[index], self.expected[index]
        if pending is not None:
            future, k = pending
            test.expected, self.expected[index] = future.result()[k], None
        return test.expected

    def _judge_test(self, index: int, outcome: Outcome) -> bool:
        test = self.planned[index]
        check_answer(self.module, test.case, self._answer_of(index), outcome)
        return self._finish_test(test_result(index, test, outcome), outcome)

    def _judge_position(self, group: SmallGroup, number: int, outcome: Outcome) -> bool:
        if group.done:  # the positions after the first failure do not count
            return True
        test, want = self.planned[group.index], self._answer_of(group.index)
        check_answer(self.module, test.small_positions[number], want[number], outcome)
        if not group.record(outcome):
            return True
        return self._finish_test(
            small_result(self.module, group, test, want[number], outcome), outcome
        )

    def _finish_test(self, test: TestResult, outcome: Outcome) -> bool:
        self._keep_output(test)
        self.result.tests.append(test)
        _report(self.on_test, test)
        self.stopped = outcome.ends_the_rest
        return not self.stopped

    def _keep_output(self, test: TestResult) -> None:
        """Cut the test's printed output to what the submission's budget has left."""
        printed = len(test.stdout) + len(test.stderr)
        if printed > self.output_left:
            test.stdout = test.stdout[: self.output_left]
            test.stderr = test.stderr[: self.output_left - len(test.stdout)]
            test.output_cut = True
        self.output_left -= len(test.stdout) + len(test.stderr)

    def _skip_the_rest(self) -> None:
        """Tests not run (after a time-out ended the rest) are SKIPPED; then the verdict."""
        result = self.result
        kinds = [t.kind for t in self.planned]
        for skipped in skipped_tests(kinds, {t.index for t in result.tests}):
            result.tests.append(skipped)
            _report(self.on_test, skipped)
        result.tests.sort(key=lambda t: t.index)
        result.passed = sum(t.verdict is Verdict.AC for t in result.tests)
        result.verdict = overall_verdict(result.tests)


def _answer_groups(planned: list[PlannedTest]) -> list[list[int]]:
    """The tests whose answers are still to be solved, in the groups solved together (each
    one batch of `ProblemSpec.answers`: one round trip to a package's code): the small tier,
    the other visible tests and the hidden ones."""
    todo = [i for i, t in enumerate(planned) if t.expected is None]
    small = [i for i in todo if planned[i].kind is TestKind.SMALL]
    visible = [i for i in todo if planned[i].kind.visible and i not in small]
    hidden = [i for i in todo if not planned[i].kind.visible]
    return [group for group in (small, visible, hidden) if group]


def _report(on_test: Callable[[TestResult], None] | None, test: TestResult) -> None:
    if on_test is not None:
        try:
            on_test(test)
        except Exception as exc:
            raise _ProgressFailed from exc

"""Grading: plan tests (plan.py) -> run them in the sandbox (runner.py) -> check answers ->
verdict; the first visible failure shrunk to a smallest one (shrink.py).

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

import judge
from judge import answers, problems
from judge.diagnosis.probe import diagnose_first_failure
from judge.execution.build import BuildCache, built
from judge.execution.program import CompileError, Program
from judge.execution.runners import runner_for
from judge.execution.runners.function import Outcome, Runner
from judge.execution.runners.stdio import BATCH, SMALL_BATCH, StdioRunner
from judge.grading.hidden_tier import HiddenTier, SendHiddenTier
from judge.grading.plan import PlannedTest, plan_tests, small_answers
from judge.grading.shrink import shrink_first_failure
from judge.languages import Style, resolve
from judge.problems import Problem
from judge.sandbox import Sandbox, SandboxUnavailable
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

MAX_SOURCE_BYTES = 64 * 1024
# Printed output kept over a whole grading (each test's is cut at OUTPUT_LIMIT already): it is
# stored with every judging and sent with every view of it.
SUBMISSION_OUTPUT_CHARS = 64 * 1024


class _ProgressFailed(Exception):
    """The caller's on_test raised (a database write, say): neither the judge's failure nor
    the submission's, so grade() re-raises the original instead of making it a verdict."""


def grade(
    problem: str | Problem,
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

    Visible tests (samples, small positions, worst cases, random boards) and hidden boards run
    in separate sandboxes: the process whose messages, answers and timings a student sees
    never holds a hidden input.
    Raises one of INFRASTRUCTURE_ERRORS when the sandbox itself cannot run (no free slot,
    bubblewrap failing, out of processes): nothing was decided, so the caller may retry; and
    whatever `on_test` raises, as it is.
    Any other failure of the judge becomes an IE verdict.
    `diagnose`: search below the first failing visible test for where the bug is
    (judge.diagnosis.probe); it costs up to DIAGNOSIS_BUDGET_S on a failing submission.
    `interrupts`: exceptions the caller raises into the grading to stop it (a task's soft
    time limit), re-raised as they are instead of becoming an IE verdict.
    `hidden_tier`: where the hidden boards run instead of here (judge/grading/hidden_tier.py: hosts
    that run hidden tiers alone); None: here, in the hidden phase of the phase lock.
    """
    started = time.monotonic()
    module = problems.get(problem) if isinstance(problem, str) else problem
    plugin, chosen = resolve(module, language, style)
    plugin.version()  # LanguageUnavailable now, not a verdict later
    seed = secrets.randbelow(2**31) if seed is None else seed
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
        language=plugin.name,
        style=chosen.value,
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
        with built(module, plugin, chosen, raw, sandbox, build_cache, deadline) as program:
            runners = _run_planned(
                module,
                program,
                sandbox,
                deadline,
                planned,
                expected,
                result,
                on_test,
                diagnose and chosen is Style.FUNCTION,  # the search asks about positions
                interrupts,
                hidden_tier,
                started,
            )
    except CompileError as exc:
        result.verdict, result.message = Verdict.CE, result.message + str(exc)
        result.tests = []
    except _ProgressFailed as exc:
        raise (exc.__cause__ or exc) from None  # _report always sets the cause
    except INFRASTRUCTURE_ERRORS:
        raise  # the sandbox could not run at all: the caller retries or reports it
    except interrupts:
        raise
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
    program: Program,
    sandbox: Sandbox,
    deadline: float,
    planned: list[PlannedTest],
    expected: list[Future | None],
    result: GradeResult,
    on_test: Callable[[TestResult], None] | None,
    diagnose: bool,
    interrupts: tuple[type[BaseException], ...],
    send_hidden: SendHiddenTier | None,
    started: float,
) -> list[Runner | StdioRunner]:
    """Run the visible tier, then the hidden tier, each in sandboxes of its own; returns the
    visible tier's runner (the only one whose figures a student may see) first."""
    stopped = False
    output_left = SUBMISSION_OUTPUT_CHARS

    def keep_output(test: TestResult) -> None:
        """Cut the test's printed output to what the submission's budget has left."""
        nonlocal output_left
        printed = len(test.stdout) + len(test.stderr)
        if printed > output_left:
            test.stdout = test.stdout[:output_left]
            test.stderr = test.stderr[: output_left - len(test.stdout)]
            test.output_cut = True
        output_left -= len(test.stdout) + len(test.stderr)

    def answer_of(index: int) -> Any:
        test = planned[index]
        pending = expected[index]
        if pending is not None:
            test.expected, expected[index] = pending.result(), None
        return test.expected

    def finish_test(test_result: TestResult, outcome: Outcome) -> bool:
        nonlocal stopped
        keep_output(test_result)
        result.tests.append(test_result)
        _report(on_test, test_result)
        stopped = outcome.ends_the_rest
        return not stopped

    def judge_test(index: int, outcome: Outcome) -> bool:
        test = planned[index]
        want = answer_of(index)
        if outcome.verdict is Verdict.AC:
            ok, message = module.check(test.case, want, outcome.got)
            if not ok:
                outcome.verdict, outcome.message = Verdict.WA, message
        return finish_test(test_result(index, test, outcome), outcome)

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
        if group.tried < group.count:
            # The tier's other positions no longer count: end this process rather than let it
            # answer them (a JVM overflowing its stack on each would spend seconds); the next
            # one resumes past the tier (resume() below).
            outcome.fatal = True
        return finish_test(_small_result(module, group, test, want, outcome), outcome)

    time_s = module.LIMITS.time_s
    runners: list[Runner | StdioRunner] = []
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

        runs = not stopped and bool(cases)
        if runs and hidden_tier:
            result.hidden_after_ms = round((time.monotonic() - started) * 1000, 3)
        if runs and hidden_tier and send_hidden is not None:
            tier_sent = HiddenTier(
                module.SLUG,
                program.language.name,
                program.style.value,
                program.source.decode("utf-8"),
                cases,
                time_s,
                max(deadline - time.monotonic(), 0.0),
            )
            for k, outcome in enumerate(send_hidden(tier_sent)[: len(cases)]):
                if not judge_one(k, outcome):
                    break
        elif runs:
            # The hidden tier's source was compiled by the visible tier's first process.
            # Printed output is kept for visible tests only (a hidden run's output could carry
            # its inputs).
            runner = runner_for(
                module,
                program,
                sandbox,
                time_s,
                deadline,
                compile_checked=hidden_tier,
                capture_output=not hidden_tier,
                hidden_input=hidden_tier,
            )
            if isinstance(runner, StdioRunner):
                runner.batches = partial(_batch_end, owners)
            elif not hidden_tier:
                runner.ahead = partial(_small_tier_end, owners)
            runners.append(runner)
            runner.run(cases, judge_one, resume)
            deadline += runner.phase_wait_s  # waiting for the phase lock is not its time
        if not hidden_tier:
            # Before any process holds a hidden input: nothing a student reads may come from a
            # run after one did (it could have left a trace a later run picks up).
            shrink_first_failure(module, program, sandbox, planned, result, time_s, interrupts)
            if diagnose:
                diagnose_first_failure(module, program, sandbox, result, interrupts)

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


def _batch_end(
    owners: Sequence[tuple[int, _SmallGroup | None, int]], start: int, count: int
) -> int:
    """Where a stdio run starting at case `start` ends: up to BATCH tests, or up to
    SMALL_BATCH positions of the small tier, never both in one run."""
    group = owners[start][1]
    if group is not None:
        return min(group.first + group.count, start + SMALL_BATCH, count)
    end = start + 1
    while end < min(start + BATCH, count) and owners[end][1] is None:
        end += 1
    return end


def _small_tier_end(owners: Sequence[tuple[int, _SmallGroup | None, int]], k: int) -> int:
    """A function-style run's tests are handed over one at a time, except the small tier's
    positions, the judge's own and reported as one test: together, up to the tier's end."""
    group = owners[k][1]
    return k + 1 if group is None else group.first + group.count


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
        **_output(TestKind.SMALL, outcome),  # the last position's: the failing one, if any
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


def test_result(index: int, test: PlannedTest, outcome: Outcome) -> TestResult:
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
        **_output(test.kind, outcome),
    )


def _output(kind: TestKind, outcome: Outcome) -> dict[str, Any]:
    """The printed output a test result may carry: a visible test's, never a hidden one's."""
    if not kind.visible:
        return {}
    return {"stdout": outcome.stdout, "stderr": outcome.stderr, "output_cut": outcome.output_cut}


def _finish(
    result: GradeResult, started: float, runners: Sequence[Runner | StdioRunner] = ()
) -> GradeResult:
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

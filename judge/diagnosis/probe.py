"""Where is the bug, asked of the submission itself: `judge.diagnosis.tree_search` run below
the first failing visible test, each batch of positions one run of the submission in the
visible sandbox.

Only visible tests are searched from, and the search runs before any process holds a hidden
input, so what it shows (positions, the submission's answers) comes from the visible side.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from judge.answers import Opaque
from judge.diagnosis.tree_search import UNKNOWN, Diagnosis, Stopped, diagnose, offers_diagnosis
from judge.execution.budget import DIAGNOSIS_BUDGET_S
from judge.execution.build import BuildCache, built
from judge.execution.program import Program
from judge.execution.runners import Outcome
from judge.execution.runners.function import FunctionRunner
from judge.languages import NotOffered, Style, resolve
from judge.problems import Case, ProblemSpec
from judge.sandbox import Sandbox
from judge.verdict import GradeResult, Verdict

log = logging.getLogger(__name__)

MAX_CALLS = 300
CALL_TIME_S = 2.0  # per position: the search's positions are no larger than the failing one


class NoAnswer:
    """A position the submission did not answer: it raised, ran out of time or memory."""

    def __init__(self, outcome: Outcome) -> None:
        if outcome.verdict is Verdict.RE:
            error = outcome.message.split(":", 1)[0].split("\n", 1)[0].strip()
            self.text = f"raised {error}" if error.isidentifier() else "crashed"
        elif outcome.verdict is Verdict.TLE:
            self.text = "ran out of time"
        elif outcome.verdict is Verdict.MLE:
            self.text = "ran out of memory"
        else:
            self.text = "gave no answer"

    def __str__(self) -> str:
        return self.text


def diagnose_first_failure(
    module: ProblemSpec,
    program: Program,
    sandbox: Sandbox,
    result: GradeResult,
    interrupts: tuple[type[BaseException], ...] = (),
) -> None:
    """Attach a diagnosis to the first failing visible test, when it is a wrong answer or an
    error and the problem offers the search. Starts from the shrunk counterexample when there
    is one: the smaller the position, the shorter the way down."""
    failing = next((t for t in result.tests if t.verdict is not Verdict.AC), None)
    if (
        failing is None
        or not failing.kind.visible
        or failing.verdict not in (Verdict.WA, Verdict.RE)
        or not offers_diagnosis(module)
        or program.style != "function"  # a whole program answers its input, not a position
    ):
        return
    shown = failing.counterexample or failing
    if shown.input is None:
        return
    got = _graded_answer(shown.verdict, shown.message, shown.got)
    try:
        found = search(module, program, sandbox, shown.input, got)
    except interrupts:
        raise  # the caller stops the grading (a task's soft time limit)
    except Exception:
        log.exception("searching for where the bug is failed")  # the verdict stands without it
        return
    failing.diagnosis = None if found is None else found.to_json()


def _graded_answer(verdict: Verdict, message: str, got: Any) -> Any:
    """The answer a graded test recorded, as the search compares answers: an int as it is,
    another returned value as an Opaque, an error as a NoAnswer."""
    if verdict is not Verdict.WA:
        return NoAnswer(Outcome(verdict, message))
    if isinstance(got, dict) and isinstance(got.get("type"), str):
        return Opaque(got["type"], str(got.get("repr", "")))
    return got


def search(
    module: ProblemSpec,
    program: Program | bytes,
    sandbox: Sandbox,
    case: Case,
    got: Any = UNKNOWN,
    *,
    language: str = "python",
    style: str = "function",
    build_cache: BuildCache | None = None,
) -> Diagnosis | None:
    """Run the search below `case`, on which the submission answered `got` (asked again
    when not given), asking the submission in the sandbox. `program`: a program a grading
    built (judge/execution/build.py), or a source in `language`, built here. Only function-style
    programs answer for any position: another style is refused (NotOffered)."""
    if isinstance(program, bytes):
        plugin, chosen = resolve(module, language, style)
        with built(module, plugin, chosen, program, sandbox, build_cache) as runnable:
            return search(module, runnable, sandbox, case, got)
    if program.style is not Style.FUNCTION:
        raise NotOffered("where is the bug is searched for function-style programs only")
    runnable = program
    deadline = time.monotonic() + DIAGNOSIS_BUDGET_S
    call_time_s = min(module.LIMITS.time_s, CALL_TIME_S)

    def ask(cases: Sequence[Case]) -> list[Any]:
        got: list[Any] = [None] * len(cases)
        # The source compiled in the graded run: a compile error reported now is forged.
        runner = FunctionRunner(
            module, runnable, sandbox, call_time_s, deadline, compile_checked=True
        )

        def record(index: int, outcome: Outcome) -> bool:
            got[index] = outcome.got if outcome.verdict is Verdict.AC else NoAnswer(outcome)
            return True

        runner.run([dict(c) for c in cases], record)
        if any(isinstance(g, NoAnswer) and g.text == "ran out of time" for g in got):
            # Past the budget every position "times out": no conclusion from that.
            raise Stopped
        return got

    return diagnose(
        module, case, ask, got=got, dive=True, max_calls=MAX_CALLS, budget_s=DIAGNOSIS_BUDGET_S
    )

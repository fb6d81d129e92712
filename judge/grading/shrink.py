"""Shrinking: a failing random board or worst case replaced by a smallest board the submission
still fails, so the student debugs the simplest counterexample there is.
"""

from __future__ import annotations

import logging
import time
from itertools import islice

from judge import answers
from judge.execution.budget import SHRINK_BUDGET_S
from judge.execution.program import Program
from judge.execution.runners import Outcome, Together, runner_for
from judge.grading.plan import PlannedTest
from judge.problems import ProblemSpec
from judge.sandbox import Sandbox
from judge.verdict import Counterexample, GradeResult, TestKind, TestResult, Verdict

log = logging.getLogger(__name__)

SHRINK_ROUNDS = 30
SHRINK_CANDIDATES = 40  # candidates tried per round, in one sandboxed run


def shrink_first_failure(
    module: ProblemSpec,
    program: Program,
    sandbox: Sandbox,
    planned: list[PlannedTest],
    result: GradeResult,
    time_s: float,
    interrupts: tuple[type[BaseException], ...] = (),
) -> None:
    """A failing random board or worst case (the first failure so far) shrunk to a smallest
    failing one. (A failing small position is shown as it is: nothing is smaller.)"""
    failing = next((t for t in result.tests if t.verdict is not Verdict.AC), None)
    shrinkable = (TestKind.RANDOM, TestKind.WORST)
    if failing and failing.kind in shrinkable and failing.verdict in (Verdict.WA, Verdict.RE):
        try:
            failing.counterexample = shrink(
                module, program, sandbox, planned[failing.index], failing, time_s
            )
        except interrupts:
            raise  # the caller stops the grading (a task's soft time limit)
        except Exception:
            log.exception("shrinking a counterexample failed")  # the verdict stands without it


def shrink(
    module: ProblemSpec,
    program: Program,
    sandbox: Sandbox,
    test: PlannedTest,
    failing: TestResult,
    time_s: float,
) -> Counterexample:
    """Greedily replace the failing case by a smaller one the submission still fails (run as
    `program`: its language and style, compiled once by the grading)."""
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

        # A round's candidates go together: each is smaller than a case already run.
        runner = runner_for(
            module, program, sandbox, min(time_s, 2.0), deadline, together=_all(len(candidates))
        )
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


def _all(count: int) -> Together:
    return lambda k: count

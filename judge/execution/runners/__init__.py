"""Runners: a program run on a list of cases in the sandbox, each answer read and turned into
an `Outcome`. `runner_for` picks the runner of the program's style: the harness protocol for
functions (function.py) or whole programs on stdin and stdout (stdio.py). Both are a `Runner`
(base.py) and run alike, so grading, runs, shrinking and the search for the bug take either."""

from __future__ import annotations

from judge.execution.program import Program
from judge.execution.runners.base import Outcome, Runner, Together
from judge.execution.runners.function import FunctionRunner
from judge.execution.runners.stdio import StdioRunner
from judge.languages.base import Style
from judge.problems import ProblemSpec
from judge.sandbox import Sandbox

__all__ = ["Outcome", "Runner", "Together", "runner_for"]


def runner_for(
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
) -> Runner:
    """`hidden_input`: the cases are hidden boards: the runs take the hidden phase of the
    phase lock (judge/sandbox/phase.py), with less wall time to spend asleep. The other
    options are the Runner's (base.py)."""
    kind = StdioRunner if program.style is Style.STDIO else FunctionRunner
    return kind(
        problem,
        program,
        sandbox,
        time_s,
        deadline,
        compile_checked=compile_checked,
        capture_output=capture_output,
        hidden_input=hidden_input,
        together=together,
        batches=batches,
    )

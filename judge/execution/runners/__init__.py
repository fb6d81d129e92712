"""The runner of a program's style: the harness protocol for functions
(judge/execution/runners/function.py) or whole programs on stdin and stdout
(judge/execution/runners/stdio.py). Both run(cases, judge_one, resume) alike, so grading, runs and
shrinking take either."""

from __future__ import annotations

from judge.execution.program import Program
from judge.execution.runners.function import Runner
from judge.execution.runners.stdio import StdioRunner
from judge.problems import Problem
from judge.sandbox import Sandbox


def runner_for(
    problem: Problem,
    program: Program,
    sandbox: Sandbox,
    time_s: float,
    deadline: float,
    compile_checked: bool = False,
    capture_output: bool = False,
    hidden_input: bool = False,
) -> Runner | StdioRunner:
    """`hidden_input`: the cases are hidden boards: the runs take the hidden phase of the
    phase lock (judge/sandbox/phase.py), with less wall time to spend asleep."""
    if program.style == "stdio":
        return StdioRunner(
            problem, program, sandbox, time_s, deadline, capture_output, hidden_input=hidden_input
        )
    return Runner(
        problem, program, sandbox, time_s, deadline, compile_checked, capture_output, hidden_input
    )

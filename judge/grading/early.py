"""A hidden tier's process started while the grading still loads: a command line grading
only hidden boards (`--plan boards`) spends most of its 0.2 s loading, and the sandboxed
interpreter's start (about 40 ms) can run meanwhile on the other core (issue 24).

    if start_hidden_tier_early(problem, language, style, source, sandbox):
        ...  # the grading's imports; grade() takes the process (Sandbox.start_early)

grade() asks the sandbox for exactly this process (judge/execution/runners/function.py,
`process_of`): the first of the hidden tier, all of the grading's budget left. When it asks
for anything else the early process is ended and a fresh one started, as if there were none.
"""

from __future__ import annotations

from judge.execution.program import Program
from judge.execution.runners.function import process_of
from judge.languages.base import Language, Style
from judge.problems import ProblemSpec
from judge.sandbox import Sandbox


def start_hidden_tier_early(
    problem: ProblemSpec, language: Language, style: Style, source: bytes, sandbox: Sandbox
) -> bool:
    """Start the first process of the hidden tier of a grading of `source` whose plan has no
    visible test, where it is known before the grading runs: a function-style program that
    needs no build (Python's). False when there is nothing to start early."""
    # A compiled language's build_command takes what its prepare_build makes (judge/execution/
    # build.py), and asked without it would make that here: the C++ runtime, about 0.6 s.
    if style is not Style.FUNCTION or hasattr(language, "prepare_build"):
        return False
    if language.build_command(problem, style, source) is not None:
        return False
    program = Program(language, style, source)
    command, limits = process_of(problem, program, 0, problem.LIMITS.total_s, False)
    sandbox.start_early(command, limits, hidden=True)
    return True

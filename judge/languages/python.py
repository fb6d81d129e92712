"""Python 3: the source runs as it is, on the sandbox's own interpreter (no compile step).

Function style: judge/languages/drivers/harness.py loads solution.py and calls `solution` per test
(the harness protocol), each test a JSON list of the arguments on the tests channel. Stdio style:
solution.py is the whole program, run with unbuffered stdout so each answer reaches the judge when
it is printed (a time-out then keeps the answers before it); a syntax check in the sandbox stands
in for compiling, so a syntax error is CE there too.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from judge.answers import BOOL, INT, LONG, STR
from judge.languages import drivers, kept_answers
from judge.languages.base import RunRequest, Style, ask_tool
from judge.problems import Case, ProblemSpec
from judge.sandbox.command import Command
from judge.sandbox.config import default_python
from judge.sandbox.limits import RunLimits

SOURCE = "solution.py"
INTERPRETER = ("{python}", "-I", "-S", "-B")

# Compiles solution.py without running it: a SyntaxError (or a NUL byte, bad UTF-8) is the
# build's failure, reported with the file name and line only.
SYNTAX_CHECK = b"""\
import sys
try:
    with open("solution.py", "rb") as f:
        compile(f.read(), "solution.py", "exec", dont_inherit=True)
except SyntaxError as exc:
    where = f"line {exc.lineno}" if exc.lineno else "unknown line"
    sys.stderr.write(f"solution.py, {where}: SyntaxError: {exc.msg}\\n")
    sys.exit(1)
except (UnicodeDecodeError, ValueError) as exc:
    sys.stderr.write(f"solution.py: unreadable source: {exc}\\n")
    sys.exit(1)
"""


@cache  # read once per process, not once per sandboxed run
def harness_source() -> bytes:
    return resources.files(drivers).joinpath("harness.py").read_bytes()


class Python:
    name = "python"
    title = "Python 3"
    extensions = (".py",)
    source_name = SOURCE
    highlight = "python"
    time_factor = 1.0
    time_extra_s = 0.0
    memory_extra_mb = 0
    reports_batches = True  # the harness answers {"batch": k} in one reply

    def version(self) -> str:
        return _version()

    def template(self, problem: ProblemSpec, style: Style) -> str:
        if style is Style.STDIO:
            return (
                "import sys\n\n\ndef main():\n    data = sys.stdin.read().split()\n"
                "    cases = int(data[0])\n    # read each case, print one answer per line\n\n\n"
                "main()\n"
            )
        params = ", ".join(problem.PARAMS)
        zero = {INT: "0", LONG: "0", BOOL: "False", STR: '""'}.get(problem.ANSWER, "[]")
        return f"def solution({params}):\n    return {zero}\n"

    def build_command(self, problem: ProblemSpec, style: Style, source: bytes) -> Command | None:
        if style is Style.FUNCTION:
            return None  # the harness compiles it and reports a compile_error event
        return Command(
            argv=(*INTERPRETER, "/box/check.py"),
            files={"check.py": SYNTAX_CHECK, SOURCE: source},
        )

    def build_limits(self) -> RunLimits:
        return RunLimits(cpu_s=5.0, wall_s=10.0, memory_bytes=256 << 20, output_bytes=64 << 10)

    def run_command(self, request: RunRequest) -> Command:
        if request.style is Style.STDIO:
            return Command(
                argv=(*INTERPRETER, "-u", f"/box/{SOURCE}"), files={SOURCE: request.source}
            )
        return Command(
            argv=(*INTERPRETER, "/box/harness.py", *request.driver_args()),
            files={"harness.py": harness_source(), SOURCE: request.source},
            input_pipe=True,
        )

    def test_line(self, problem: ProblemSpec, case: Case) -> bytes:
        return (json.dumps([case[name] for name in problem.PARAMS]) + "\n").encode()

    def run_limits(self, base: RunLimits) -> RunLimits:
        return base

    def clean_compile_message(self, text: str) -> str:
        # The syntax check names only solution.py; nothing else reaches it.
        return text.strip()


@cache
def _version() -> str:
    # platform.python_version() is this first word of sys.version; importing platform
    # doubled the question's time (12.4 ms vs 5.7 ms, once per `python -m judge grade`).
    asked = "import sys; print(sys.version.split()[0])"
    python = default_python()
    said = kept_answers.answers(
        "python3",
        python,
        [asked],
        lambda code: ask_tool([python, "-I", "-S", "-c", code], "python3"),
    )
    return "Python " + said[asked]


LANGUAGE = Python()

"""The language plug-in contract: what a language module provides so that a problem, written
once with a typed signature, can be graded in it (see docs/ARCHITECTURE.md, "Languages").

A language module in this package defines one object `LANGUAGE` following `Language`. Nothing
in it names a problem: drivers and templates are generated from the problem's PARAMS,
PARAM_TYPES and ANSWER (and, for the stdio style, its input format).

Two styles:
- FUNCTION: the student writes `solution(...)` (a function, or a method of class Solution on
  the JVM); the language's driver reads one test at a time on its tests channel (one line in the
  language's `test_line` form, which the judge writes once it has read the report of the test
  before), calls it and reports on the results channel with the harness protocol of
  judge/languages/drivers/harness.py (ready / result / error events, answers in the kinds
  judge/answers.py decodes), until the channel ends. The judge outside decides verdicts.
- STDIO: the student writes a whole program reading the problem's input format on stdin and
  writing one answer line per case on stdout; stdout is the results channel.

Compiling (when `build_command` returns a command) runs in the sandbox with BUILD limits and writes
the artifact under /box/out; judge/execution/build.py caches it by (language, toolchain version,
hash of everything compiled) and hands the directory to `run_command` as `artifact`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from judge.problems import Case, ProblemSpec
from judge.sandbox.command import Command
from judge.sandbox.limits import RunLimits

log = logging.getLogger(__name__)


class Style(StrEnum):
    FUNCTION = "function"
    STDIO = "stdio"


@dataclass(frozen=True)
class RunRequest:
    """One sandboxed run of a built submission. Function style: its tests come one at a time
    on the tests channel (`Command.input_pipe`), the first numbered `start`; stdio style: the
    runner gives the program its stdin."""

    problem: ProblemSpec
    style: Style
    source: bytes
    artifact: str | None  # host directory of the compiled artifact; None when not compiled
    start: int = 0
    capture_output: bool = False  # function style: report what each call printed

    def driver_args(self) -> tuple[str, ...]:
        """A function-style driver's arguments (the protocol of languages/drivers/harness.py)."""
        output = ("--output",) if self.capture_output else ()
        channels = ("--results-fd", "{results_fd}", "--tests-fd", "{input_fd}")
        return (*channels, "--start", str(self.start), *output)


class Language(Protocol):
    name: str  # the API and CLI value: "python", "cpp", "java", "kotlin"
    title: str  # shown on pages: "C++17"
    extensions: tuple[str, ...]  # upload file name endings, first is the canonical one
    source_name: str  # the submission's file name in the sandbox and in messages
    highlight: str  # the editor's syntax mode
    # Fairness: the problem's time limit is multiplied by time_factor, plus time_extra_s per
    # process start (a JVM's start), and memory_extra_mb is added to its memory limit.
    time_factor: float
    time_extra_s: float
    memory_extra_mb: int
    # The function-style driver answers a {"batch": k} line (k tests) in one reply, as the
    # harness protocol of judge/languages/drivers/harness.py says; else tests go one at a time.
    reports_batches: bool

    def version(self) -> str:
        """The toolchain's version ("g++ 12.2.0"); raises LanguageUnavailable when missing."""
        ...

    def template(self, problem: ProblemSpec, style: Style) -> str:
        """A starting source: the signature (function style) or a reading loop (stdio)."""
        ...

    def build_command(self, problem: ProblemSpec, style: Style, source: bytes) -> Command | None:
        """The compile step (writes under /box/out), or None when the language runs the
        source directly. Every file compiled (source plus generated driver) is in
        `Command.files`: the build cache keys on them."""
        ...

    def build_limits(self) -> RunLimits:
        """Limits of the compile step."""
        ...

    def run_command(self, request: RunRequest) -> Command:
        """The run of the tests from `request.start` on (function style: with `input_pipe`,
        the tests channel)."""
        ...

    def test_line(self, problem: ProblemSpec, case: Case) -> bytes:
        """One test as the function-style driver reads it on its tests channel: one line,
        ending in a newline."""
        ...

    def run_limits(self, base: RunLimits) -> RunLimits:
        """The run's limits from the problem's (`base`): more processes and no RLIMIT_AS for
        a JVM, for example."""
        ...

    def clean_compile_message(self, text: str) -> str:
        """The compiler's message as a student may see it: only the submission's file name
        and line numbers, never a path of the judge or the toolchain."""
        ...


class LanguageUnavailable(RuntimeError):
    """The language's toolchain is not installed here."""


class NotOffered(ValueError):
    """A language or style a grading cannot take: refused before anything runs, with a
    message saying which are offered."""


class UnknownLanguage(NotOffered, LookupError):
    pass


def ask_tool(argv: list[str], tool: str) -> str:
    """What a toolchain program prints for a question about itself (its version, where its
    parts are), on the host, in the C locale; LanguageUnavailable when it cannot run."""
    try:
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise LanguageUnavailable(f"{tool} cannot run here: {exc}") from None


def own_temp_folder(name: str, mode: int) -> str | None:
    """This machine user's folder `name`-UID in the temporary directory, made with `mode`, for
    what the toolchains make once and keep (precompiled headers, their answers about themselves).
    None when it cannot be made, or someone else made it or can write into it: what it holds
    goes into builds, so it must be ours alone."""
    path = os.path.join(tempfile.gettempdir(), f"{name}-{os.geteuid()}")
    try:
        os.makedirs(path, mode=mode, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        log.warning("%s is not a folder of ours alone: not used", path)
        return None
    return path


def make_once(parent: str, folder: str, make: Callable[[str], str], *, keep: str = "") -> None:
    """Make what a toolchain needs once (a precompiled header, the JVM drivers' runtime) into
    `folder`, in `parent` (an own_temp_folder): `make(work)` fills a new making-* folder there
    and returns what to publish (work itself or a folder in it). That is made readable by the
    sandbox's uids and renamed into place, so a build never sees part of it (another process's
    rename first: theirs stays). Then older toolchains' folders go, all but `keep`. What `make`
    raises propagates; its work folder goes either way."""
    work = tempfile.mkdtemp(dir=parent, prefix="making-")
    try:
        made = make(work)
        for root, _dirs, names in os.walk(made):
            os.chmod(root, 0o755)  # bound into builds and runs, which run as a sandbox uid
            for name in names:
                os.chmod(os.path.join(root, name), 0o644)
        with contextlib.suppress(OSError):
            os.rename(made, folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name in os.listdir(parent):
        if name not in (os.path.basename(folder), keep) and not name.startswith("making-"):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)

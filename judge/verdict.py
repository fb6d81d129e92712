"""Verdicts and the plain results grading produces (no I/O, no framework types)."""

from __future__ import annotations

import copy
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Protocol, TypeVar


def plain(value: Any) -> Any:
    """dataclasses.asdict's result for what results hold, made four times faster (a grading's
    hundred tests took 4 ms, once per test in a worker): the dataclasses as dicts of their
    fields, lists, tuples and dicts copied, numbers, strings, enums and None as they are,
    anything else deep-copied."""
    kind = type(value)
    if kind in _AS_THEY_ARE or value is None or isinstance(value, enum.Enum):
        return value
    if kind is list:
        return [plain(item) for item in value]
    if kind is dict:
        return {plain(key): plain(item) for key, item in value.items()}
    if kind is tuple:
        return tuple(plain(item) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    return copy.deepcopy(value)


_AS_THEY_ARE = (int, float, str, bool)


class _Graded(Protocol):
    @property
    def kind(self) -> Any: ...
    @property
    def verdict(self) -> Any: ...


T = TypeVar("T", bound=_Graded)


class Verdict(enum.StrEnum):
    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    TLE = "TLE"  # time limit exceeded
    MLE = "MLE"  # memory limit exceeded
    RE = "RE"  # runtime error
    OLE = "OLE"  # output limit exceeded
    CE = "CE"  # compile error: syntax error, no callable solution, unreadable source
    IE = "IE"  # internal error: the judge failed, never the submission's fault
    SKIPPED = "SKIPPED"  # not reached within the submission's total time budget

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    Verdict.AC: "Accepted",
    Verdict.WA: "Wrong answer",
    Verdict.TLE: "Time limit exceeded",
    Verdict.MLE: "Memory limit exceeded",
    Verdict.RE: "Runtime error",
    Verdict.OLE: "Output limit exceeded",
    Verdict.CE: "Compilation error",
    Verdict.IE: "Internal error",
    Verdict.SKIPPED: "Skipped",
}


class TestKind(enum.StrEnum):
    __test__ = False  # not a pytest test class
    SAMPLE = "sample"
    SMALL = "small"  # every small position, in one group (the problem's small_cases)
    WORST = "worst"  # the longest games, fixed in every plan
    HIDDEN = "hidden"
    RANDOM = "random"
    CUSTOM = "custom"  # a student's own board, in a run (judge.run): never in a grading

    @property
    def visible(self) -> bool:
        """Hidden inputs and answers are never shown to students."""
        return self is not TestKind.HIDDEN


@dataclass
class Counterexample:
    """A failing random board shrunk to a smallest still-failing board, or the first failing
    position of the small tier."""

    input: dict[str, Any]
    expected: Any
    got: Any
    verdict: Verdict
    message: str
    explanation: dict[str, Any]  # problem.explain(input): winner and one optimal line


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class
    index: int
    kind: TestKind
    verdict: Verdict
    time_ms: float = 0.0  # CPU time of the call, as measured in the sandbox
    wall_ms: float = 0.0  # wall time of the call, measured outside the sandbox
    memory_kb: int = 0  # peak resident memory of the sandboxed process so far
    message: str = ""
    profile: str | None = None  # generator profile, for random tests
    # Only for visible tests (samples, small tier, worst cases, random boards): None for hidden.
    input: dict[str, Any] | None = None
    expected: Any = None
    got: Any = None
    counterexample: Counterexample | None = None
    # Hidden tests only: the caller's id of the board (hidden_cases' "id"), for instructors.
    board_id: Any = None
    # The small tier only: how many positions were tried (up to the first failing one, whose
    # input, expected and returned values are the test's).
    positions: int | None = None
    # Visible tests only: what the call printed, cut to
    # judge.execution.runners.function.OUTPUT_LIMIT characters per stream (output_cut says so).
    # Hidden tests never carry output.
    stdout: str = ""
    stderr: str = ""
    output_cut: bool = False
    # The first failing visible test of a function-style submission: where the bug is
    # (judge.diagnosis.tree_search.Diagnosis.to_json()), when the search found it.
    diagnosis: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return plain(self)


@dataclass
class GradeResult:
    problem: str
    verdict: Verdict
    passed: int
    total: int
    tests: list[TestResult]
    seed: int
    judge_version: str
    sandboxed: bool
    sandbox_notes: list[str] = field(default_factory=list)  # degraded protections, said aloud
    message: str = ""  # compile error text, internal error summary, unsandboxed warning
    max_time_ms: float = 0.0
    peak_memory_kb: int = 0
    wall_ms: float = 0.0
    language: str = "python"  # judge.languages: the name of the submission's language
    style: str = "function"  # "function" or "stdio" (a whole program)
    # How long after the grading began its hidden tier began (None: none ran). What comes
    # after is the hidden tier's time: students learn it only in coarse steps.
    hidden_after_ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return plain(self)


def overall_verdict(tests: list[TestResult]) -> Verdict:
    """AC when every test passes, else the first failing test's verdict."""
    for test in tests:
        if test.verdict is not Verdict.AC:
            return test.verdict
    return Verdict.AC


# What a student may see of hidden tests (instructors see everything). A hidden board runs in
# a sandbox of its own, but whatever the student can observe of that run is a channel for the
# board: so a student learns how many hidden boards passed and the verdict of the first that
# failed, nothing else: no message, answer, time or memory, and no rows after that failure.
HIDDEN_FIELDS_FOR_STUDENTS = ("index", "kind", "verdict")


def shown_to_student(tests: Sequence[T]) -> list[T]:
    """The tests (objects with `kind` and `verdict`) a student is shown, in order: every
    visible test, and the hidden tests up to and including the first failing one."""
    shown: list[T] = []
    hidden_failed = False
    for test in tests:
        if str(test.kind) == TestKind.HIDDEN:
            if hidden_failed:
                continue
            hidden_failed = str(test.verdict) != Verdict.AC
        shown.append(test)
    return shown

"""Problem plug-ins: one module per problem in this package, found and checked at load.

A problem module defines (see docs/ARCHITECTURE.md, "Problem plug-ins"):

    SLUG: str                 short id, equal to the module name
    TITLE: str
    STATEMENT: str            markdown shown to students
    PARAMS: tuple[str, ...]   argument names of `solution`, in order
    PARAM_TYPES: dict[str, ValueType]  each parameter's type (judge.answers: INT, list_of(INT))
    ANSWER: ValueType         the type `solution` returns; check() holds answers to it
    VIEW: View                how the web pages draw and edit a case (a renderer kind, bounds)
    LIMITS: Limits            per-test time, memory, total budget
    SAMPLES: list[dict]       [{"input": case, "answer": answer}, ...] from the statement
    PROFILES: dict[str, float]  generator profile -> weight in the default random plan
    RANDOM_COUNT: int         random boards in the default plan
    validate(case) -> None    raises InvalidCase with a precise message
    generate(rng, profile) -> case        seeded by the caller's random.Random
    reference(case) -> answer
    check(case, expected, got) -> (ok, message)   ANSWER.check or stricter; hides the input
    explain(case) -> dict     {"answer", "winner", "moves": [...]}: one optimal line of play
    shrink(case) -> iterable of smaller valid cases

Optional, for every plan:

    small_cases(reduced=True) -> list[case]   every position up to a size, smallest first;
                              reduced: one of each class of positions canonical() says alike
    canonical(case) -> key    equal for positions that are the same game (rotations...)
    WORST_CASES: list[case]   the longest games, fixed in every plan

Optional, for the stdin/stdout style (a whole program; judge/execution/runners/stdio.py):

    STDIO: StdioFormat        how a run's cases are written on stdin; one answer per line,
                              read by ANSWER.parse_line

Optional, for "where is the bug" (judge/diagnosis/tree_search.py):

    children(case) -> list[case]   the valid positions one move later
    COMBINE_RULE: str          how a position's value follows from theirs, in plain words

A case is a JSON object keyed by PARAMS. Adding a problem is adding one module here (and
naming it in `_conformance.py`, so the type checker proves it follows `Problem`).
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any, Protocol, cast

from judge.answers import ValueType

# A case as the plug-ins read it (they never modify one): a JSON object keyed by PARAMS.
Case = Mapping[str, Any]


class InvalidCase(ValueError):
    """A case that is malformed or outside the problem's constraints."""


class UnknownProblem(LookupError):
    pass


@dataclass(frozen=True)
class Limits:
    time_s: float  # CPU time per test
    memory_mb: int  # memory for the whole sandboxed process tree
    total_s: float  # wall budget for the whole submission; tests past it are skipped


@dataclass(frozen=True)
class View:
    """How the web pages draw, replay and edit this problem's cases. `kind` names a renderer
    and an editor of the front end (VIEWS in api/web/static/js/boards.js, EDITORS in
    board-editor.js), so a new problem drawn like an old one needs no JavaScript; `bounds`
    are the limits the editor checks before asking the judge, which checks again."""

    kind: str
    bounds: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class StdioFormat:
    """A problem's input/output format for whole programs (the stdio style): `write_input`
    turns the cases of one run into the text on its stdin (so several cases per run, as
    the judges the problem comes from do); the program writes one answer per line, each
    read by the problem's ANSWER type (`ValueType.parse_line`). `statement` describes the
    format for the problem page."""

    write_input: Callable[[Sequence[Case]], str]
    statement: str = ""


def offered_styles(problem: Problem) -> tuple[str, ...]:
    """The styles a problem is graded in: "function" always (every problem has a typed
    signature), "stdio" when it declares an input/output format."""
    return ("function", "stdio") if getattr(problem, "STDIO", None) is not None else ("function",)


def stdio_input(problem: Problem, cases: Sequence[Case]) -> bytes:
    """The stdin of one stdio-style run on `cases`."""
    stdio: StdioFormat | None = getattr(problem, "STDIO", None)
    if stdio is None:
        raise ValueError(f"{problem.SLUG} declares no stdin/stdout format")
    return stdio.write_input(cases).encode()


class Problem(Protocol):
    """The contract of a problem plug-in module, as the rest of the judge sees it.

    The optional members (small_cases, canonical, WORST_CASES) are not declared here: a
    Protocol cannot say "maybe present", so their callers ask with getattr/hasattr."""

    # Read-only here (properties), so a module's more precise types fit (a tuple of three
    # names is a tuple[str, ...]).
    @property
    def SLUG(self) -> str: ...
    @property
    def TITLE(self) -> str: ...
    @property
    def STATEMENT(self) -> str: ...
    @property
    def PARAMS(self) -> tuple[str, ...]: ...
    @property
    def PARAM_TYPES(self) -> Mapping[str, ValueType]: ...
    @property
    def ANSWER(self) -> ValueType: ...
    @property
    def VIEW(self) -> View: ...
    @property
    def LIMITS(self) -> Limits: ...
    @property
    def SAMPLES(self) -> Sequence[Mapping[str, Any]]: ...  # {"input": case, "answer": answer}
    @property
    def PROFILES(self) -> Mapping[str, float]: ...
    @property
    def RANDOM_COUNT(self) -> int: ...

    def __hash__(self) -> int: ...  # module objects are: the small tier is cached per problem
    def validate(self, case: Any) -> None: ...
    def generate(self, rng: random.Random, profile: str) -> dict[str, Any]: ...
    def reference(self, case: Case) -> Any: ...
    def check(self, case: Case, expected: Any, got: Any) -> tuple[bool, str]: ...
    def explain(self, case: Case) -> dict[str, Any]: ...
    def shrink(self, case: Case) -> Iterable[dict[str, Any]]: ...


REQUIRED = {
    "SLUG": str,
    "TITLE": str,
    "STATEMENT": str,
    "PARAMS": tuple,
    "PARAM_TYPES": dict,
    "ANSWER": ValueType,
    "VIEW": View,
    "LIMITS": Limits,
    "SAMPLES": list,
    "PROFILES": dict,
    "RANDOM_COUNT": int,
}
REQUIRED_FUNCTIONS = ("validate", "generate", "reference", "check", "explain", "shrink")


def check_contract(module: ModuleType) -> None:
    """Refuse a plug-in that does not follow the contract, naming what is wrong."""
    name = module.__name__.rsplit(".", 1)[-1]
    for attr, kind in REQUIRED.items():
        value = getattr(module, attr, None)
        if not isinstance(value, kind):
            raise TypeError(f"problem {name}: {attr} must be a {kind.__name__}")
    for attr in REQUIRED_FUNCTIONS:
        if not callable(getattr(module, attr, None)):
            raise TypeError(f"problem {name}: {attr}() is missing")
    if name != module.SLUG:
        raise TypeError(f"problem {name}: SLUG {module.SLUG!r} differs from the module name")
    if not module.PROFILES or any(w <= 0 for w in module.PROFILES.values()):
        raise TypeError(f"problem {name}: PROFILES needs positive weights")
    if tuple(module.PARAM_TYPES) != module.PARAMS:
        raise TypeError(f"problem {name}: PARAM_TYPES must name PARAMS, in order")
    if not all(isinstance(t, ValueType) for t in module.PARAM_TYPES.values()):
        raise TypeError(f"problem {name}: PARAM_TYPES values must be judge.answers types")
    if not module.VIEW.kind:
        raise TypeError(f"problem {name}: VIEW needs a kind")
    for sample in module.SAMPLES:
        module.validate(sample["input"])
        _check_types(module, sample["input"])
        if not module.ANSWER.accepts(sample["answer"]):
            raise TypeError(f"problem {name}: a sample answer is not of type {module.ANSWER}")
    stdio = getattr(module, "STDIO", None)
    if stdio is not None and not isinstance(stdio, StdioFormat):
        raise TypeError(f"problem {name}: STDIO must be a StdioFormat")
    if hasattr(module, "small_cases") != hasattr(module, "canonical"):
        raise TypeError(f"problem {name}: small_cases() needs canonical() and back")
    for case in getattr(module, "WORST_CASES", ()):
        module.validate(case)
        _check_types(module, case)


def _check_types(module: ModuleType, case: Case) -> None:
    """Every argument of a known-good case has the type its parameter declares."""
    for param, declared in module.PARAM_TYPES.items():
        if not declared.accepts(case[param]):
            raise TypeError(
                f"problem {module.SLUG}: {param} of {dict(case)} is not of type {declared}"
            )


@cache
def registry() -> dict[str, Problem]:
    found: dict[str, Problem] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        check_contract(module)
        # check_contract has just verified at run time what the cast claims.
        found[module.SLUG] = cast(Problem, module)
    return found


def get(slug: str) -> Problem:
    try:
        return registry()[slug]
    except KeyError:
        known = ", ".join(registry()) or "none"
        raise UnknownProblem(f"unknown problem {slug!r} (known: {known})") from None

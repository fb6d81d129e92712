"""The typed spec of a problem, built once when it is loaded: what every problem has, and its
optional capabilities (the small tier, the worst cases, the stdio style, the game tree that
"where is the bug" searches) as typed fields, so no caller has to ask whether one is there.

A problem plug-in is a module (judge/problems/__init__.py says what it defines);
`ProblemSpec.from_module` checks it against the contract, naming what is wrong, and reads it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from judge.answers import ValueType

# A case as the problems read it (they never modify one): a JSON object keyed by PARAMS.
Case = Mapping[str, Any]


class InvalidCase(ValueError):
    """A case that is malformed or outside the problem's constraints."""


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


@dataclass(frozen=True)
class SmallTier:
    """Every position up to a size, smallest first: `cases(reduced=True)` keeps one of each
    class of positions `canonical` says are the same game (rotations, mirror images...)."""

    cases: Callable[..., list[dict[str, Any]]]
    canonical: Callable[[Case], Hashable]


@dataclass(frozen=True)
class GameTree:
    """What "where is the bug" searches: the valid positions one move later, and how a
    position's value follows from theirs, in plain words (may be empty)."""

    children: Callable[[Case], list[Case]]
    combine_rule: str = ""


# What every problem module defines, and of which type.
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


# eq=False: one spec per problem, hashed by identity (the small tier is cached per problem).
@dataclass(frozen=True, eq=False)
class ProblemSpec:
    SLUG: str  # short id
    TITLE: str
    STATEMENT: str  # markdown shown to students
    PARAMS: tuple[str, ...]  # argument names of `solution`, in order
    PARAM_TYPES: Mapping[str, ValueType]  # each parameter's type, in PARAMS order
    ANSWER: ValueType  # the type `solution` returns; check() holds answers to it
    VIEW: View
    LIMITS: Limits
    SAMPLES: Sequence[Mapping[str, Any]]  # {"input": case, "answer": answer}
    PROFILES: Mapping[str, float]  # generator profile -> weight in the default random plan
    RANDOM_COUNT: int  # random boards in the default plan
    validate: Callable[[Any], None]  # raises InvalidCase with a precise message
    generate: Callable[[random.Random, str], dict[str, Any]]
    reference: Callable[[Case], Any]
    check: Callable[[Case, Any, Any], tuple[bool, str]]  # (ok, message); hides the input
    explain: Callable[[Case], dict[str, Any]]  # one optimal line of play
    shrink: Callable[[Case], Iterable[dict[str, Any]]]  # smaller valid cases
    # Optional capabilities: None (or empty) when the problem does not offer them.
    small_tier: SmallTier | None = None
    WORST_CASES: tuple[dict[str, Any], ...] = ()  # the longest games, fixed in every plan
    STDIO: StdioFormat | None = None  # the stdin/stdout style's format
    game_tree: GameTree | None = None
    # The reference on many cases at once (a package's answers in one round trip to its
    # host); None: `reference` on each. Callers use `answers`.
    batch_reference: Callable[[Sequence[Case]], list[Any]] | None = None

    def answers(self, cases: Sequence[Case]) -> list[Any]:
        """The reference's answers to `cases`, in order."""
        if self.batch_reference is not None:
            return self.batch_reference(cases)
        return [self.reference(case) for case in cases]

    @property
    def styles(self) -> tuple[str, ...]:
        """ "function" always (every problem has a typed signature), "stdio" when it declares
        an input/output format."""
        return ("function", "stdio") if self.STDIO is not None else ("function",)

    @classmethod
    def from_module(cls, module: ModuleType) -> ProblemSpec:
        """The spec of a plug-in module; TypeError naming what breaks the contract."""
        name = module.__name__.rsplit(".", 1)[-1]
        _check_contract(name, module)
        small = None
        if hasattr(module, "small_cases"):
            small = SmallTier(module.small_cases, module.canonical)
        children = getattr(module, "children", None)
        spec = cls(
            **{attr: getattr(module, attr) for attr in (*REQUIRED, *REQUIRED_FUNCTIONS)},
            small_tier=small,
            WORST_CASES=tuple(getattr(module, "WORST_CASES", ())),
            STDIO=getattr(module, "STDIO", None),
            game_tree=None
            if children is None
            else GameTree(children, getattr(module, "COMBINE_RULE", "")),
        )
        _check_cases(spec)
        return spec


def _check_contract(name: str, module: ModuleType) -> None:
    for attr, kind in REQUIRED.items():
        if not isinstance(getattr(module, attr, None), kind):
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
    stdio = getattr(module, "STDIO", None)
    if stdio is not None and not isinstance(stdio, StdioFormat):
        raise TypeError(f"problem {name}: STDIO must be a StdioFormat")
    if hasattr(module, "small_cases") != hasattr(module, "canonical"):
        raise TypeError(f"problem {name}: small_cases() needs canonical() and back")
    children = getattr(module, "children", None)
    if children is not None and not callable(children):
        raise TypeError(f"problem {name}: children must be a function")


def _check_cases(spec: ProblemSpec) -> None:
    """The samples and the worst cases are valid, and of the declared types."""
    for sample in spec.SAMPLES:
        spec.validate(sample["input"])
        _check_types(spec, sample["input"])
        if not spec.ANSWER.accepts(sample["answer"]):
            raise TypeError(f"problem {spec.SLUG}: a sample answer is not of type {spec.ANSWER}")
    for case in spec.WORST_CASES:
        spec.validate(case)
        _check_types(spec, case)


def _check_types(spec: ProblemSpec, case: Case) -> None:
    """Every argument of a known-good case has the type its parameter declares."""
    for param, declared in spec.PARAM_TYPES.items():
        if not declared.accepts(case[param]):
            raise TypeError(
                f"problem {spec.SLUG}: {param} of {dict(case)} is not of type {declared}"
            )

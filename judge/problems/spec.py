"""The typed spec of a problem, built once when it is loaded: what every problem has, and its
optional capabilities (the small tier, the worst cases, the stdio style, the game tree that
"where is the bug" searches) as typed fields, so no caller has to ask whether one is there.

A problem package becomes one in judge/problems/bind.py: the declarations from its
problem.toml, the functions through its problem.py's code (hosted in the sandbox, or imported
for a built-in package).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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

"""Problem plug-ins: one module per problem in this package, found and checked at load.

A problem module defines (see docs/ARCHITECTURE.md, "Problem plug-ins"):

    SLUG: str                 short id, equal to the module name
    TITLE: str
    STATEMENT: str            markdown shown to students
    PARAMS: tuple[str, ...]   argument names of `solution`, in order
    PARAM_TYPES: dict[str, ValueType]  each parameter's type (judge.answers: INT, LONG, BOOL,
                              STR, list_of(INT)...)
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

A case is a JSON object keyed by PARAMS. Adding a problem is adding one module here. The
registry checks each module and reads it into a `ProblemSpec` (spec.py), the typed object the
rest of the judge works with: an optional member becomes a typed field, None or empty when
the module does not define it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from functools import cache

from judge.problems.spec import (
    Case,
    GameTree,
    InvalidCase,
    Limits,
    ProblemSpec,
    SmallTier,
    StdioFormat,
    View,
)

__all__ = [
    "Case",
    "GameTree",
    "InvalidCase",
    "Limits",
    "ProblemSpec",
    "SmallTier",
    "StdioFormat",
    "UnknownProblem",
    "View",
    "get",
    "registry",
    "stdio_input",
]


# Modules of this package that are not problems.
NOT_PROBLEMS = frozenset({"spec"})


class UnknownProblem(LookupError):
    pass


def stdio_input(problem: ProblemSpec, cases: Sequence[Case]) -> bytes:
    """The stdin of one stdio-style run on `cases`."""
    if problem.STDIO is None:
        raise ValueError(f"{problem.SLUG} declares no stdin/stdout format")
    return problem.STDIO.write_input(cases).encode()


@cache
def registry() -> dict[str, ProblemSpec]:
    found: dict[str, ProblemSpec] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in NOT_PROBLEMS:
            continue
        spec = ProblemSpec.from_module(importlib.import_module(f"{__name__}.{info.name}"))
        found[spec.SLUG] = spec
    return found


def get(slug: str) -> ProblemSpec:
    try:
        return registry()[slug]
    except KeyError:
        known = ", ".join(registry()) or "none"
        raise UnknownProblem(f"unknown problem {slug!r} (known: {known})") from None

"""Mutants: deliberately broken variants of each problem's reference solver.

One module per problem, named like the problem (`judge/strength/mutants/<slug>.py`), defines

    MUTANTS: dict[str, Mutant]    name -> (description, solve(case) -> answer)

Each mutant is a small, plausible student bug. Mutants are trusted code: they run in-process
in the judge (never in the sandbox), are deterministic, never modify the case and finish fast
on every valid case. A mutant may raise, as the student's program would (an IndexError from a
bad bounds check): the judge would give that submission RE, so raising counts as killed.

`judge.strength` grades the mutants against a problem's tests to measure how strong the tests
are: a test set that lets a mutant pass would let that bug pass too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, NamedTuple


class Mutant(NamedTuple):
    description: str
    solve: Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Raised:
    """What a mutant did instead of answering: it raised (the submission would get RE)."""

    error: str

    def __str__(self) -> str:
        return f"raised {self.error}"


@cache
def mutants(slug: str) -> Mapping[str, Mutant]:
    """The mutant library of a problem (empty when the problem has none)."""
    try:
        module: ModuleType = importlib.import_module(f"{__name__}.{slug}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{slug}":
            return {}
        raise
    library = module.MUTANTS
    for name, mutant in library.items():
        if not isinstance(mutant, Mutant) or not callable(mutant.solve):
            raise TypeError(f"mutant {slug}.{name} must be a Mutant(description, solve)")
    return library


def run(mutant: Mutant, case: dict[str, Any]) -> Any:
    """The mutant's answer, or Raised when it raised (as a submission's RE)."""
    try:
        return mutant.solve(case)
    except Exception as exc:  # RecursionError and IndexError included
        return Raised(type(exc).__name__)

"""What a problem is, and where one comes from.

A problem is a package: a folder with problem.toml, statement.md and problem.py (the format
docs/problem-packages.md describes). Reading one into the typed `ProblemSpec` the whole judge
works with happens here:

    spec.py       ProblemSpec: the signature, limits, plan and view, the instructor's
                  functions, and the optional capabilities as typed fields
    archive.py    an uploaded zip unpacked, or a folder checked, within bounds
    manifest.py   problem.toml, statement.md and boards/ read and validated
    package.py    Package.load(folder): the checked folder and its digest (its version)
    host.py       ProblemHost: problem.py in the sandbox (host_main.py is the program inside)
    code.py       ProblemCode: the host, or ImportedCode for the built-in packages only
    bind.py       problem_spec(package, code): the ProblemSpec of a package and its code

The built-in problems are the packages in the repository's `problems/` folder (or the folder
JUDGE_PROBLEMS_DIR names), loaded by the same loader as an uploaded package; their problem.py
is the product's own code, so it is imported rather than hosted. `registry()` and `get()` find
them by slug. Checking a package (`python -m judge problem check`) is judge/problem_check/.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path

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
    "builtin_dir",
    "get",
    "registry",
    "stdio_input",
]


class UnknownProblem(LookupError):
    pass


def builtin_dir() -> Path:
    """The folder of the built-in packages: JUDGE_PROBLEMS_DIR, else `problems/` beside the
    judge package (a checkout; the image sets the variable)."""
    configured = os.environ.get("JUDGE_PROBLEMS_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "problems"


def stdio_input(problem: ProblemSpec, cases: Sequence[Case]) -> bytes:
    """The stdin of one stdio-style run on `cases`."""
    if problem.STDIO is None:
        raise ValueError(f"{problem.SLUG} declares no stdin/stdout format")
    return problem.STDIO.write_input(cases).encode()


@cache
def registry() -> dict[str, ProblemSpec]:
    """Every built-in package, by slug (a folder whose package does not load is an error of
    the product: it raises, naming the folder)."""
    found: dict[str, ProblemSpec] = {}
    for folder in sorted(p for p in builtin_dir().iterdir() if (p / "problem.toml").is_file()):
        spec = _builtin(folder)
        found[spec.SLUG] = spec
    return found


@cache
def _builtin(folder: Path) -> ProblemSpec:
    """One built-in package, loaded once per process (registry() and get() share it)."""
    from judge.problems.bind import builtin_problem  # the loader imports the spec above

    spec = builtin_problem(folder)
    if folder.name != spec.SLUG:
        raise ValueError(f"built-in package {folder}: its slug is {spec.SLUG!r}")
    return spec


def get(slug: str) -> ProblemSpec:
    """The built-in problem `slug`. Only its own package is loaded (a command grades one
    problem: loading every package cost a fresh `python -m judge grade` about 50 ms)."""
    base = builtin_dir()
    folder = base / slug
    # A folder directly inside `base` only: a slug is a name, never a path.
    if slug in os.listdir(base) and (folder / "problem.toml").is_file():
        return _builtin(folder)
    known = ", ".join(registry()) or "none"
    raise UnknownProblem(f"unknown problem {slug!r} (known: {known})")

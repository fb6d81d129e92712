"""A problem package's problem.py as a module of the test process, for the tests that call
its functions directly (the judge never imports one: it runs it in the sandbox)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType


def problem_module(folder: Path, name: str) -> ModuleType:
    """`folder`/problem.py run as a new module named `name`. Compiled from its text, not
    imported: an import would leave a __pycache__ in the package's folder, one more file of
    the package."""
    path = folder / "problem.py"
    module = ModuleType(name)
    module.__file__ = str(path)
    exec(compile(path.read_bytes(), str(path), "exec"), module.__dict__)
    return module

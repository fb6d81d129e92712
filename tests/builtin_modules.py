"""The built-in packages' problem.py, imported as modules, for tests that reach below the
ProblemSpec: a package's own validation messages, its solver's internals, its constants."""

from __future__ import annotations

from functools import cache
from types import ModuleType

from judge.problems import builtin_dir
from judge.problems.code import ImportedCode


@cache
def problem_module(slug: str) -> ModuleType:
    return ImportedCode.for_folder(builtin_dir() / slug, module_name=f"test_{slug}").module

"""One interface to a package's problem.py, wherever it runs: `ProblemCode`.

    ProblemHost(sandbox, source, ...)   untrusted code (an upload): problem.py in the sandbox
    ImportedCode(source)                the product's own built-in packages only, in-process

Both offer the same calls with the same results: tuples become lists, validate's ValueError
becomes InvalidCase, generate gets random.Random(seed), and every value is decoded by the
same strict rules (host.item_value over host_main.call_one's report), so a built-in package
cannot pass with an answer an uploaded one would be refused for.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import marshal
import sys
import time
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from judge.problems import host_main, kept
from judge.problems.host import (
    CONSTANTS,
    FUNCTIONS,
    NULL_ALLOWED,
    REQUIRED,
    ProblemError,
    item_value,
    read_source,
)
from judge.problems.spec import InvalidCase


class ProblemCode(Protocol):
    """What the judge may ask of a package's problem.py (see judge/problems/host.py)."""

    defined: frozenset[str]  # the contract's names problem.py defines
    last_cpu_s: float | None  # the CPU the last answered call used, when known

    def call(self, name: str, *args: Any, cpu_s: float | None = None) -> Any: ...

    def call_many(
        self, name: str, args_list: Sequence[Sequence[Any]], *, cpu_s: float | None = None
    ) -> list[Any]: ...

    def attribute(self, name: str) -> Any: ...


class ImportedCode:
    """problem.py imported into the judge's own process: ONLY for the built-in packages
    shipped inside the product, which are the product's own code (reviewed like the rest of
    it). It is never confined, timed out or bounded in memory, so an uploaded package must
    never come here: uploads go to ProblemHost. What differs from the host is only that and
    speed; every answer goes through the host's own conversion and decoding."""

    def __init__(
        self, source: bytes, *, module_name: str = "problem", required: Sequence[str] = REQUIRED
    ) -> None:
        self.module = _load(source, module_name)
        self.defined = frozenset(host_main.defined_names(self.module))
        self.last_cpu_s: float | None = None
        missing = [f"{name}()" for name in required if name not in self.defined]
        if missing:
            raise ProblemError(f"problem.py defines no {', '.join(missing)}")

    @classmethod
    def for_folder(cls, folder: str | Path, **options: Any) -> ImportedCode:
        return cls(read_source(Path(folder, "problem.py")), **options)

    def call(self, name: str, *args: Any, cpu_s: float | None = None) -> Any:
        """As ProblemHost.call; `cpu_s` is accepted and not enforced (trusted code)."""
        result = self._one(name, list(args), f"{name}()")
        if isinstance(result, InvalidCase):
            raise result
        return result

    def call_many(
        self, name: str, args_list: Sequence[Sequence[Any]], *, cpu_s: float | None = None
    ) -> list[Any]:
        """As ProblemHost.call_many: an InvalidCase in place of each case validate refused."""
        what = f"a batch of {len(args_list)} {name}() calls"
        return [self._one(name, list(args), what) for args in args_list]

    def attribute(self, name: str) -> Any:
        if name not in CONSTANTS or name not in self.defined:
            raise ValueError(f"problem.py defines no constant {name}")
        what = f"reading {name}"
        try:
            value = host_main.to_json(getattr(self.module, name), [host_main.MAX_VALUES])
        except host_main.NotJson as exc:
            raise ProblemError(f"{what} returned {exc}, which is not a JSON value") from None
        return item_value({"ok": value}, what, False)

    def _one(self, name: str, args: list[Any], what: str) -> Any:
        if name not in FUNCTIONS or name not in self.defined:
            raise ValueError(f"problem.py defines no {name}()")
        began = time.process_time()  # the whole process's CPU: rough beside other threads
        # The host receives its arguments as JSON: a fresh copy, never the caller's objects.
        report = host_main.call_one(self.module, name, _copied(args))
        self.last_cpu_s = time.process_time() - began
        return item_value(report, what, name in NULL_ALLOWED)


def _copied(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copied(item) for item in value]
    return value


def _load(source: bytes, module_name: str) -> types.ModuleType:
    """problem.py as a module registered under `module_name` (dataclasses need that); its
    file name is problem.py, so a traceback names the line as the host's does."""
    try:
        code = compiled(source)
        module = types.ModuleType(module_name)
        module.__file__ = "problem.py"
        sys.modules[module_name] = module
        exec(code, module.__dict__)
    except Exception as exc:
        error = host_main.describe(exc)
        where = host_main.where(exc)
        raise ProblemError(
            f"problem.py failed to load: {error}" + (f" ({where})" if where else "")
        ) from None
    return module


def compiled(source: bytes, folder: str | None = None) -> types.CodeType:
    """problem.py compiled, or its code as compiled before (judge/problems/kept.py, in
    `folder`, default its own): compiling footholds' was 7-10 ms of every command line
    grading. Kept by the source's digest and the interpreter's bytecode version; what does
    not read back as problem.py's code is compiled afresh."""
    version = f"{importlib.util.MAGIC_NUMBER.hex()}-O{sys.flags.optimize}"  # -O drops asserts
    name = f"{hashlib.sha256(source).hexdigest()}-{version}.code"
    data = kept.read(name, folder)
    if data is not None:
        with contextlib.suppress(EOFError, ValueError, TypeError):
            code = marshal.loads(data)
            if isinstance(code, types.CodeType) and code.co_filename == "problem.py":
                return code
    code = compile(source.decode("utf-8"), "problem.py", "exec", dont_inherit=True)
    kept.write(name, marshal.dumps(code), folder)
    return code

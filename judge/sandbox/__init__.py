"""Runs untrusted code in a sandbox (see front.py for the use, jail.py for the layers).

    sandbox = make_sandbox(SandboxConfig())       # bubblewrap, or refuses (see make_sandbox)
    with sandbox.run(Command(argv=(...), files={...}), limits) as proc:
        line = proc.read_result(timeout=2.0)      # one line from the results channel
    outcome = proc.outcome                        # exit status, limits hit, output, usage

The data types (Command, RunLimits, SandboxConfig, the errors) load with the package; the
machinery that starts runs (front.py and the jails, cgroups, seccomp, slots behind it) loads
on first use, so a process that only describes runs (the API listing the languages) never
loads it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from judge.sandbox.command import Command
from judge.sandbox.config import SandboxConfig, default_python
from judge.sandbox.errors import MachineBusy, OverlongLine, SandboxUnavailable
from judge.sandbox.limits import RunLimits

if TYPE_CHECKING:
    from judge.sandbox.front import (
        Process,
        RunOutcome,
        Sandbox,
        make_sandbox,
        remove_stale_run_dirs,
    )

__all__ = [
    "Command",
    "MachineBusy",
    "OverlongLine",
    "Process",
    "RunLimits",
    "RunOutcome",
    "Sandbox",
    "SandboxConfig",
    "SandboxUnavailable",
    "default_python",
    "make_sandbox",
    "remove_stale_run_dirs",
]

_FRONT = {"Process", "RunOutcome", "Sandbox", "make_sandbox"}
_FRONT.add("remove_stale_run_dirs")


def __getattr__(name: str) -> Any:
    if name in _FRONT:
        return getattr(importlib.import_module("judge.sandbox.front"), name)
    raise AttributeError(f"module 'judge.sandbox' has no attribute {name!r}")

"""What the sandbox is configured with: one immutable object, built by whoever starts it.

The sandbox reads no environment itself. The command line and the benchmark build the config
from the JUDGE_SANDBOX* variables they pass to `SandboxConfig.from_environ`; the worker builds
it from its settings (worker/runtime.py), with the uid range it claimed in the service's
registry; tests build it directly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_UID_BASE = 61000
DEFAULT_SLOTS = 64


@dataclass(frozen=True)
class SandboxConfig:
    mode: str = "bwrap"  # "bwrap", or "none" (unconfined, local development only)
    python: str | None = None  # the interpreter submissions run on; None: default_python()
    slots: int = DEFAULT_SLOTS  # concurrent runs, one uid each (as root)
    uid_base: int = DEFAULT_UID_BASE  # first sandbox uid (as root)
    slot_dir: str | None = None  # where the slot locks live; None: /run/judge-slots (root)
    cgroup_parent: str | None = None  # a delegated cgroup v2 directory; None: our own group
    # Where the bound files' layout is kept between processes (short-lived commands); None:
    # worked out once per process.
    layout_cache: str | None = None
    # False for one person's command line (who holds every input already): skips closing the
    # page-cache channel between runs, which reads the whole runtime once.
    shared_by_students: bool = True
    # The phase lock's directory (phase.py): the same for every judge on the machine; None:
    # /run/judge-phase as root.
    phase_dir: str | None = None

    def __post_init__(self) -> None:
        if self.slots < 1:
            raise ValueError(f"sandbox slots must be at least 1, not {self.slots}")
        if not 1000 <= self.uid_base <= (1 << 31) - self.slots:
            raise ValueError(f"sandbox uid base {self.uid_base} is outside 1000..2^31")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], **overrides) -> SandboxConfig:
        """The JUDGE_SANDBOX* variables of `environ` (the CLI's configuration)."""

        def number(name: str, default: int) -> int:
            text = environ.get(name) or ""
            try:
                return int(text) if text else default
            except ValueError:
                raise ValueError(f"{name}={text!r}: expected a whole number") from None

        values: dict[str, Any] = {
            "mode": environ.get("JUDGE_SANDBOX") or "bwrap",
            "python": environ.get("JUDGE_SANDBOX_PYTHON") or None,
            "slots": number("JUDGE_SANDBOX_SLOTS", DEFAULT_SLOTS),
            "uid_base": number("JUDGE_SANDBOX_UID_BASE", DEFAULT_UID_BASE),
            "slot_dir": environ.get("JUDGE_SANDBOX_SLOT_DIR") or None,
            "cgroup_parent": environ.get("JUDGE_CGROUP_PARENT") or None,
            "phase_dir": environ.get("JUDGE_SANDBOX_PHASE_DIR") or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def default_python() -> str:
    """The interpreter submissions run on: a real binary, not a version-manager shim.

    The system interpreter is preferred: it lives under /usr, readable by the unprivileged
    sandbox user, and has no site-packages of ours.
    """
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    # CPython's interpreter behind a venv (not in typeshed).
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))

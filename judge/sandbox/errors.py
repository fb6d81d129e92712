"""Errors of the sandbox package (kept apart so every module can raise them)."""

from __future__ import annotations


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here; the judge refuses to grade rather than run unconfined."""


class MachineBusy(SandboxUnavailable):
    """A run waited so long for a CPU that other work held that its time could not be judged
    (limits.WallBound): the machine's fault, so no verdict, and worth another attempt later."""


class OverlongLine(ValueError):
    """The results channel carried a line longer than the run's limit (never buffered whole)."""

"""A submission ready to run: its language, its style, its source and what compiling it made.

judge/execution/build.py makes one per grading (compiling once); the runners run it as often as the
grading needs (visible tier, hidden tier, shrinking, the search for the bug).
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.languages.base import Language, Style


class CompileError(Exception):
    """The submission does not compile (the message is the student's to read)."""


@dataclass(frozen=True)
class Program:
    language: Language
    style: Style
    source: bytes
    # A private read-only copy of the compiled artifact (a host directory), or None when the
    # language runs the source as it is.
    artifact: str | None = None
    # Its compile's wall time beyond its CPU time (waiting for a CPU other work held, for the
    # disk, for the sandbox): not the submission's time, so the caller moves its deadline on
    # by it (0 when nothing was compiled here).
    build_waited_s: float = 0.0


MAX_SOURCE_BYTES = 64 * 1024


def unreadable(raw: bytes, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """Why a source cannot even be handed to a compiler or an interpreter, or '' when it can."""
    if len(raw) > max_bytes:
        return f"source too large: {len(raw)} bytes, the limit is {max_bytes}"
    if b"\0" in raw:
        return "source contains a NUL byte"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"source is not valid UTF-8 (byte {exc.start})"
    return ""

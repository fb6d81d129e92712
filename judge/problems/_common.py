"""Helpers shared by the problem plug-ins (private: the registry skips `_` modules)."""

from __future__ import annotations

from typing import Any

from judge.problems import InvalidCase


def short(value: Any, limit: int = 60) -> str:
    """A value's repr and type for an error message, cut to a readable length."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{text} ({type(value).__name__})"


def is_int(value: Any) -> bool:
    """An exact int: bool and int subclasses are not ints here."""
    return type(value) is int


def check_keys(case: Any, params: tuple[str, ...]) -> None:
    """The case is a dict with exactly the parameter names as keys."""
    if not isinstance(case, dict):
        raise InvalidCase(f"case must be an object with keys {list(params)}, got {short(case)}")
    missing = [key for key in params if key not in case]
    if missing:
        raise InvalidCase(f"case is missing key {missing[0]!r} (expected keys {list(params)})")
    extra = sorted((key for key in case if key not in params), key=repr)
    if extra:
        raise InvalidCase(f"case has unexpected key {extra[0]!r} (expected keys {list(params)})")

"""What a submission returned, decoded strictly from the harness's report.

The harness reports an answer as {"type": <type name>, "int": <decimal digits>} for an exact
int and {"type": <type name>, "repr": <short repr>} for anything else. Outside the sandbox
only an exact int becomes an int; everything else stays an `Opaque` value that no check
accepts, so a bool, float, str, None or a lying int subclass never passes as an int.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_INT_DIGITS = 4000  # below Python's 4300-digit str<->int conversion limit

# NUL (refused by PostgreSQL text columns), lone surrogates (not encodable as UTF-8) and
# control characters other than tab and newline (terminal escapes) in text from the sandbox.
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


class MalformedReport(ValueError):
    """The harness's report could not be parsed: counted against the submission."""


@dataclass(frozen=True)
class Opaque:
    """A returned value that is not an exact int: its type name and a short repr."""

    type_name: str
    repr: str

    def __str__(self) -> str:
        return f"{self.repr} ({self.type_name})"


def clean_text(value: Any, limit: int) -> str:
    """Text that came out of the sandbox made safe to store and show: a str, at most `limit`
    characters, with unsafe characters replaced by U+FFFD."""
    text = value if isinstance(value, str) else ""
    return _UNSAFE.sub("\ufffd", text[:limit])


def decode(report: Any) -> int | Opaque:
    if not isinstance(report, dict) or not isinstance(report.get("type"), str):
        raise MalformedReport("answer report is not an object with a type")
    type_name = clean_text(report["type"], 100)
    if type_name == "int" and isinstance(report.get("int"), str):
        digits = report["int"]
        body = digits[1:] if digits.startswith("-") else digits
        if not body.isdigit() or not body.isascii() or len(body) > MAX_INT_DIGITS:
            raise MalformedReport("int answer is not a decimal number of sane size")
        return int(digits)
    text = report.get("repr")
    if not isinstance(text, str):
        raise MalformedReport("answer report has neither int nor repr")
    return Opaque(type_name, clean_text(text, 200))


def describe(value: Any) -> str:
    """How a returned value is named in messages: '5 (int)', 'True (bool)'."""
    if type(value) is int:
        return f"{value} (int)"
    if isinstance(value, Opaque):
        return str(value)
    return f"{value!r} ({type(value).__name__})"


def to_json(value: Any) -> Any:
    """A JSON-safe form of a returned value, for storage and display."""
    if type(value) is int:
        return value
    if isinstance(value, Opaque):
        return {"type": value.type_name, "repr": value.repr}
    return value

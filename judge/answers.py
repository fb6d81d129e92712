"""What a submission returned, decoded strictly from the harness's report, and the value types
a problem declares for its answer and its parameters.

The harness reports what `solution` returned in the value kinds the types below are built
from: {"type": "int", "int": <decimal digits>} for an exact int, {"type": "list", "items":
[<report>, ...]} for an exact list (bounded in depth and size), and {"type": <type name>,
"repr": <short repr>} for anything else. Outside the sandbox only those shapes become ints
and lists; everything else stays an `Opaque` value that no type accepts, so a bool, float,
str, None or a lying int (or list) subclass never passes as an int. Which type an answer must
have is the problem's declaration (`ANSWER`), checked here, outside the sandbox.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

MAX_INT_DIGITS = 4000  # below Python's 4300-digit str<->int conversion limit
# A reported list nests at most this deep (int[][] is two); the harness reports deeper or
# larger lists by their repr alone, which no type accepts.
MAX_LIST_DEPTH = 3

# NUL (refused by PostgreSQL text columns), lone surrogates (not encodable as UTF-8) and
# control characters other than tab and newline (terminal escapes) in text from the sandbox.
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


class ValueType(ABC):
    """A type a problem declares for its answer or a parameter, named as in a signature
    ("int", "int[]", "int[][]"): the names a later per-language signature is written from."""

    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def accepts(self, value: Any) -> bool:
        """Strictly of this type: exact ints and exact lists, nothing that merely compares
        equal (True == 1, 5.0 == 5) or subclasses them."""

    def check(self, expected: Any, got: Any) -> tuple[bool, str]:
        """Compare a returned value with the expected one. The message never mentions the
        input, only the two values."""
        if not self.accepts(got):
            article = "an" if self.name[0] in "aeiou" else "a"
            return False, f"expected {article} {self.name}, got {describe(got)}"
        if got != expected:
            return False, f"expected {show(expected)}, got {show(got)}"
        return True, f"correct: {show(got)}"

    def parse_line(self, line: str) -> Any:
        """The answer a whole program wrote on one line (the stdio style), read strictly:
        only spaces and tabs around it are forgiven. Raises BadAnswerLine with a message a
        student can act on."""
        raise BadAnswerLine(f"answers of type {self.name} cannot be read from a line")

    def __str__(self) -> str:
        return self.name


class BadAnswerLine(ValueError):
    """An answer line of a whole program that is not a value of the answer's type."""


# An int as a program prints it: an optional minus, no leading zeros ("-0" is not one).
_INT_LINE = re.compile(r"(0|-?[1-9][0-9]*)")


def _quoted(line: str) -> str:
    text = clean_text(line, 40)
    return repr(text + ("..." if len(line) > 40 else ""))


@dataclass(frozen=True)
class IntType(ValueType):
    @property
    def name(self) -> str:
        return "int"

    def accepts(self, value: Any) -> bool:
        return type(value) is int

    def parse_line(self, line: str) -> int:
        text = line.strip(" \t\r")
        if not text:
            raise BadAnswerLine("expected an int, got an empty line")
        if len(text) > MAX_INT_DIGITS or not _INT_LINE.fullmatch(text):
            raise BadAnswerLine(f"expected an int, got {_quoted(text)}")
        return int(text)


@dataclass(frozen=True)
class ListType(ValueType):
    item: ValueType

    @property
    def name(self) -> str:
        return f"{self.item.name}[]"

    def accepts(self, value: Any) -> bool:
        return type(value) is list and all(self.item.accepts(v) for v in value)

    def parse_line(self, line: str) -> list[Any]:
        """Items separated by single spaces (a list of ints: "1 2 3"; empty: an empty line)."""
        text = line.strip(" \t\r")
        if isinstance(self.item, ListType):
            raise BadAnswerLine(f"answers of type {self.name} cannot be read from a line")
        return [self.item.parse_line(word) for word in text.split(" ")] if text else []


INT = IntType()


def list_of(item: ValueType) -> ListType:
    return ListType(item)


def parse_type(name: str) -> ValueType:
    """The type a signature names: "int", "int[]", "int[][]"."""
    if name == INT.name:
        return INT
    if name.endswith("[]"):
        return list_of(parse_type(name[:-2]))
    raise ValueError(f"unknown value type {name!r} (known: int, and lists of it as int[])")


class MalformedReport(ValueError):
    """The harness's report could not be parsed: counted against the submission."""


@dataclass(frozen=True)
class Opaque:
    """A returned value that is neither an exact int nor an exact list: its type name and a
    short repr."""

    type_name: str
    repr: str

    def __str__(self) -> str:
        return f"{self.repr} ({self.type_name})"


def clean_text(value: Any, limit: int) -> str:
    """Text that came out of the sandbox made safe to store and show: a str, at most `limit`
    characters, with unsafe characters replaced by U+FFFD."""
    text = value if isinstance(value, str) else ""
    return _UNSAFE.sub("\ufffd", text[:limit])


def decode(report: Any, depth: int = 0) -> Any:
    """An int, a list (of decoded values) or an `Opaque`, from one answer report."""
    if not isinstance(report, dict) or not isinstance(report.get("type"), str):
        raise MalformedReport("answer report is not an object with a type")
    type_name = clean_text(report["type"], 100)
    if type_name == "int" and isinstance(report.get("int"), str):
        digits = report["int"]
        body = digits[1:] if digits.startswith("-") else digits
        if not body.isdigit() or not body.isascii() or len(body) > MAX_INT_DIGITS:
            raise MalformedReport("int answer is not a decimal number of sane size")
        return int(digits)
    if type_name == "list" and isinstance(report.get("items"), list):
        if depth >= MAX_LIST_DEPTH:
            raise MalformedReport(f"list answer nested deeper than {MAX_LIST_DEPTH}")
        return [decode(item, depth + 1) for item in report["items"]]
    text = report.get("repr")
    if not isinstance(text, str):
        raise MalformedReport("answer report has neither int, items nor repr")
    return Opaque(type_name, clean_text(text, 200))


def show(value: Any, limit: int = 200) -> str:
    """A decoded value as a person reads it: 5, [1, [2, 3]], True; a list or a repr cut to
    `limit`, an int in full (two long ints that differ late must not read alike)."""
    if type(value) is int:
        return str(value)
    if isinstance(value, Opaque):
        text = value.repr
    elif type(value) is list:
        text = "[" + ", ".join(show(item, limit) for item in value[:limit]) + "]"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: Any) -> str:
    """How a returned value is named in messages: '5 (int)', 'True (bool)', '[1, 2] (list)'."""
    type_name = value.type_name if isinstance(value, Opaque) else type(value).__name__
    return f"{show(value)} ({type_name})"


def to_json(value: Any) -> Any:
    """A JSON-safe form of a returned value, for storage and display: an int as itself,
    anything else (lists too) as its type name and a short repr."""
    if type(value) is int:
        return value
    if isinstance(value, Opaque):
        return {"type": value.type_name, "repr": value.repr}
    if type(value) is list:
        return {"type": "list", "repr": show(value)}
    return value

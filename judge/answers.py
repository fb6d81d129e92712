"""What a submission returned, decoded strictly from the harness's report, and the value types
a problem declares for its answer and its parameters.

The harness reports what `solution` returned in the value kinds the types below are built
from:

    {"type": "int", "int": "<decimal digits>"}   an exact int (of any width)
    {"type": "bool", "bool": true}                an exact bool
    {"type": "str", "str": "<text>"}              an exact str that is valid text (`str_problem`)
    {"type": "list", "items": [<report>, ...]}    an exact list (bounded in depth and size)
    {"type": <type name>, "repr": <short repr>}   anything else

Outside the sandbox only those shapes become ints, bools, strs and lists; everything else
stays an `Opaque` value that no type accepts, so a float, None, a lying int (or list)
subclass, a bool where an int is declared (or an int where a bool is), or a str too long or
holding control characters never passes. Which type an answer must have is the problem's
declaration (`ANSWER`), checked here, outside the sandbox.
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
# A str value (an answer or an argument) is at most this many characters (code points), and
# holds no control character: none of C0 (tab and newline included: a str is one line of
# the tests text and of a stdio answer), DEL or C1, and no lone surrogate. What comes out of
# the sandbox is forged: the bound keeps it storable and showable.
MAX_STR_CHARS = 1000
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

# NUL (refused by PostgreSQL text columns), lone surrogates (not encodable as UTF-8) and
# control characters other than tab and newline (terminal escapes) in text from the sandbox.
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
_NOT_IN_A_STR = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class ValueType(ABC):
    """A type a problem declares for its answer or a parameter, named as in a signature
    ("int", "long", "bool", "str", "int[]", "str[][]"): the names the per-language
    signatures are written from."""

    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def accepts(self, value: Any) -> bool:
        """Strictly of this type: exact ints, bools, strs and lists, nothing that merely
        compares equal (True == 1, 5.0 == 5) or subclasses them."""

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

    def parse_item(self, word: str) -> Any:
        """One item of a list answer line (a word between single spaces)."""
        return self.parse_line(word)

    def __str__(self) -> str:
        return self.name


class BadAnswerLine(ValueError):
    """An answer line of a whole program that is not a value of the answer's type."""


# An int as a program prints it: an optional minus, no leading zeros ("-0" is not one).
_INT_LINE = re.compile(r"(0|-?[1-9][0-9]*)")


def _quoted(line: str) -> str:
    text = clean_text(line, 40)
    return repr(text + ("..." if len(line) > 40 else ""))


def _read_int(line: str, name: str) -> int:
    text = line.strip(" \t\r")
    if not text:
        raise BadAnswerLine(f"expected {name}, got an empty line")
    if len(text) > MAX_INT_DIGITS or not _INT_LINE.fullmatch(text):
        raise BadAnswerLine(f"expected {name}, got {_quoted(text)}")
    return int(text)


@dataclass(frozen=True)
class IntType(ValueType):
    """Any exact int in Python (as before); 32 bits in C++ (int), Java and Kotlin (Int): the
    tests text refuses an argument outside that range (judge/languages/tests_text.py)."""

    @property
    def name(self) -> str:
        return "int"

    def accepts(self, value: Any) -> bool:
        return type(value) is int

    def parse_line(self, line: str) -> int:
        return _read_int(line, "an int")


@dataclass(frozen=True)
class LongType(ValueType):
    """A 64-bit int in every language (Python: an exact int within LONG_MIN..LONG_MAX)."""

    @property
    def name(self) -> str:
        return "long"

    def accepts(self, value: Any) -> bool:
        return type(value) is int and LONG_MIN <= value <= LONG_MAX

    def parse_line(self, line: str) -> int:
        value = _read_int(line, "a long")
        if not LONG_MIN <= value <= LONG_MAX:
            raise BadAnswerLine(f"expected a long (64 bits), got {_quoted(str(value))}")
        return value


@dataclass(frozen=True)
class BoolType(ValueType):
    """An exact bool: an int 1 is not one, and a bool is no int."""

    @property
    def name(self) -> str:
        return "bool"

    def accepts(self, value: Any) -> bool:
        return type(value) is bool

    def parse_line(self, line: str) -> bool:
        """ "true" or "false", in any case (Python prints True, Java true)."""
        text = line.strip(" \t\r")
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        shown = "an empty line" if not text else _quoted(text)
        raise BadAnswerLine(f"expected a bool (true or false), got {shown}")


def str_problem(value: str) -> str:
    """Why `value` is not a valid str value ("" when it is one)."""
    if len(value) > MAX_STR_CHARS:
        return f"a str of {len(value)} characters (at most {MAX_STR_CHARS})"
    if _NOT_IN_A_STR.search(value):
        # repr escapes every control character and lone surrogate: safe to show
        return f"a str holding a control character ({value[:40]!r})"
    return ""


@dataclass(frozen=True)
class StrType(ValueType):
    """An exact str of at most MAX_STR_CHARS characters, none of them a control character."""

    @property
    def name(self) -> str:
        return "str"

    def accepts(self, value: Any) -> bool:
        return type(value) is str and not str_problem(value)

    def check(self, expected: Any, got: Any) -> tuple[bool, str]:
        ok, message = super().check(expected, got)
        if not ok and self.accepts(got) and show(expected) == show(got):
            # both cut alike: say where they part
            pairs = zip(expected, got, strict=False)
            at = next((k for k, (a, b) in enumerate(pairs) if a != b), min(len(expected), len(got)))
            message += f" (they differ from character {at + 1} on)"
        return ok, message

    def parse_line(self, line: str) -> str:
        """The line without the spaces and tabs around it (and the CR of a CRLF)."""
        text = line.strip(" \t\r")
        problem = str_problem(text)
        if problem:
            raise BadAnswerLine(f"expected a str, got {problem}")
        return text

    def parse_item(self, word: str) -> str:
        if not word:
            raise BadAnswerLine("expected words separated by single spaces, got an empty word")
        return self.parse_line(word)


@dataclass(frozen=True)
class ListType(ValueType):
    item: ValueType

    @property
    def name(self) -> str:
        return f"{self.item.name}[]"

    def accepts(self, value: Any) -> bool:
        return type(value) is list and all(self.item.accepts(v) for v in value)

    def parse_line(self, line: str) -> list[Any]:
        """Items separated by single spaces ("1 2 3", "true false", "ab cd": a str item of
        a line holds no space); an empty line is an empty list."""
        text = line.strip(" \t\r")
        if isinstance(self.item, ListType):
            raise BadAnswerLine(f"answers of type {self.name} cannot be read from a line")
        return [self.item.parse_item(word) for word in text.split(" ")] if text else []


INT = IntType()
LONG = LongType()
BOOL = BoolType()
STR = StrType()
SCALARS = {t.name: t for t in (INT, LONG, BOOL, STR)}


def list_of(item: ValueType) -> ListType:
    return ListType(item)


def parse_type(name: str) -> ValueType:
    """The type a signature names: "int", "long", "bool", "str", and lists of them as
    "int[]", "str[][]"."""
    if name in SCALARS:
        return SCALARS[name]
    if name.endswith("[]"):
        return list_of(parse_type(name[:-2]))
    known = ", ".join(SCALARS)
    raise ValueError(f"unknown value type {name!r} (known: {known}, and lists of them as int[])")


def scalar_of(value_type: ValueType) -> tuple[ValueType, int]:
    """The item type under all the list levels, and how many there are: (INT, 2) for
    int[][]."""
    depth = 0
    while isinstance(value_type, ListType):
        value_type, depth = value_type.item, depth + 1
    return value_type, depth


class MalformedReport(ValueError):
    """The harness's report could not be parsed: counted against the submission."""


@dataclass(frozen=True)
class Opaque:
    """A returned value that is none of the kinds above: its type name and a short repr."""

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
    """An int, a bool, a str, a list (of decoded values) or an `Opaque`, from one answer
    report."""
    if not isinstance(report, dict) or not isinstance(report.get("type"), str):
        raise MalformedReport("answer report is not an object with a type")
    type_name = clean_text(report["type"], 100)
    if type_name == "int" and isinstance(report.get("int"), str):
        return _decode_int(report["int"])
    if type_name == "bool" and type(report.get("bool")) is bool:
        return report["bool"]
    if type_name == "str" and isinstance(report.get("str"), str):
        problem = str_problem(report["str"])  # forged or not, a wrong type, shown in words
        return Opaque("str", f"<{problem}>") if problem else report["str"]
    if type_name == "list" and isinstance(report.get("items"), list):
        if depth >= MAX_LIST_DEPTH:
            raise MalformedReport(f"list answer nested deeper than {MAX_LIST_DEPTH}")
        return [decode(item, depth + 1) for item in report["items"]]
    text = report.get("repr")
    if not isinstance(text, str):
        raise MalformedReport(f"answer report has neither a {type_name} value nor a repr")
    return Opaque(type_name, clean_text(text, 200))


def _decode_int(digits: str) -> int:
    body = digits[1:] if digits.startswith("-") else digits
    if not body.isdigit() or not body.isascii() or len(body) > MAX_INT_DIGITS:
        raise MalformedReport("int answer is not a decimal number of sane size")
    return int(digits)


def show(value: Any, limit: int = 200) -> str:
    """A decoded value as a person reads it: 5, [1, [2, 3]], True, 'ab'; a list, a str or a
    repr cut to `limit`, an int in full (two long ints that differ late must not read
    alike)."""
    if type(value) is int:
        return str(value)
    if isinstance(value, Opaque):
        text = value.repr
    elif type(value) is list:
        text = "[" + ", ".join(show(item, limit) for item in value[:limit]) + "]"
    elif type(value) is str:
        text = repr(value[:limit])  # repr escapes what is not printable
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: Any) -> str:
    """How a returned value is named in messages: '5 (int)', 'True (bool)', '[1, 2] (list)'."""
    type_name = value.type_name if isinstance(value, Opaque) else type(value).__name__
    return f"{show(value)} ({type_name})"


def to_json(value: Any) -> Any:
    """A JSON-safe form of a returned value, for storage and display: an int as itself,
    anything else (bools, strs and lists too) as its type name and a short repr."""
    if type(value) is int:
        return value
    if isinstance(value, Opaque):
        return {"type": value.type_name, "repr": value.repr}
    if type(value) in (list, bool, str):
        return {"type": type(value).__name__, "repr": show(value)}
    return value

"""The tests as compiled drivers read them: space-separated tokens, typed by the problem's
PARAM_TYPES, so a C++ or JVM driver needs no JSON parser. One test is one line, each
parameter in PARAMS order (the judge writes it on the driver's tests channel):
      int      one decimal token, a 32-bit int (C++ int, Java int, Kotlin Int)
      long     one decimal token, a 64-bit int
      bool     1 or 0
      str      its length in UTF-8 bytes, one space, then those bytes (a str holds no
               control character, so no newline: answers.MAX_STR_CHARS)
      T[]      its length, then its items, each as a T

A value outside its type (an int beyond 32 bits, a str with a newline) is refused here, at
the judge's side, with a ValueError: it never reaches the program.

Example (footholds: board int[][], aloc int[], bloc int[]), one test:
    2 3 1 1 1 3 1 1 1  2 1 0  2 1 2
and (words str[], strict bool, limit long) for ["ab", "c d"], true, 10**12:
    2 2 ab 3 c d 1 1000000000000
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from judge.answers import BOOL, INT, LONG, LONG_MAX, LONG_MIN, STR, ListType, ValueType
from judge.problems import Case, ProblemSpec

Writer = Callable[[Any, list[str]], None]

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def _integers(name: str, low: int, high: int) -> tuple[Writer, Writer]:
    """The writers of one integer type and of a flat list of them, refusing what is out of
    range (checked per list with min and max: plans are thousands of boards)."""

    def refuse(value: Any) -> None:
        raise ValueError(f"a {name} argument out of range for the drivers: {value!r}")

    def one(value: Any, out: list[str]) -> None:
        if type(value) is not int or not low <= value <= high:
            refuse(value)
        out.append(str(value))

    def many(value: Any, out: list[str]) -> None:
        if value and (min(value) < low or max(value) > high):
            refuse(min(value) if min(value) < low else max(value))
        out.append(str(len(value)))
        out.extend(map(str, map(int, value)))

    return one, many


def _bool(value: Any, out: list[str]) -> None:
    if type(value) is not bool:
        raise ValueError(f"a bool argument that is not one: {value!r}")
    out.append("1" if value else "0")


def _str(value: Any, out: list[str]) -> None:
    if not STR.accepts(value):
        raise ValueError(f"a str argument that is not a valid str: {value!r:.60}")
    out.append(f"{len(value.encode())} {value}")


_SCALARS: dict[ValueType, Writer] = {BOOL: _bool, STR: _str}
_FLAT_LISTS: dict[ValueType, Writer] = {}
_SCALARS[INT], _FLAT_LISTS[INT] = _integers("int", INT_MIN, INT_MAX)
_SCALARS[LONG], _FLAT_LISTS[LONG] = _integers("long", LONG_MIN, LONG_MAX)


@cache
def _writer(value_type: ValueType) -> Writer:
    """The tokens of one value of `value_type`, appended to a list: worked out once per type
    (a full plan is thousands of boards; comparing types per value took most of the time)."""
    if value_type in _SCALARS:
        return _SCALARS[value_type]
    if isinstance(value_type, ListType):
        if value_type.item in _FLAT_LISTS:
            return _FLAT_LISTS[value_type.item]
        item = _writer(value_type.item)

        def items(value: Any, out: list[str]) -> None:
            out.append(str(len(value)))
            for element in value:
                item(element, out)

        return items
    # a problem declaring a type no driver reads: refuse loudly, at the judge's side
    raise TypeError(f"no text encoding for parameter type {value_type.name}")


def encode_case(problem: ProblemSpec, case: Case) -> bytes:
    """The line of one test, with its newline."""
    out: list[str] = []
    for name in problem.PARAMS:
        _writer(problem.PARAM_TYPES[name])(case[name], out)
    return (" ".join(out) + "\n").encode()

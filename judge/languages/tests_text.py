"""The tests as compiled drivers read them: whitespace-separated decimal tokens, typed by the
problem's PARAM_TYPES, so a C++ or JVM driver needs no JSON parser. One test is one line,
each parameter in PARAMS order (the judge writes it on the driver's tests channel):
      int      one token
      int[]    its length, then its items
      int[][]  its number of rows, then each row as an int[] (length, items)

Example (footholds: board int[][], aloc int[], bloc int[]), one test:
    2 3 1 1 1 3 1 1 1  2 1 0  2 1 2
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from judge.answers import INT, ListType, ValueType
from judge.problems import Case, ProblemSpec

Writer = Callable[[Any, list[str]], None]


@cache
def _writer(value_type: ValueType) -> Writer:
    """The tokens of one value of `value_type`, appended to a list: worked out once per type
    (a full plan is thousands of boards; comparing types per value took most of the time)."""
    if value_type == INT:
        return lambda value, out: out.append(str(int(value)))
    if isinstance(value_type, ListType):
        if value_type.item == INT:

            def ints(value: Any, out: list[str]) -> None:
                out.append(str(len(value)))
                out.extend(map(str, map(int, value)))

            return ints
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

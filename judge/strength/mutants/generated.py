"""Mutants generated from the syntax tree of an accepted solution of each problem.

    library = generated("footholds")   # name -> Mutant, beside the hand-written library

Each mutant changes one place of the solution: a comparison (`<` to `<=`, `==` to `!=`...),
an integer constant (plus or minus one), an arithmetic operator (`+` and `-`), a boolean
operator (`and` and `or`), a negated condition, a deleted statement, `min` and `max` swapped,
the first two arguments of a call swapped, or one element left out of a literal tuple or list
(a direction removed). Mutants that do not compile are dropped. The solutions are ours and the
changes are small, but a change can make a search endless: every call runs under a CPU alarm
set to the problem's time limit, and a mutant still running when it rings counts as raising
(the judge would give it TLE).
"""

from __future__ import annotations

import ast
import copy
import signal
import threading
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from judge import problems
from judge.strength.mutants import Mutant
from judge.strength.mutants.accepted import SOURCES


class TooSlow(Exception):
    """A generated mutant ran past its CPU budget on one case."""


def _alarm(signum, frame):
    raise TooSlow("over the time limit")


def bounded(
    function: Callable[..., Any], params: tuple[str, ...], budget_s: float
) -> Callable[[dict], Any]:
    """Call the solution with the case's arguments, under a CPU alarm where signals work
    (the main thread); elsewhere the caller must accept an unbounded call."""

    def solve(case: dict[str, Any]) -> Any:
        args = [case[name] for name in params]  # the accepted solutions never change them
        if threading.current_thread() is not threading.main_thread():
            return function(*args)
        previous = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, budget_s)
        try:
            return function(*args)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)

    return solve


# -- mutation sites --------------------------------------------------------------------------
_COMPARE_SWAPS = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
}
_SYMBOLS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Add: "+",
    ast.Sub: "-",
    ast.And: "and",
    ast.Or: "or",
}
_ARITHMETIC_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add}


def _sites(tree: ast.AST) -> Iterator[tuple[int, str, str, Callable[[ast.AST], None]]]:
    """(node number in ast.walk order, operator, what changes, change) for every mutation.
    The change is applied to the node of that number in a fresh copy of the tree."""
    for number, node in enumerate(ast.walk(tree)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                for new in _COMPARE_SWAPS.get(type(op), ()):

                    def swap_comparison(n, k=k, new=new):
                        n.ops[k] = new()

                    text = f"line {line}: {_SYMBOLS[type(op)]} -> {_SYMBOLS[new]}"
                    yield number, "comparison", text, swap_comparison
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            for delta in (1, -1):

                def shift_constant(n, delta=delta):
                    n.value += delta

                text = f"line {line}: {node.value} -> {node.value + delta}"
                yield number, "constant", text, shift_constant
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC_SWAPS:
            new_op = _ARITHMETIC_SWAPS[type(node.op)]

            def swap_arithmetic(n, new_op=new_op):
                n.op = new_op()

            text = f"line {line}: {_SYMBOLS[type(node.op)]} -> {_SYMBOLS[new_op]}"
            yield number, "arithmetic", text, swap_arithmetic
        elif isinstance(node, ast.BoolOp):
            new_bool: type[ast.boolop] = ast.Or if isinstance(node.op, ast.And) else ast.And

            def swap_boolean(n, new_bool=new_bool):
                n.op = new_bool()

            text = f"line {line}: {_SYMBOLS[type(node.op)]} -> {_SYMBOLS[new_bool]}"
            yield number, "boolean", text, swap_boolean
        if isinstance(node, ast.If | ast.While | ast.IfExp):

            def negate(n):
                n.test = ast.UnaryOp(op=ast.Not(), operand=n.test)

            yield number, "negated", f"line {line}: condition negated", negate
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            swapped = {"min": "max", "max": "min"}.get(node.func.id)
            if swapped:

                def swap_min_max(n, swapped=swapped):
                    n.func.id = swapped

                yield number, "min_max", f"line {line}: {node.func.id} -> {swapped}", swap_min_max
            if len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):

                def swap_arguments(n):
                    n.args[0], n.args[1] = n.args[1], n.args[0]

                text = f"line {line}: arguments of {node.func.id}() swapped"
                yield number, "arguments", text, swap_arguments
        if (
            isinstance(node, ast.Tuple | ast.List)
            and len(node.elts) >= 2
            and all(isinstance(e, ast.Tuple | ast.List) for e in node.elts)  # e.g. directions
        ):
            for k in range(len(node.elts)):

                def leave_out(n, k=k):
                    del n.elts[k]

                text = f"line {line}: element {k + 1} of {len(node.elts)} left out"
                yield number, "element", text, leave_out
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for k, statement in enumerate(block):
                if isinstance(statement, ast.FunctionDef | ast.Return | ast.Pass):
                    continue

                def delete(n, field=field, k=k):
                    getattr(n, field)[k] = ast.Pass()

                text = f"line {statement.lineno}: statement deleted"
                yield number, "deleted", text, delete


def mutate(source: str) -> Iterator[tuple[str, str, str]]:
    """(operator, description, mutated source) for every mutation site of the source."""
    tree = ast.parse(source)
    for number, operator, text, change in _sites(tree):
        mutant = copy.deepcopy(tree)
        node = next(n for k, n in enumerate(ast.walk(mutant)) if k == number)
        change(node)
        ast.fix_missing_locations(mutant)
        yield operator, text, ast.unparse(mutant)


@cache
def generated(slug: str) -> dict[str, Mutant]:
    """The generated mutants of a problem (empty without an accepted solution here)."""
    source = SOURCES.get(slug)
    if source is None:
        return {}
    problem = problems.get(slug)
    library: dict[str, Mutant] = {}
    seen: set[str] = set()
    counts: dict[str, int] = {}
    for operator, text, mutated in mutate(source):
        if mutated in seen:  # two sites giving the same program: one mutant
            continue
        seen.add(mutated)
        namespace: dict[str, Any] = {"__name__": f"mutant_{slug}"}
        try:
            exec(compile(mutated, f"<mutant of {slug}>", "exec"), namespace)
        except Exception:
            continue  # does not compile or load: not a mutant a student would submit
        function = namespace.get("solution")
        if not callable(function):
            continue
        counts[operator] = counts.get(operator, 0) + 1
        name = f"gen_{operator}_{counts[operator]}"
        solve = bounded(function, problem.PARAMS, problem.LIMITS.time_s)
        library[name] = Mutant(f"generated: {text}", solve)
    return library

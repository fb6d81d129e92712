"""The problem host's program: it runs INSIDE the sandbox, standard library only, copied in
beside the package's problem.py (judge/problems/host.py starts it and reads what it says).

    python3 -I -S -B host_main.py --results-fd N --requests-fd T

It loads /box/problem.py as the module `problem`, says which of the contract's names it
defines, then answers one request per line on fd T with one report per line on fd N, until
fd T ends:

    {"hello": ["generate", "reference", "validate", ...], "protocol": 1}   once loaded
    {"load_error": "ZeroDivisionError: ...", "where": "problem.py, line 3"}   or not

    {"id": 7, "call": "reference", "args": [{"n": 5}]}     ->  {"id": 7, "ok": 1}
    {"id": 8, "call": "validate", "args": [{"n": -1}]}     ->  {"id": 8, "invalid": "..."}
    {"id": 9, "call": "reference", "batch": [[c1], [c2]]}  ->  {"id": 9, "batch": [{"ok": 1},
                                                                {"error": "...", "where": ...}]}
    {"id": 10, "get": "WORST_CASES"}                       ->  {"id": 10, "ok": [...]}
    anything that raised                                   ->  {"id": n, "error": "Type: message",
                                                                "where": "problem.py, line 12"}

"invalid" is validate's ValueError only (the case is invalid: an answer, not a failure).
`generate` is called with random.Random(seed) for the seed the judge sends. Values go out as
JSON of exact types: int, bool, str, list, dict with str keys, and None; a tuple becomes a
list (generate, children and canonical often build tuples), shrink's iterable is taken as a
list of at most SHRINK_LIMIT cases, validate's return value is dropped. Anything else (a
float, a set, an object, an int subclass, a non-str key, a value too deep or too large) is
reported as an error naming it. None of this is trusted outside: problem.py runs in this
process and can write anything on fd N, so the judge decodes every line strictly again.
"""

import itertools
import json
import os
import random
import sys
import traceback
import types

PROTOCOL = 1
FUNCTIONS = (
    "validate",
    "generate",
    "reference",
    "check",
    "small_cases",
    "canonical",
    "shrink",
    "explain",
    "children",
    "write_input",
)
CONSTANTS = ("WORST_CASES", "COMBINE_RULE")
SOURCE_NAME = "problem.py"

# The judge's bounds again (judge/problems/host.py), so a value beyond them is named here
# rather than written out and refused as a whole line.
MAX_DEPTH = 16
MAX_VALUES = 500_000
MAX_INT_DIGITS = 4000
MAX_STR_CHARS = 1 << 20
SHRINK_LIMIT = 1000
MESSAGE_CHARS = 1000


class NotJson(Exception):
    """A value problem.py returned that has no JSON form the judge accepts."""


def to_json(value, budget, depth=0):
    """`value` as exact JSON types (tuples become lists); NotJson naming what is not."""
    kind = type(value)
    budget[0] -= 1
    if budget[0] < 0:
        raise NotJson(f"a value with more than {MAX_VALUES} items")
    if kind is int:
        if value.bit_length() > 13_000 and int_digits(value) > MAX_INT_DIGITS:
            raise NotJson(f"an int with more than {MAX_INT_DIGITS} digits")
        return value
    if kind is bool or value is None:
        return value
    if kind is str:
        if len(value) > MAX_STR_CHARS:
            raise NotJson(f"a str longer than {MAX_STR_CHARS} characters")
        return value
    if kind is list or kind is tuple or kind is dict:
        if depth >= MAX_DEPTH:
            raise NotJson(f"a value nested deeper than {MAX_DEPTH}")
        if kind is dict:
            items = list(dict.items(value))
            for key, _ in items:
                if type(key) is not str:
                    raise NotJson(f"a dict with a key of type {type(key).__name__}")
            return {key: to_json(item, budget, depth + 1) for key, item in items}
        return [to_json(item, budget, depth + 1) for item in list(value)]
    if kind is float:
        raise NotJson(f"a float ({float.__repr__(value)})")
    name = getattr(kind, "__qualname__", "?")
    raise NotJson(f"an object of type {name if isinstance(name, str) else '?'}")


def int_digits(value):
    try:
        return len(int.__repr__(abs(value)))
    except ValueError:  # beyond Python's own int->str limit (4300 digits)
        return MAX_INT_DIGITS + 1


def where(exc):
    """The innermost frame of problem.py in the exception's traceback, or ""."""
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        own = [f for f in frames if f.filename.endswith(SOURCE_NAME)]
        return f"{SOURCE_NAME}, line {own[-1].lineno}" if own else ""
    except BaseException:
        return ""


def describe(exc):
    try:
        message = str(exc)[:MESSAGE_CHARS]
    except BaseException:
        message = "<unprintable message>"
    name = type(exc).__name__
    return f"{name}: {message}" if message else name


def failure(exc):
    if isinstance(exc, NotJson):
        return {"error": f"returned {exc}, which is not a JSON value of the contract"}
    return {"error": describe(exc), "where": where(exc)}


def load():
    """problem.py as the module `problem` (registered, so dataclasses and pickling work)."""
    with open(SOURCE_NAME, "rb") as source_file:
        source = source_file.read().decode("utf-8")
    code = compile(source, SOURCE_NAME, "exec", dont_inherit=True)
    module = types.ModuleType("problem")
    module.__file__ = os.path.abspath(SOURCE_NAME)
    sys.modules["problem"] = module
    exec(code, module.__dict__)
    return module


def defined_names(module):
    functions = [name for name in FUNCTIONS if callable(getattr(module, name, None))]
    return functions + [name for name in CONSTANTS if hasattr(module, name)]


def call_one(module, name, args):
    """One call's report (without its id)."""
    try:
        if type(args) is not list:
            raise TypeError("the arguments are not a list")
        function = getattr(module, name)
        if name == "generate":
            seed, profile = args
            result = function(random.Random(seed), profile)
        else:
            result = function(*args)
        if name == "validate":
            result = None
        elif name == "shrink":
            result = list(itertools.islice(result, SHRINK_LIMIT))
        return {"ok": to_json(result, [MAX_VALUES])}
    except ValueError as exc:
        if name == "validate":
            return {"invalid": describe_value_error(exc)}
        return failure(exc)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: an answer still
        return failure(exc)


def describe_value_error(exc):
    try:
        return str(exc)[:MESSAGE_CHARS] or "invalid case"
    except BaseException:
        return "invalid case"


def answer(module, defined, request):
    """The report for one request (a parsed JSON object)."""
    ident = request.get("id") if type(request) is dict else None
    if type(ident) is not int:
        return {"id": None, "error": "a request without an id"}
    if "get" in request:
        name = request["get"]
        if name not in CONSTANTS or name not in defined:
            return {"id": ident, "error": f"{name!r} is not a constant problem.py defines"}
        try:
            return {"id": ident, "ok": to_json(getattr(module, name), [MAX_VALUES])}
        except BaseException as exc:
            return {"id": ident, **failure(exc)}
    name = request.get("call")
    if name not in FUNCTIONS or name not in defined:
        return {"id": ident, "error": f"{name!r} is not a function problem.py defines"}
    if "batch" in request:
        return {"id": ident, "batch": [call_one(module, name, args) for args in request["batch"]]}
    return {"id": ident, **call_one(module, name, request.get("args"))}


def main(argv):
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    results_fd = int(argv[argv.index("--results-fd") + 1])
    requests_fd = int(argv[argv.index("--requests-fd") + 1])
    # Bound before problem.py loads: it may replace what these modules hold (and can forge
    # anything on the results fd anyway; the judge outside decides).
    out = os.fdopen(results_fd, "w", encoding="utf-8", buffering=1)
    next_request = os.fdopen(requests_fd, "rb").readline
    dumps, loads = json.dumps, json.loads

    def emit(report):
        try:
            line = dumps(report, ensure_ascii=True, allow_nan=False)
        except BaseException as exc:  # a str with lone surrogates, or worse
            line = dumps({"id": report.get("id"), "error": f"unwritable answer: {describe(exc)}"})
        out.write(line + "\n")
        out.flush()

    try:
        module = load()
    except BaseException as exc:
        emit({"load_error": describe(exc), "where": where(exc)})
        return
    defined = defined_names(module)
    emit({"hello": defined, "protocol": PROTOCOL})
    while line := next_request():  # empty once the judge closes the requests
        try:
            request = loads(line)
        except ValueError as exc:
            emit({"id": None, "error": f"an unreadable request: {exc}"})
            continue
        emit(answer(module, defined, request))


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    main(sys.argv)

"""ProblemCode: the same package behaves identically through the sandboxed ProblemHost and the
in-process ImportedCode (same values, same conversions, same refusals), and either one,
bound by problem_spec, gives the same ProblemSpec behaviour and plan."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from judge.grading.plan import plan_tests
from judge.problems import bind
from judge.problems.bind import problem_spec
from judge.problems.code import ImportedCode, ProblemCode
from judge.problems.host import ProblemError, ProblemHost
from judge.problems.package import Package
from judge.problems.spec import InvalidCase

TICTACTOE = Path(__file__).with_name("tictactoe")

QUIRKS = """
def validate(case):
    if case["n"] < 0:
        raise ValueError("n must be >= 0")

def generate(rng, profile):
    return {"n": rng.randint(0, 100)}

def reference(case):
    return (case["n"], [case["n"] % 2])     # a tuple: becomes a list

def canonical(case):
    return 1.5                              # a float: refused

def shrink(case):
    return iter([{"n": 1}, {"n": 0}])       # an iterator: taken as a list

def explain(case):
    return {"answer": None, "moves": ()}

def children(case):
    return {"n"}                            # a set: refused

def check(case, expected, got):
    raise KeyError("oops")

WORST_CASES = ({"n": 7},)
"""


def _codes(sandbox, source: bytes):
    host = ProblemHost(sandbox, source, time_s=1.0)
    host.start()
    return host, ImportedCode(source, module_name="quirks_problem")


def _outcome(code: ProblemCode, name: str, *args):
    """The value, or the exception's type and message, of one call."""
    try:
        return ("ok", code.call(name, *args))
    except (InvalidCase, ProblemError) as exc:
        return (type(exc).__name__, str(exc))


def test_the_same_calls_give_the_same_values_and_refusals(sandbox):
    host, imported = _codes(sandbox, textwrap.dedent(QUIRKS).encode())
    try:
        assert host.defined == imported.defined
        calls = [
            ("validate", {"n": 3}),
            ("validate", {"n": -1}),
            ("generate", 5, "any"),
            ("reference", {"n": 3}),
            ("shrink", {"n": 3}),
            ("explain", {"n": 3}),
        ]
        for call in calls:
            assert _outcome(host, *call) == _outcome(imported, *call), call
        assert _outcome(imported, "reference", {"n": 3}) == ("ok", [3, [1]])
        assert _outcome(imported, "validate", {"n": -1}) == ("InvalidCase", "n must be >= 0")
        batch = [[{"n": 2}], [{"n": -2}]]
        host_many = host.call_many("validate", batch)
        imported_many = imported.call_many("validate", batch)
        assert host_many[0] is None and imported_many[0] is None
        assert str(host_many[1]) == str(imported_many[1]) == "n must be >= 0"
        assert host.attribute("WORST_CASES") == imported.attribute("WORST_CASES") == [{"n": 7}]
        # Refusals kill the host: each on a fresh one, compared by message.
        for call in [("canonical", {"n": 1}), ("children", {"n": 1}), ("check", {"n": 1}, 1, 1)]:
            host.close()
            host = ProblemHost(sandbox, textwrap.dedent(QUIRKS).encode(), time_s=1.0)
            host.start()
            assert _outcome(host, *call) == _outcome(imported, *call), call
            assert _outcome(imported, *call)[0] == "ProblemError"
    finally:
        host.close()


def test_imported_code_refuses_what_the_host_refuses_at_load(sandbox):
    for source, fragment in [
        ("x = 1 / 0\n", "ZeroDivisionError"),
        ("def validate(case): pass\n", "defines no generate(), reference()"),
    ]:
        with pytest.raises(ProblemError, match=re.escape(fragment)) as imported_error:
            ImportedCode(source.encode(), module_name="broken_problem")
        with (
            pytest.raises(ProblemError, match=re.escape(fragment)) as host_error,
            ProblemHost(sandbox, source.encode()),
        ):
            pass
        assert str(imported_error.value) == str(host_error.value)


def test_the_package_binds_to_the_same_spec_through_both(sandbox):
    package = Package.load(TICTACTOE)
    imported = problem_spec(package, ImportedCode(package.source(), module_name="ttt_a"))
    with ProblemHost.for_folder(sandbox, package.folder) as host:
        bind._answer_memo.clear()  # each computes its own answers
        bind._small_memo.clear()
        hosted = problem_spec(package, host)
        hosted_plan = [(t.kind, t.input, t.expected) for t in plan_tests(hosted, seed=4)]
        hosted_small = hosted.small_tier.cases() if hosted.small_tier else []
        case = hosted_plan[-1][1]
        hosted_more = (hosted.explain(case), list(hosted.shrink(case)), hosted.STDIO)
        hosted_children = hosted.game_tree.children(case) if hosted.game_tree else None
    bind._answer_memo.clear()
    bind._small_memo.clear()
    imported_plan = [(t.kind, t.input, t.expected) for t in plan_tests(imported, seed=4)]
    assert hosted_plan == imported_plan
    assert len(imported_plan) == 3 + 1 + 1 + 12  # samples, small tier, worst, random
    assert imported.small_tier is not None and imported.small_tier.cases() == hosted_small
    assert imported.explain(case) == hosted_more[0]
    assert list(imported.shrink(case)) == hosted_more[1]
    assert imported.game_tree is not None and imported.game_tree.children(case) == hosted_children
    assert imported.STDIO is not None and hosted_more[2] is not None
    assert imported.STDIO.statement == hosted_more[2].statement == package.stdio
    assert imported.WORST_CASES == ({"board": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]},)

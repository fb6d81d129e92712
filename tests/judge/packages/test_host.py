"""The problem host (judge/problems/host.py) in the real sandbox: a good package answers every
kind of call; a hostile or broken one is refused with a ProblemError naming what happened,
within its bounds, and what it tried to reach stays out of reach. The strict decoding is
tested on forged lines too, without a sandbox."""

from __future__ import annotations

import textwrap
import time

import pytest

import judge
from judge.problems.host import (
    MAX_DEPTH,
    MAX_VALUES,
    MalformedLine,
    ProblemError,
    ProblemHost,
    decode_value,
    parse_line,
)
from judge.problems.spec import InvalidCase

GOOD = """
def validate(case):
    if type(case.get("n")) is not int or case["n"] < 0:
        raise ValueError("n must be a whole number >= 0")

def generate(rng, profile):
    return {"n": rng.randint(0, 10**6), "profile": profile}

def reference(case):
    return case["n"] % 3 != 0

def check(case, expected, got):
    return (expected == got, "ok" if expected == got else "wrong")

def canonical(case):
    return (case["n"], "n")

def shrink(case):
    n = case["n"]
    while n:
        n //= 2
        yield {"n": n}

def explain(case):
    return {"answer": reference(case), "moves": [], "note": None}

def forever():
    while True:
        yield {"n": 1}

WORST_CASES = [{"n": 999_999}]
COMBINE_RULE = "a position is won when some move leads to a lost one"
"""

# The first call's id: a hostile package forging a report for the call it is in.
FIRST_ID = 1


def start(sandbox, body: str, **limits) -> ProblemHost:
    source = textwrap.dedent(body).encode()
    return ProblemHost(sandbox, source, **{"time_s": 0.2, **limits})


def reference_of(body: str) -> str:
    """A package whose reference is `body` (indented as a function body)."""
    return (
        "import os, sys, time\n"
        "def validate(case):\n    pass\n"
        "def generate(rng, profile):\n    return {}\n"
        "def reference(case):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    )


def refused(sandbox, body: str, *args, **limits) -> str:
    """The ProblemError message of reference(*args) in a package whose reference is `body`;
    the host is dead after it."""
    began = time.monotonic()
    with start(sandbox, reference_of(body), **limits) as host:
        with pytest.raises(ProblemError) as caught:
            host.call("reference", *args)
        assert not host.alive
        with pytest.raises(ProblemError, match="not running"):
            host.call("reference", {})
    # A bound's wall time may stretch while the machine is busy, up to its cap (3x, or + 5 s).
    assert time.monotonic() - began < 15
    message = str(caught.value)
    assert message.startswith("problem error: ")
    return message


# -- a good package ------------------------------------------------------------------------
def test_a_good_package_answers_every_kind_of_call(sandbox, tmp_path):
    (tmp_path / "problem.py").write_text(textwrap.dedent(GOOD))
    (tmp_path / "boards").mkdir()
    with ProblemHost.for_folder(sandbox, tmp_path, time_s=0.5) as host:
        assert host.defined == {
            *("validate", "generate", "reference", "check", "canonical", "shrink"),
            *("explain", "WORST_CASES", "COMBINE_RULE"),
        }
        assert host.call("validate", {"n": 4}) is None
        with pytest.raises(InvalidCase, match="n must be a whole number"):
            host.call("validate", {"n": -1})
        first = host.call("generate", 7, "late")
        assert first == host.call("generate", 7, "late") != host.call("generate", 8, "late")
        assert first["profile"] == "late"
        assert host.call("reference", {"n": 4}) is True
        assert host.call("check", {"n": 4}, True, False) == [False, "wrong"]
        assert host.call("canonical", {"n": 4}) == [4, "n"]  # a tuple comes back as a list
        assert host.call("shrink", {"n": 8}) == [{"n": 4}, {"n": 2}, {"n": 1}, {"n": 0}]
        assert host.call("explain", {"n": 3}) == {"answer": False, "moves": [], "note": None}
        assert host.attribute("WORST_CASES") == [{"n": 999_999}]
        assert host.attribute("COMBINE_RULE").startswith("a position is won")
        answers = host.call_many("reference", [[{"n": n}] for n in range(1000)])
        assert answers == [n % 3 != 0 for n in range(1000)]
        checked = host.call_many("validate", [[{"n": 1}], [{"n": -5}], [{"x": 1}]])
        assert checked[0] is None
        assert [type(item) for item in checked[1:]] == [InvalidCase, InvalidCase]
        assert host.call_many("reference", []) == []
        assert host.call("reference", {"n": 5}, cpu_s=5.0) is True
        with pytest.raises(ValueError, match="defines no small_cases"):
            host.call("small_cases")  # the caller's mistake: asked for what is not defined
        assert host.alive
    assert not host.alive
    assert host.output == ""


def test_an_endless_shrink_is_cut(sandbox):
    body = GOOD + "\ndef shrink(case):\n    return forever()\n"
    with start(sandbox, body) as host:
        assert len(host.call("shrink", {"n": 5})) == 1000


def test_a_call_that_raises_is_a_problem_error_naming_its_line(sandbox):
    message = refused(sandbox, "return 1 // 0\n", {})
    assert "reference() raised ZeroDivisionError" in message
    assert "problem.py, line 7" in message


# -- packages that do not load -------------------------------------------------------------
def load_refused(sandbox, body: str, **limits) -> str:
    host = start(sandbox, body, **limits)
    with pytest.raises(ProblemError) as caught:
        host.__enter__()
    assert not host.alive
    return str(caught.value)


def test_a_crash_at_import_is_refused(sandbox):
    message = load_refused(sandbox, "import os\nTABLE = 1 / 0\n")
    assert "failed to load: ZeroDivisionError: division by zero (problem.py, line 2)" in message


def test_a_syntax_error_is_refused(sandbox):
    assert "failed to load: SyntaxError" in load_refused(sandbox, "def reference(case:\n")


def test_a_package_without_reference_is_refused(sandbox):
    body = "def validate(case):\n    pass\ndef generate(rng, p):\n    return {}\nreference = 3\n"
    assert "problem.py defines no reference()" in load_refused(sandbox, body)


def test_an_endless_import_is_stopped_at_the_load_budget(sandbox):
    began = time.monotonic()
    message = load_refused(sandbox, "while True:\n    pass\n", load_s=0.5)
    assert "loading problem.py used more than 0.5 s of CPU" in message
    assert time.monotonic() - began < 15


# -- time, memory, output ------------------------------------------------------------------
def test_an_endless_loop_is_stopped_at_its_cpu_budget(sandbox):
    began = time.monotonic()
    message = refused(sandbox, "while True:\n    pass\n", {})
    assert "reference() used more than 0.6 s of CPU" in message
    assert time.monotonic() - began < 15


def test_a_sleep_is_stopped_at_the_wall_bound(sandbox):
    message = refused(sandbox, "time.sleep(1000)\n", {})
    assert "reference() gave no answer within 1.9 s" in message


def test_a_batch_shares_the_budget_of_its_calls(sandbox):
    with start(sandbox, reference_of("time.sleep(case['s'])\nreturn 1\n")) as host:
        # Ten calls of 0.25 s asleep: over one call's wall bound (1.9 s), within the batch's.
        assert host.call_many("reference", [[{"s": 0.25}]] * 10) == [1] * 10
        with pytest.raises(ProblemError, match=r"a batch of 2 reference\(\) calls gave no"):
            host.call_many("reference", [[{"s": 0.0}], [{"s": 100}]], cpu_s=0.2)


def test_ten_gigabytes_at_once_is_a_memory_error(sandbox):
    message = refused(sandbox, "return len(bytearray(10 << 30))\n", {}, memory_mb=64)
    assert "MemoryError" in message


def test_growing_past_the_memory_limit_is_refused(sandbox):
    body = "kept = []\nwhile True:\n    kept.append(bytearray(1 << 20))\n"
    message = refused(sandbox, body, {}, memory_mb=64)
    assert "memory" in message.lower()


def test_a_flood_on_stdout_is_cut_and_refused(sandbox):
    body = "for _ in range(100):\n    sys.stdout.write('x' * (1 << 20))\nreturn 1\n"
    message = refused(sandbox, body, {})
    assert "printed more than 64 KiB" in message


def test_exiting_during_a_call_is_refused_with_what_it_printed(sandbox):
    body = "print('bye', flush=True)\nos._exit(3)\n"
    message = refused(sandbox, body, {})
    assert "exited with code 3 during reference()" in message
    assert "it printed: bye" in message


# -- what it may not reach -------------------------------------------------------------------
def test_it_cannot_fork(sandbox):
    assert "raised BlockingIOError" in refused(sandbox, "return os.fork()\n", {})


def test_it_has_no_network(sandbox):
    body = "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)\n"
    assert "raised PermissionError" in refused(sandbox, body, {})


def test_it_sees_only_the_stdlib_and_its_own_file(sandbox):
    body = """
    seen = {"/": sorted(os.listdir("/")), "/box": sorted(os.listdir("/box"))}
    for path in case["paths"]:
        try:
            with open(path) as f:
                seen[path] = f.read(100)
        except OSError as exc:
            seen[path] = type(exc).__name__
    return seen
    """
    judge_source = judge.__file__
    paths = ["/etc/passwd", "/etc/shadow", judge_source, "/proc/1/environ", "/box/problem.py"]
    with start(sandbox, reference_of(body)) as host:
        seen = host.call("reference", {"paths": paths})
    assert seen["/"] == ["box", "dev", "lib", "lib64", "proc", "tmp", "usr"]
    assert [n for n in seen["/box"] if not n.startswith(".")] == ["host_main.py", "problem.py"]
    assert seen["/etc/passwd"] == seen["/etc/shadow"] == "FileNotFoundError"
    assert seen[judge_source] == "FileNotFoundError"
    assert "JUDGE" not in seen["/proc/1/environ"]  # bwrap's own two variables at most
    assert seen["/box/problem.py"].startswith("import os")


def test_ctypes_reaches_no_further(sandbox):
    body = """
    try:
        import ctypes
    except ImportError:
        return "no ctypes"
    libc = ctypes.CDLL(None, use_errno=True)
    return [libc.fork(), libc.socket(2, 1, 0), ctypes.get_errno()]
    """
    with start(sandbox, reference_of(body)) as host:
        answer = host.call("reference", {})
    assert answer == "no ctypes" or answer == [-1, -1, 1]  # EAGAIN, then EPERM


# -- what it answers ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("return float('nan')\n", "returned a float (nan)"),
        ("return 0.5\n", "returned a float (0.5)"),
        ("return object()\n", "returned an object of type object"),
        ("return {1, 2}\n", "returned an object of type set"),
        ("return {1: 2}\n", "returned a dict with a key of type int"),
        ("return None\n", "reference() answered with null"),
        ("return 10 ** 5000\n", "an int with more than 4000 digits"),
        ("x = []\nfor _ in range(10 ** 6):\n    x = [x]\nreturn x\n", "nested deeper than 16"),
        ("return [0] * 600_000\n", "more than 500000 items"),
    ],
)
def test_an_answer_that_is_not_bounded_json_is_refused(sandbox, body, named):
    assert named in refused(sandbox, body, {})


def test_a_forged_report_of_another_call_is_refused(sandbox):
    body = f"""
    fd = int(sys.argv[sys.argv.index("--results-fd") + 1])
    os.write(fd, b'{{"id": {FIRST_ID + 5}, "ok": 1}}\\n')
    return 1
    """
    assert "answered out of turn" in refused(sandbox, body, {})


@pytest.mark.parametrize(
    ("forged", "named"),
    [
        (b'{"id": %d, "ok": NaN}', "NaN (not JSON)"),
        (b'{"id": %d, "ok": Infinity}', "Infinity (not JSON)"),
        (b'{"id": %d, "ok": 1e400}', "a float (1e400)"),
        (b'{"id": %d, "ok": 1, "ok": 2}', "a duplicate key"),
        (b'{"id": %d, "ok": 1', "not JSON"),
        (b'{"id": %d, "ok": "\\ud800"}', "lone surrogate"),
        (b'{"id": %d, "ok": 1, "extra": 2}', "a malformed report"),
        (b'{"id": %d, "error": 5}', "a malformed report"),
        (b'\xff{"id": %d}', "not JSON"),
    ],
)
def test_a_forged_line_is_decoded_strictly(sandbox, forged, named):
    line = forged % FIRST_ID + b"\n"
    body = f"""
    fd = int(sys.argv[sys.argv.index("--results-fd") + 1])
    os.write(fd, {line!r})
    time.sleep(5)
    """
    assert named in refused(sandbox, body, {})


def test_an_overlong_line_is_refused(sandbox):
    body = """
    fd = int(sys.argv[sys.argv.index("--results-fd") + 1])
    os.write(fd, b'{"id": 1, "ok": "' + b"x" * (9 << 20))
    time.sleep(5)
    """
    assert "a line longer than 8 MiB" in refused(sandbox, body, {})


def test_the_round_trip_is_cheap(sandbox):
    with start(sandbox, GOOD, time_s=1.0) as host:
        began = time.monotonic()
        for n in range(1000):
            host.call("reference", {"n": n})
        one_by_one = time.monotonic() - began
        began = time.monotonic()
        host.call_many("reference", [[{"n": n}] for n in range(10_000)])
        batched = time.monotonic() - began
    # Measured at about 80 us a call and 10 us a batched item on a loaded 2-core machine.
    assert one_by_one < 3.0
    assert batched < 3.0


# -- decoding, without a sandbox ------------------------------------------------------------------
def test_parse_line_refuses_what_json_loads_would_let_through():
    assert parse_line(b'{"id": 1, "ok": [true, "x", {"a": null}]}')["ok"][2] == {"a": None}
    for line, named in [
        (b'{"ok": NaN}', "NaN"),
        (b'{"ok": -Infinity}', "-Infinity"),
        (b'{"ok": 1.0}', "a float"),
        (b'{"ok": 1, "ok": 1}', "duplicate key"),
        (b"[1]", "not a JSON object"),
        (b'{"ok": ' + b"1" * 5000 + b"}", "not JSON"),
        (b'{"ok": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "not JSON"),
        (b'{"ok": [' + b"0," * (2 * MAX_VALUES) + b"0]}", "more than"),
    ]:
        with pytest.raises(MalformedLine, match=named):
            parse_line(line)


def test_decode_value_lets_through_bounded_exact_json_only():
    nested: list = []
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    assert decode_value(nested) is nested
    assert decode_value({"a": [1, True, "x"]}) == {"a": [1, True, "x"]}
    assert decode_value({"a": None}, allow_null=True) == {"a": None}
    for value, named in [
        ([nested], "deeper"),
        (None, "null"),
        (1.5, "float"),
        ((1, 2), "tuple"),
        ({1: 2}, "key"),
        (10**4000, "digits"),
        ("\udc80", "surrogate"),
        ([0] * (MAX_VALUES + 1), "items"),
    ]:
        with pytest.raises(MalformedLine, match=named):
            decode_value(value)


def test_the_host_holds_no_phase_and_a_hidden_run_cannot_skip_its_own(sandbox):
    from judge.sandbox import Command, RunLimits

    with start(sandbox, GOOD) as host:
        # A hidden tier run while the host lives must not wait for it (it would wait for
        # the whole grading holding the host).
        assert host._proc is not None and host._proc.phase_fd is None
        limits = RunLimits(cpu_s=1.0, wall_s=5.0, memory_bytes=64 << 20)
        with sandbox.run(Command(argv=("{python}", "-c", "pass")), limits, hidden=True):
            pass
        assert host.call("reference", {"n": 1}) is True
    with pytest.raises(ValueError, match="hidden phase"):
        sandbox.run(Command(argv=("{python}", "-c", "pass")), limits, hidden=True, phase=False)


def test_a_package_folder_gives_only_a_regular_problem_py(sandbox, tmp_path):
    with pytest.raises(ProblemError, match=r"problem\.py cannot be read"):
        ProblemHost.for_folder(sandbox, tmp_path)
    (tmp_path / "problem.py").symlink_to(judge.__file__)
    with pytest.raises(ProblemError, match=r"problem\.py cannot be read"):
        ProblemHost.for_folder(sandbox, tmp_path)
    (tmp_path / "problem.py").unlink()
    (tmp_path / "problem.py").mkdir()
    with pytest.raises(ProblemError, match="not a regular file"):
        ProblemHost.for_folder(sandbox, tmp_path)

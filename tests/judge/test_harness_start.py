"""The Python harness starts on the interpreter's bare minimum: json's C parts instead of json
(which imports re and enum), traceback only once a call raised (issue 24: 10 ms of every
sandboxed Python start)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from judge.languages.drivers import harness
from judge.sandbox.config import default_python

HEAVY = ("json", "re", "enum", "traceback")
CHANNELS = ("--results-fd", "1", "--tests-fd", "0", "--start", "0")


def some_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 3 else 7)
    if kind == 0:
        return rng.randint(-(10**30), 10**30)
    if kind == 1:
        return rng.random() * rng.choice([1, -1e300, 1e-300])
    if kind == 2:
        return rng.choice([True, False, None, float("inf"), float("-inf")])
    if kind in (3, 4):
        return "".join(
            chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x10FFFF)]))
            for _ in range(rng.randrange(6))
        ).replace("\ud800", "x")
    if kind in (5, 6):
        return rng.randrange(100)
    if kind == 7:
        return [some_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {str(some_value(rng, 3)): some_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def test_the_harness_codec_writes_and_reads_what_json_does() -> None:
    dumps, loads = harness.json_codec()
    assert dumps is not json.dumps  # the C parts, on this interpreter
    rng = random.Random(7)
    for _ in range(2000):
        value = some_value(rng)
        for separators in ((",", ":"), (", ", ": ")):
            text = dumps(value, separators)
            assert text == json.dumps(value, separators=separators)
            assert repr(loads(text.encode())) == repr(json.loads(text))
        assert dumps(value) == json.dumps(value)
    assert loads(b' [1, {"batch": 3}]\n') == [1, {"batch": 3}]
    assert loads(b"NaN") != loads(b"NaN") and loads(b"-Infinity") == float("-inf")
    for bad in (b"", b"[1] 2", b"[1,", b"\xff", b"{'a': 1}"):
        with pytest.raises(ValueError):
            loads(bad)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({1, 2})
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        dumps(loop)


def reports(tmp_path: Path, solution: str, tests: list[str]) -> list[dict[str, Any]]:
    """The harness run as the sandbox runs it (python -I -S -B, its folder holding
    solution.py), outside the sandbox: its report lines."""
    shutil.copy(harness.__file__, tmp_path / "harness.py")
    (tmp_path / "solution.py").write_text(solution)
    done = subprocess.run(
        [default_python(), "-I", "-S", "-B", str(tmp_path / "harness.py"), *CHANNELS],
        input="".join(line + "\n" for line in tests),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_harness_loads_neither_json_nor_traceback_until_a_call_raises(tmp_path: Path) -> None:
    solution = (
        "import sys\n"
        "def solution(x):\n"
        f"    loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "    if x == 0:\n"
        "        return 1 // x\n"
        "    return loaded\n"
    )
    ready, first, error, after = reports(tmp_path, solution, ["[1]", "[0]", "[2]"])
    assert ready == {"event": "ready"}
    assert first["answer"] == {"type": "list", "items": []}, first
    assert error["error"] == "ZeroDivisionError"
    assert 'File "solution.py", line 5, in solution' in error["traceback"]
    assert error["traceback"].endswith("ZeroDivisionError: integer division or modulo by zero\n")
    assert {item["str"] for item in after["answer"]["items"]} >= {"traceback"}

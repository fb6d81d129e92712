"""A package known by its declarations only (what the service's API holds of an upload)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.problems import InvalidCase
from judge.problems.declared import NotDeclared, declared_spec, describe
from judge.problems.package import Package

TICTACTOE = Path(__file__).with_name("tictactoe")
EMPTY = {"board": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}


def described(styles: list[str] | None = None) -> dict:
    package = Package.load(TICTACTOE)
    return describe(package, (TICTACTOE / "problem.toml").read_text(), styles)


def test_the_declarations_as_a_spec_run_no_code() -> None:
    data = described()
    assert data["title"] == "Tic-tac-toe" and data["boards"] == 2
    assert data["signature"] == {"params": [{"name": "board", "type": "int[][]"}], "returns": "int"}
    spec = declared_spec(data)
    assert spec.SLUG == "tictactoe" and spec.PARAMS == ("board",) and len(spec.SAMPLES) == 3
    assert spec.styles == ("function", "stdio") and spec.STDIO is not None
    assert spec.STDIO.statement == data["stdio"]
    spec.validate({"board": [[1, 1, 1], [1, 1, 1], [0, 0, 0]]})  # typed: validate() is the worker's
    with pytest.raises(InvalidCase, match="board"):
        spec.validate({"board": [[0.5]]})
    with pytest.raises(NotDeclared):
        spec.reference(EMPTY)
    assert spec.explain(EMPTY) == {"answer": 0, "moves": []}  # a sample: its answer
    with pytest.raises(NotDeclared):
        spec.explain({"board": [[1, 0, 0], [0, 0, 0], [0, 0, 0]]})


def test_the_worker_s_styles_replace_the_guess() -> None:
    assert declared_spec(described(["function"])).styles == ("function",)

"""Results as plain dicts (verdict.plain): what dataclasses.asdict made of them, faster."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from judge.grading.grade import grade
from judge.sandbox import SandboxConfig, make_sandbox
from judge.verdict import GradeResult

SUBMISSIONS = Path(__file__).parents[2] / "tests/submissions"


@pytest.fixture(scope="module")
def results() -> list[GradeResult]:
    sandbox = make_sandbox(SandboxConfig(mode="bwrap"))
    graded = []
    for path in ("wrong_answer/footholds_minmax_swapped.py", "accepted/footholds_minimax.py"):
        source = (SUBMISSIONS / path).read_bytes()
        hidden = [{"input": {"board": [[1, 1], [1, 1]], "aloc": [0, 0], "bloc": [1, 1]}}]
        graded.append(
            grade("footholds", source, hidden_cases=hidden, seed=4, random_count=2, sandbox=sandbox)
        )
    return graded


def test_a_result_is_the_dict_asdict_made(results: list[GradeResult]) -> None:
    wrong, right = results
    assert wrong.verdict == "WA" and right.verdict == "AC"
    assert any(t.counterexample for t in wrong.tests) and any(t.diagnosis for t in wrong.tests)
    assert any(t.positions for t in right.tests)  # the small tier's row
    for result in results:
        assert result.to_dict() == asdict(result)
        assert [test.to_dict() for test in result.tests] == [asdict(t) for t in result.tests]


def test_a_results_dict_shares_nothing_with_it(results: list[GradeResult]) -> None:
    wrong = results[0]
    data = wrong.to_dict()
    failing = next(i for i, t in enumerate(wrong.tests) if t.counterexample)
    data["tests"][failing]["input"]["board"][0][0] = 99
    data["tests"][failing]["counterexample"]["input"]["board"].clear()
    data["sandbox_notes"].append("changed")
    test = wrong.tests[failing]
    assert test.input is not None and test.input["board"][0][0] != 99
    assert test.counterexample is not None and test.counterexample.input["board"]
    assert "changed" not in wrong.sandbox_notes

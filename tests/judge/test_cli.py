"""The CLI contract other tools rely on (docs/ARCHITECTURE.md, "Contracts")."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from judge import problems
from judge.grading.plan import plan_size, small_positions
from tests.judge.corpus import CORRECT


def judge(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "judge", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_problems_lists_every_problem():
    out = judge("problems")
    assert out.returncode == 0
    assert "footholds" in out.stdout and "numbergame" in out.stdout


def test_grade_json_contract(tmp_path):
    path = tmp_path / "sol.py"
    path.write_text(CORRECT)
    hidden = tmp_path / "hidden.jsonl"
    hidden.write_text(
        json.dumps({"board": [[1, 1]], "aloc": [0, 0], "bloc": [0, 1]})
        + "\n"
        + json.dumps({"input": {"board": [[1]], "aloc": [0, 0], "bloc": [0, 0]}})
    )
    out = judge(
        "grade",
        "footholds",
        str(path),
        "--json",
        "--seed",
        "4",
        "--random",
        "5",
        "--hidden",
        str(hidden),
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    footholds = problems.get("footholds")
    assert result["verdict"] == "AC" and result["passed"] == result["total"] == plan_size(
        footholds, 2, 5
    )
    (small,) = [t for t in result["tests"] if t["kind"] == "small"]
    assert small["positions"] == len(small_positions(footholds)) > 1000
    assert result["seed"] == 4
    assert [t["kind"] for t in result["tests"]].count("hidden") == 2
    assert all(t["verdict"] == "AC" for t in result["tests"])


def test_grade_plan_boards_grades_only_the_boards_given(tmp_path):
    """`--plan boards`: the same work another judge is given (the bench compares with DMOJ on
    it), nothing of the problem's own plan; a wrong answer on a board is still found."""
    path = tmp_path / "sol.py"
    path.write_text(CORRECT)
    boards = [
        {"board": [[1, 1]], "aloc": [0, 0], "bloc": [0, 1]},
        {"board": [[1, 1, 1]], "aloc": [0, 0], "bloc": [0, 2]},
        {"board": [[1]], "aloc": [0, 0], "bloc": [0, 0]},
    ]
    hidden = tmp_path / "boards.jsonl"
    hidden.write_text("".join(json.dumps(board) + "\n" for board in boards))
    args = ("grade", "footholds", str(path), "--plan", "boards", "--hidden", str(hidden))
    out = judge(*args, "--json", "--random", "7")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["verdict"] == "AC" and result["passed"] == result["total"] == 3
    assert [t["kind"] for t in result["tests"]] == ["hidden"] * 3
    path.write_text("def solution(board, aloc, bloc):\n    return 0\n")
    result = json.loads(judge(*args, "--json").stdout)
    assert result["verdict"] == "WA" and result["total"] == 3
    refused = judge("grade", "footholds", str(path), "--plan", "boards")
    assert refused.returncode == 2 and "--hidden" in refused.stderr


def test_grade_wrong_answer_still_exits_zero_with_readable_table(tmp_path):
    path = tmp_path / "sol.py"
    path.write_text("def solution(board, aloc, bloc):\n    return 1\n")
    out = judge("grade", "footholds", str(path), "--seed", "1", "--random", "3")
    assert out.returncode == 0, out.stderr
    assert "WA (Wrong answer)" in out.stdout
    assert "expected 5, got 1" in out.stdout  # the first sample's line in the table


def test_grade_refuses_bad_hidden_file_and_unknown_problem(tmp_path):
    path = tmp_path / "sol.py"
    path.write_text(CORRECT)
    hidden = tmp_path / "hidden.jsonl"
    hidden.write_text('{"board": [[1, 2]], "aloc": [0, 0], "bloc": [0, 0]}\n')
    out = judge("grade", "footholds", str(path), "--hidden", str(hidden))
    assert out.returncode == 2 and "hidden.jsonl:1" in out.stderr
    out = judge("grade", "chess", str(path))
    assert out.returncode == 2 and "unknown problem 'chess'" in out.stderr


def test_solve_one_case_and_json_lines():
    case = {"board": [[1, 1, 1], [1, 1, 1], [1, 1, 1]], "aloc": [1, 0], "bloc": [1, 2]}
    out = judge("solve", "footholds", "--input", json.dumps(case))
    assert out.returncode == 0 and "answer: 5" in out.stdout
    lines = "\n".join(
        [json.dumps(case), "not json", json.dumps({"board": [[1]], "aloc": [0, 0], "bloc": [0, 0]})]
    )
    out = judge("solve", "footholds", "--input", "-", "--json", stdin=lines)
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert out.returncode == 1  # one line was invalid
    assert answers[0]["answer"] == 5 and answers[0]["winner"] == "A"
    assert len(answers[0]["moves"]) == 5
    assert "error" in answers[1] and answers[2]["answer"] == 0


def test_solve_numbergame():
    out = judge(
        "solve", "numbergame", "--input", '{"board": [7, -5, 8, 5, 1, -4, -8, 6, 7, 9]}', "--json"
    )
    assert out.returncode == 0
    assert json.loads(out.stdout)["answer"] == 7


def test_grade_diagnose_adds_where_the_bug_is(tmp_path):
    path = tmp_path / "swapped.py"
    path.write_text(SWAPPED_NUMBERGAME)
    done = judge("grade", "numbergame", str(path), "--random", "0", "--json", "--diagnose")
    result = json.loads(done.stdout)
    failing = next(t for t in result["tests"] if t["verdict"] != "AC")
    assert failing["diagnosis"]["summary"].startswith("Your function is wrong on this position")
    assert all(c["got"] == c["expected"] for c in failing["diagnosis"]["children"])
    text = judge("grade", "numbergame", str(path), "--random", "0", "--diagnose").stdout
    assert "where is the bug" in text
    plain = judge("grade", "numbergame", str(path), "--random", "0", "--json").stdout
    assert all(t["diagnosis"] is None for t in json.loads(plain)["tests"])


SWAPPED_NUMBERGAME = """
def solution(board):
    memo = {}
    def best(i, j):
        if i == j:
            return 0
        if (i, j) not in memo:
            options = [board[i] - best(i + 1, j), board[j - 1] - best(i, j - 1)]
            if j - i >= 2:
                options += [-best(i + 2, j), -best(i, j - 2)]
            memo[i, j] = min(options)
        return memo[i, j]
    return best(0, len(board))
"""


STDIO_NUMBERGAME = (
    Path(__file__).resolve().parents[1]
    / "submissions"
    / "python"
    / "accepted"
    / "numbergame_memo_stdio.py"
).read_text()


def test_grade_stdio_style_and_language_in_the_json(tmp_path):
    path = tmp_path / "whole.py"
    path.write_text(STDIO_NUMBERGAME)
    args = ("numbergame", "--json", "--seed", "2", "--random", "3")
    out = judge("grade", args[0], str(path), "--style", "stdio", *args[1:])
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert (result["verdict"], result["language"], result["style"]) == ("AC", "python", "stdio")
    # The same whole program in the default function style: loading it runs main() on an
    # empty stdin, which raises.
    out = judge("grade", args[0], str(path), *args[1:])
    result = json.loads(out.stdout)
    assert (result["verdict"], result["style"]) == ("RE", "function")
    assert "raised an exception while loading" in result["tests"][0]["message"]


def test_grade_language_from_the_extension_or_the_option(tmp_path):
    path = tmp_path / "solution.txt"
    path.write_text(CORRECT)
    out = judge("grade", "footholds", str(path), "--random", "1")
    assert out.returncode == 2
    assert "cannot tell the language of solution.txt" in out.stderr and ".py" in out.stderr
    out = judge("grade", "footholds", str(path), "--language", "python", "--random", "1", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["language"] == "python"
    out = judge("grade", "footholds", str(path), "--language", "cobol")
    assert out.returncode == 2 and "unknown language 'cobol'" in out.stderr


def test_grade_refuses_a_style_the_problem_does_not_offer(tmp_path):
    path = tmp_path / "sol.py"
    path.write_text(CORRECT)
    out = judge("grade", "footholds", str(path), "--style", "stdio")
    assert out.returncode == 2
    assert "footholds is not graded in style 'stdio'; offered: function" in out.stderr
    out = judge("grade", "footholds", str(path), "--style", "pipes")
    assert out.returncode == 2 and "invalid choice" in out.stderr


def test_languages_lists_name_title_extensions_and_version():
    out = judge("languages")
    assert out.returncode == 0, out.stderr
    rows = {line.split()[0]: line for line in out.stdout.splitlines()}
    assert "python" in rows
    assert re.search(r"Python 3\s+\.py\s+Python 3\.\d+\.\d+$", rows["python"]), rows["python"]
    for row in rows.values():
        assert row.rstrip().endswith("not installed") or re.search(r"\d", row), row

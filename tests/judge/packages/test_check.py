"""`problem check` in the real sandbox: the tic-tac-toe package passes every check (through
the command line, both output forms), and each broken copy of it (one thing broken) is
refused with the failed check named and what is wrong said."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.problem_check.check import check_package

TICTACTOE = Path(__file__).with_name("tictactoe")
NAMES = [
    "files",
    "problem.toml",
    "statement",
    "problem.py",
    "samples",
    "generate",
    "worst cases",
    "reference",
    "small tier",
    "boards",
    "submissions",
    "strength",
]


def judge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "judge", *args], capture_output=True, text=True, timeout=180
    )


def broken(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the package with `old` replaced by `new` in the file `name`."""
    folder = tmp_path / "tictactoe"
    shutil.copytree(TICTACTOE, folder)
    text = (folder / name).read_text()
    assert old in text, (name, old)
    (folder / name).write_text(text.replace(old, new, 1))
    return folder


def test_the_package_passes_every_check_on_the_command_line():
    out = judge("problem", "check", str(TICTACTOE), "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert set(report) == {"ok", "checks"} and report["ok"] is True
    assert [c["name"] for c in report["checks"]] == NAMES
    assert all(set(c) == {"name", "ok", "message"} and c["ok"] for c in report["checks"])
    strength = report["checks"][-1]["message"]
    assert "generated mutants killed" in strength
    # The one survivor is an equivalent mutant: the memo's early return deleted. Without its
    # memo the search takes close to the 1 s limit, so on some runs a TLE kills it too; no
    # other mutant may survive.
    assert strength.endswith(
        (
            "23 of 24 generated mutants killed; surviving: line 11: statement deleted",
            "24 of 24 generated mutants killed",
        )
    ), strength

    out = judge("problem", "check", str(TICTACTOE), "--no-strength")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[0] for line in lines[: len(NAMES) - 1]] == ["ok"] * (len(NAMES) - 1)
    assert "small tier" in out.stdout and "162 after canonical()" in out.stdout
    assert lines[-1].endswith("all checks pass")


def test_grading_against_a_package_folder(tmp_path):
    for name, verdict in [("accepted/minimax.py", "AC"), ("wrong_answer/one_ply.py", "WA")]:
        out = judge("grade", str(TICTACTOE), str(TICTACTOE / "submissions" / name), "--json")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert result["verdict"] == verdict and result["problem"] == "tictactoe"
        assert [t["kind"] for t in result["tests"]].count("hidden") == 2  # its boards
    out = judge("grade", str(tmp_path), str(TICTACTOE / "submissions/accepted/minimax.py"))
    assert out.returncode == 2 and "problem.toml" in out.stderr


HOSTILE = {
    "a sample disagrees with the reference": (
        "problem.toml",
        "[0, 0, 0]] }\nanswer = 0",
        "[0, 0, 0]] }\nanswer = 1",
        "samples",
        "samples[0]: the answer is 1, but reference() says 0",
    ),
    "generate is not deterministic": (
        "problem.py",
        "    cells = (0,) * 9\n    for _ in range(rng",
        "    import random\n\n    rng = random.Random()\n"
        "    cells = (0,) * 9\n    for _ in range(rng",
        "generate",
        "is not deterministic",
    ),
    "generate gives invalid cases": (
        "problem.py",
        "        cells = rng.choice(after)\n",
        "        cells = rng.choice(after)\n    cells = (2,) + cells[1:]\n",
        "generate",
        "gave a case validate() refuses",
    ),
    "reference answers a str for an int": (
        "problem.py",
        "    return _value(_flat(case))",
        "    return str(_value(_flat(case)))",
        "samples",
        'must be an int (got "0")',
    ),
    "reference hangs": (
        "problem.py",
        "def reference(case):\n",
        "def reference(case):\n    while True:\n        pass\n",
        "samples",
        "CPU",
    ),
    "reference is too slow on large cases": (
        "problem.py",
        "def reference(case):\n",
        "def reference(case):\n    if sum(map(bool, _flat(case))) > 6:\n"
        "        import time\n        end = time.process_time() + 1.2\n"
        "        while time.process_time() < end:\n            pass\n",
        "reference",
        "of CPU, over 1 s",
    ),
    "problem.py does not load": (
        "problem.py",
        "SMALL_PIECES = 4",
        "SMALL_PIECES = 4 / 0",
        "problem.py",
        "ZeroDivisionError",
    ),
    "canonical is inconsistent": (
        "problem.py",
        "    return min(_symmetries(_flat(case)))",
        "    return sum(_flat(case))",
        "small tier",
        "canonical() is the same for",
    ),
    "a board is invalid": (
        "boards/fork.json",
        "[0, 0, 1]",
        "[0, 1, 1]",
        "boards",
        "boards/fork.json: validate() refuses it",
    ),
    "problem.toml has a typo": (
        "problem.toml",
        "random = 12",
        "randm = 12",
        "problem.toml",
        "unknown key 'randm'",
    ),
}


@pytest.mark.parametrize("what", HOSTILE)
def test_a_broken_package_is_refused_naming_the_check(sandbox, tmp_path, what):
    name, old, new, check, fragment = HOSTILE[what]
    folder = broken(tmp_path, name, old, new)
    report = check_package(folder, sandbox, submissions=False)
    failed = {c.name: c.message for c in report.checks if not c.ok}
    assert not report.ok
    assert check in failed, report.to_json()
    assert fragment in failed[check], failed[check]
    # What runs before the broken thing still passes; what depends on it says it was skipped.
    first = next(c.name for c in report.checks if not c.ok)
    assert first == check, report.to_json()
    assert [c.name for c in report.checks] == NAMES[:-2]  # every check is reported
    if check == "problem.py":
        assert failed["samples"] == "skipped: problem.py did not load (see problem.py)"


def test_a_wrong_submission_in_accepted_fails_the_submissions_check(sandbox, tmp_path):
    folder = broken(tmp_path, "statement.md", "Two players", "Two people")
    shutil.copy(folder / "submissions/wrong_answer/one_ply.py", folder / "submissions/accepted")
    report = check_package(folder, sandbox, strength=False)
    failed = {c.name: c.message for c in report.checks if not c.ok}
    assert list(failed) == ["submissions"]
    assert "submissions/accepted/one_ply.py: expected AC, got WA" in failed["submissions"]


def test_a_package_that_does_not_load_skips_what_needs_its_code(sandbox, tmp_path):
    folder = broken(tmp_path, "problem.py", "def reference(case):", "def reference_(case):")
    report = check_package(folder, sandbox)
    by_name = {c.name: c for c in report.checks}
    assert [c.name for c in report.checks] == NAMES
    assert "defines no reference()" in by_name["problem.py"].message
    for name in NAMES[4:]:
        assert not by_name[name].ok
        assert by_name[name].message.startswith("skipped: problem.py did not load")
    out = judge("problem", "check", str(folder), "--no-strength")
    assert out.returncode == 1
    assert "FAILED problem.py" in out.stdout and "checks FAILED" in out.stdout


def test_submissions_out_of_place_are_named(sandbox, tmp_path):
    folder = broken(tmp_path, "statement.md", "Two players", "Two people")
    (folder / "submissions/notes.py").write_text("")
    (folder / "submissions/accepted/README.md").write_text("the minimax one")
    (folder / "submissions/slow").mkdir()
    (folder / "submissions/slow/a.py").write_text("")
    report = check_package(folder, sandbox, strength=False)
    message = {c.name: c.message for c in report.checks if not c.ok}["submissions"]
    assert "submissions/notes.py: not in a verdict folder" in message
    assert "submissions/accepted/README.md: no language has this extension" in message
    assert "submissions/slow/a.py: slow/ is not a verdict folder" in message
    assert "minimax.py" not in message and "one_ply.py" not in message

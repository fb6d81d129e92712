"""Package.load and its digest, and problem_spec's checks of what problem.py answers: typed
answers, valid generated cases, memoized answers asked for in batches. In-process
(ImportedCode) where the sandbox adds nothing: test_code.py shows both behave alike."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from judge.answers import Opaque
from judge.grading.grade import grade
from judge.grading.plan import plan_tests, small_answers, small_positions
from judge.problems.bind import (
    _answer_memo,
    _valid_memo,
    builtin_problem,
    decode_known,
    known_answers,
    problem_spec,
)
from judge.problems.code import ImportedCode
from judge.problems.host import ProblemError
from judge.problems.manifest import ManifestError
from judge.problems.package import Package
from judge.problems.spec import InvalidCase
from judge.verdict import TestKind, Verdict

TICTACTOE = Path(__file__).with_name("tictactoe")


class CountingCode(ImportedCode):
    """ImportedCode that counts the calls reaching problem.py."""

    def __init__(self, source: bytes) -> None:
        super().__init__(source, module_name="counted_problem")
        self.calls: list[tuple[str, int]] = []  # (name, how many cases)

    def call(self, name: str, *args: Any, cpu_s: float | None = None) -> Any:
        self.calls.append((name, 1))
        return super().call(name, *args, cpu_s=cpu_s)

    def call_many(self, name, args_list, *, cpu_s=None):
        self.calls.append((name, len(args_list)))
        return super().call_many(name, args_list, cpu_s=cpu_s)


def copied(tmp_path: Path, edit: dict[str, tuple[str, str]] | None = None) -> Path:
    """The test package copied, each file's text replaced as `edit` says (old, new)."""
    folder = tmp_path / "tictactoe"
    shutil.copytree(TICTACTOE, folder)
    for name, (old, new) in (edit or {}).items():
        text = (folder / name).read_text()
        assert old in text, (name, old)
        (folder / name).write_text(text.replace(old, new))
    return folder


def test_a_package_loads_with_its_declarations_and_a_digest(tmp_path):
    package = Package.load(TICTACTOE)
    assert package.slug == "tictactoe" and package.manifest.param_names == ("board",)
    assert package.statement.startswith("# Tic-tac-toe")
    assert "one answer per line" in package.stdio
    assert [b.name for b in package.boards] == ["corner.json", "fork.json"]
    assert [f for f, _ in package.submissions()] == ["accepted", "wrong_answer"]
    assert len(package.digest) == 64
    folder = copied(tmp_path)
    assert Package.load(folder).digest == package.digest  # the files, not where they are
    (folder / "boards" / "fork.json").rename(folder / "boards" / "fork2.json")
    renamed = Package.load(folder).digest
    assert renamed != package.digest
    (folder / "statement.md").write_text(package.statement + " ")
    assert Package.load(folder).digest not in (package.digest, renamed)


def test_a_blank_stdio_md_is_refused(tmp_path):
    folder = copied(tmp_path)
    (folder / "stdio.md").write_text("\n")
    with pytest.raises(ManifestError, match=r"stdio\.md: empty"):
        Package.load(folder)


def test_the_small_tier_is_answered_in_one_batch_and_memoized(tmp_path):
    # A copy with a changed statement: a version of its own, nothing memoized yet.
    folder = copied(tmp_path, {"statement.md": ("Two players", "Two people")})
    package = Package.load(folder)
    code = CountingCode(package.source())
    problem = problem_spec(package, code)
    assert len(small_positions(problem)) == 162
    assert len(small_answers(problem)) == 162
    assert ("reference", 162) in code.calls
    assert sum(n for name, n in code.calls if name == "reference") == 162
    assert ("canonical", 1090) in code.calls  # every position's key in one batch too
    code.calls.clear()
    again = problem_spec(package, code)  # the same version: answers memoized
    assert again.answers(small_positions(problem)) == small_answers(problem)
    assert not [c for c in code.calls if c[0] == "reference"]
    plan = plan_tests(problem, seed=9)
    batches = [n for name, n in code.calls if name == "reference"]
    assert len(batches) <= 1  # worst cases and random boards: one batch at most
    assert all(t.expected is not None for t in plan)


def test_types_and_validity_of_what_problem_py_answers_are_held(tmp_path):
    folder = copied(
        tmp_path,
        {
            "problem.py": (
                "def reference(case):\n    return _value(_flat(case))",
                "def reference(case):\n    return str(_value(_flat(case)))",
            )
        },
    )
    package = Package.load(folder)
    problem = problem_spec(package, ImportedCode(package.source(), module_name="str_problem"))
    with pytest.raises(ProblemError, match=r"reference\(\) on .*must be an int \(got \"0\"\)"):
        problem.reference({"board": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]})
    with pytest.raises(InvalidCase, match=r"case\.board\[0\]\[1\]: must be an int"):
        problem.validate({"board": [[0, "x", 0], [0, 0, 0], [0, 0, 0]]})
    with pytest.raises(InvalidCase, match="X moves first"):
        problem.validate({"board": [[2, 0, 0], [0, 0, 0], [0, 0, 0]]})

    bad = copied(
        tmp_path / "bad",
        {
            "problem.py": (
                "    return _case(cells)\n\n\ndef _sym",
                "    return _case((1,) * 9)\n\n\ndef _sym",
            )
        },
    )
    broken = Package.load(bad)
    problem = problem_spec(broken, ImportedCode(broken.source(), module_name="bad_problem"))
    with pytest.raises(ProblemError, match=r"generate\(seed \d+, 'late'\) gave a case validate"):
        problem.generate(random.Random(1), "late")


def test_the_defaults_of_what_problem_py_leaves_out(tmp_path):
    cut = "\ndef shrink(case):"
    folder = copied(tmp_path)
    source = (folder / "problem.py").read_text()
    (folder / "problem.py").write_text(source[: source.index(cut)] + "\n")  # no shrink and on
    package = Package.load(folder)
    problem = problem_spec(package, ImportedCode(package.source(), module_name="bare_problem"))
    case = {"board": [[1, 1, 0], [2, 2, 0], [0, 0, 0]]}
    assert problem.explain(case) == {"answer": 1, "moves": []}
    assert list(problem.shrink(case)) == []
    assert problem.check(case, 1, 1)[0] and not problem.check(case, 1, 0)[0]
    assert problem.STDIO is None and problem.styles == ("function",)
    assert problem.game_tree is not None  # children() is before shrink() in the file


def test_a_built_in_package_is_imported():
    problem = builtin_problem(TICTACTOE)
    assert problem.SLUG == "tictactoe" and problem.reference(problem.SAMPLES[1]["input"]) == 1


def test_a_custom_check_sees_only_answers_of_the_declared_type(tmp_path):
    folder = copied(tmp_path)
    with (folder / "problem.py").open("a") as source:
        source.write(
            "\n\ndef check(case, expected, got):\n"
            "    return (abs(expected - got) <= 1, 'near enough' if abs(expected - got) <= 1"
            " else 'far')\n"
        )
    package = Package.load(folder)
    problem = problem_spec(package, ImportedCode(package.source(), module_name="near_problem"))
    case = {"board": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}
    assert problem.check(case, 0, 1) == (True, "near enough")
    assert problem.check(case, -1, 1) == (False, "far")
    ok, message = problem.check(case, 0, Opaque("float", "0.5"))
    assert not ok and "expected an int" in message


class LoggingCode(CountingCode):
    """CountingCode that also keeps every case a call was about."""

    def __init__(self, source: bytes) -> None:
        super().__init__(source)
        self.cases: list[tuple[str, Any]] = []

    def call(self, name: str, *args: Any, cpu_s: float | None = None) -> Any:
        self.cases += [(name, arg) for arg in args]
        return super().call(name, *args, cpu_s=cpu_s)

    def call_many(self, name, args_list, *, cpu_s=None):
        self.cases += [(name, arg) for args in args_list for arg in args]
        return super().call_many(name, args_list, cpu_s=cpu_s)


def test_a_grading_with_stored_answers_asks_problem_py_nothing_about_hidden_boards(
    tmp_path, sandbox
):
    # A version of its own (nothing memoized): its answers computed once, as the check does.
    folder = copied(tmp_path, {"statement.md": ("Two players", "Two sides")})
    package = Package.load(folder)
    known = known_answers(package, problem_spec(package, CountingCode(package.source())))
    assert len(known.hidden) == 2 and len(known.worst) == 1
    stored = decode_known(json.loads(json.dumps(known.to_json())), package)
    # Another process later (the grading worker): a fresh memo, the stored answers given.
    for memo in (_answer_memo, _valid_memo):
        memo.pop(package.digest, None)
    code = LoggingCode(package.source())
    problem = problem_spec(package, code, stored)
    boards = [
        {"input": b.case, "answer": a} for b, a in zip(package.boards, stored.hidden, strict=True)
    ]
    solution = (folder / "submissions" / "accepted" / "minimax.py").read_bytes()
    result = grade(problem, solution, hidden_cases=boards, seed=3, sandbox=sandbox)
    assert result.verdict is Verdict.AC, result.message
    assert sum(t.kind is TestKind.HIDDEN for t in result.tests) == 2
    hidden = [b.case for b in package.boards] + list(problem.WORST_CASES)
    # (These boards are small positions too: the small tier's canonical() keys every one.)
    asked = [(name, case) for name, case in code.cases if case in hidden and name != "canonical"]
    assert asked == [], asked  # neither reference() nor validate() saw a stored case
    assert any(name == "reference" for name, _ in code.cases)  # the random boards' answers


def test_stored_answers_are_decoded_strictly(tmp_path):
    package = Package.load(TICTACTOE)
    assert decode_known({"hidden": [1, 0], "worst": [0]}, package).hidden == [1, 0]
    for wrong, message in [
        ([1, 0], "must be"),
        ({"hidden": [1], "worst": []}, "one per board"),
        ({"hidden": [1, "0"], "worst": []}, "must be an int"),
        ({"hidden": [1, 0], "worst": [True]}, "must be an int"),
        ({"hidden": [1, 0], "worst": [], "more": 1}, "must be"),
    ]:
        with pytest.raises(ValueError, match=message):
            decode_known(wrong, package)

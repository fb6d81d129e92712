"""A built-in problem.py's compiled code kept between commands (judge/problems/code.py)."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from judge.problems import builtin_dir, code

SOURCE = (builtin_dir() / "footholds" / "problem.py").read_bytes()


def no_compile(*args, **kwargs):
    raise AssertionError("compiled again")


def test_the_second_load_reads_the_code_the_first_compiled(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "code"
    folder.mkdir(mode=0o700)
    first = code.compiled(SOURCE, str(folder))
    assert [p.suffix for p in folder.iterdir()] == [".code"]
    monkeypatch.setattr(code, "compile", no_compile, raising=False)
    again = code.compiled(SOURCE, str(folder))
    assert again == first and again.co_filename == "problem.py"
    with pytest.raises(AssertionError, match="compiled again"):  # another source: compiled
        code.compiled(SOURCE + b"\n# changed\n", str(folder))


@pytest.mark.parametrize("damage", ["not ours alone", "garbled", "not code"])
def test_what_cannot_be_trusted_or_read_back_is_compiled_afresh(
    tmp_path: Path, damage: str
) -> None:
    folder = tmp_path / "code"
    folder.mkdir(mode=0o700)
    code.compiled(SOURCE, str(folder))
    [kept] = folder.iterdir()
    if damage == "not ours alone":
        os.chmod(folder, 0o777)  # anyone could have written it: not read
        kept.write_bytes(marshal.dumps(compile("forged = 1", "problem.py", "exec")))
    elif damage == "garbled":
        kept.write_bytes(kept.read_bytes()[:100])
    else:
        kept.write_bytes(marshal.dumps(("a", "tuple")))
    expected = compile(SOURCE.decode(), "problem.py", "exec", dont_inherit=True)
    assert code.compiled(SOURCE, str(folder)) == expected


def test_a_built_in_problem_loads_from_the_kept_code(monkeypatch) -> None:
    code.compiled(SOURCE)  # kept in the default folder, if it was not already
    monkeypatch.setattr(code, "compile", no_compile, raising=False)
    module = code.ImportedCode(SOURCE, module_name="judge_test_problem_code").module
    assert callable(module.reference)

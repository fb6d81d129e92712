"""What is worked out from a package's files once and kept between processes
(judge/problems/kept.py): problem.py's compiled code, problem.toml's table."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from judge.problems import builtin_dir, code, manifest
from judge.problems.manifest import ManifestError

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


TOML = (builtin_dir() / "footholds" / "problem.toml").read_text()


def test_a_kept_toml_table_is_the_one_tomllib_reads(tmp_path: Path, monkeypatch) -> None:
    import tomllib

    folder = tmp_path / "kept"
    folder.mkdir(mode=0o700)
    table = manifest.toml_table(TOML, str(folder))
    assert table == tomllib.loads(TOML)
    [kept_file] = folder.iterdir()
    assert kept_file.name.endswith(".toml.json")

    def no_parse(text: str) -> dict:
        raise AssertionError("parsed again")

    monkeypatch.setattr(tomllib, "loads", no_parse)
    assert manifest.toml_table(TOML, str(folder)) == table
    with pytest.raises(AssertionError, match="parsed again"):
        manifest.toml_table(TOML + "\n# changed\n", str(folder))


def test_what_json_cannot_give_back_is_not_kept_and_bad_toml_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "kept"
    folder.mkdir(mode=0o700)
    dated = 'slug = "x"\nwhen = 2026-12-04\n'
    assert str(manifest.toml_table(dated, str(folder))["when"]) == "2026-12-04"
    with pytest.raises(ManifestError, match="not valid TOML"):
        manifest.toml_table("slug = ", str(folder))
    assert list(folder.iterdir()) == []


def test_a_fresh_process_loads_a_built_in_problem_without_tomllib_or_compiling() -> None:
    import json
    import subprocess
    import sys

    from judge import problems

    problems.get("footholds")  # kept, if no process on this machine kept it yet
    check = (
        "import builtins, json, sys\n"
        "def no_compile(*a, **k):\n"
        "    raise AssertionError('compiled')\n"
        "from judge.problems import code\n"
        "code.compile = no_compile\n"
        "from judge import problems\n"
        "problems.get('footholds')\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=60, check=True
    )
    assert "tomllib" not in json.loads(done.stdout)


def test_only_a_built_in_packages_table_is_kept(tmp_path: Path) -> None:
    """An uploaded package's problem.toml is parsed once per upload: keeping each would only
    fill the folder."""
    folder = tmp_path / "kept"
    folder.mkdir(mode=0o700)
    assert manifest.toml_table(TOML, str(folder), keep=False)["slug"] == "footholds"
    assert list(folder.iterdir()) == []


def test_a_folder_reached_through_a_link_is_not_read(tmp_path: Path) -> None:
    """The folder is checked by its open descriptor, never followed through a link: one
    swapped for a link to a folder of someone else's choosing is not read."""
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    code.compiled(SOURCE, str(real))
    [kept_file] = real.iterdir()
    kept_file.write_bytes(marshal.dumps(compile("forged = 1", "problem.py", "exec")))
    link = tmp_path / "link"
    link.symlink_to(real)
    expected = compile(SOURCE.decode(), "problem.py", "exec", dont_inherit=True)
    assert code.compiled(SOURCE, str(link)) == expected
    assert code.compiled(SOURCE, str(real)) != expected  # read from the folder itself

"""What a fresh `python -m judge grade` loads: only what grading one problem needs (issue 24:
the command's start is most of its time on a small grading)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge import problems


def loaded_after(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running `code`."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(out.stdout)


def test_get_loads_only_the_problem_asked_for():
    modules = loaded_after("from judge import problems; problems.get('footholds')")
    builtins = [m for m in modules if m.startswith("judge_builtin_problem_")]
    assert builtins == ["judge_builtin_problem_footholds"]


def test_get_and_the_registry_share_one_spec_and_a_slug_is_never_a_path():
    assert problems.get("footholds") is problems.registry()["footholds"]
    for slug in ("../problems/footholds", "footholds/", ".", "", "chess"):
        with pytest.raises(problems.UnknownProblem, match=r"known: .*footholds"):
            problems.get(slug)


def test_the_command_line_loads_the_grading_only_once_the_sandbox_starts():
    """`grade` starts the sandbox's start-up check first and loads the problems, languages
    and grading while it runs: importing judge.cli must not load them already."""
    modules = loaded_after("import judge.cli")
    heavy = ("judge.problems", "judge.languages", "judge.grading", "judge.execution")
    early = [m for m in modules if m.startswith(heavy) or m in ("judge.sandbox.front", "tomllib")]
    assert early == []


def test_naming_a_files_language_imports_that_language_only():
    from judge import languages

    every = languages.all_languages()
    assert {
        ext: name for name, language in every.items() for ext in language.extensions
    } == languages.EXTENSIONS
    for name, language in every.items():
        assert languages.get_language(name) is language
        assert languages.by_extension(f"sol{language.extensions[-1].upper()}") is language
    assert languages.by_extension("sol.rb") is None
    modules = loaded_after("from judge import languages; languages.by_extension('sol.py')")
    others = ("cpp", "java", "kotlin", "jvm")
    assert "judge.languages.python" in modules
    assert [m for m in modules if m.startswith(tuple(f"judge.languages.{o}" for o in others))] == []


def test_a_language_that_cannot_run_is_refused_though_its_version_is_asked_meanwhile(
    monkeypatch, capsys
):
    """grade asks the language's version in a thread while it reads the files; an error
    there is not cached, so grade() asks again and refuses as it always did."""
    from judge import cli
    from judge.languages import LanguageUnavailable, python

    asked = []

    def version() -> str:
        asked.append(1)
        raise LanguageUnavailable("python3 cannot run here: test")

    monkeypatch.setattr(python, "_version", version)
    solution = str(Path(__file__).parents[2] / "tests/submissions/accepted/footholds_minimax.py")
    assert cli.main(["grade", "footholds", solution, "--json"]) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("error: python3 cannot run here: test\n")
    assert len(asked) == 2  # the thread's question, then grade()'s


SOLUTION = Path(__file__).parents[2] / "tests/submissions/accepted/footholds_minimax.py"


def some_boards(tmp_path: Path, count: int) -> Path:
    import random

    rng = random.Random(5)
    footholds = problems.get("footholds")
    boards = tmp_path / "boards.jsonl"
    boards.write_text(
        "".join(json.dumps(footholds.generate(rng, "random")) + "\n" for _ in range(count))
    )
    return boards


def test_the_collector_is_turned_back_on_for_the_grading_only_if_the_command_turned_it_off(
    tmp_path, capsys
):
    import gc

    from judge import cli

    boards = some_boards(tmp_path, 3)
    command = ["grade", "footholds", str(SOLUTION), "--plan", "boards", "--hidden", str(boards)]
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert cli.main([*command, "--json"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0  # a caller's collector is its own
    gc.disable()
    try:
        assert cli.main([*command, "--json"]) == 0
        assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["verdict"] == "AC"


def test_the_command_says_nothing_but_its_tests_while_the_check_runs_on_a_thread(tmp_path):
    """The start-up check forks on a thread of its own while the command imports the grading
    (bwrap.StartupCheck). A fork handler registered by an import between the fork's "before"
    and "after" handlers has its lock released unheld: "Exception ignored ... release unlocked
    lock" on stderr (seen once in ten runs). The modules that register such handlers are in
    before the thread starts, and stderr has the tests' lines only."""
    modules = loaded_after("import judge.sandbox.bwrap")
    assert {"logging", "concurrent.futures.thread"} <= set(modules)
    boards = some_boards(tmp_path, 20)
    command = ["grade", "footholds", str(SOLUTION), "--plan", "boards", "--hidden", str(boards)]
    done = subprocess.run(
        [sys.executable, "-m", "judge", *command, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["passed"] == 20
    assert len(done.stderr.splitlines()) == 20, done.stderr  # one line per test


def test_a_command_ends_without_the_teardown_yet_writes_and_cleans_up_everything(tmp_path):
    """`python -m judge` ends with os._exit once its work returned (judge/__main__.py): its
    buffered output is all written, the exit handlers ran, its sandboxes' folders are gone."""
    import os
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="judge-test-exit-"))  # the sandbox's uid passes it
    tmp.chmod(0o711)
    boards = some_boards(tmp_path, 3)  # its JSON fits in the buffer: written only if flushed
    command = ["grade", "footholds", str(SOLUTION), "--plan", "boards", "--hidden", str(boards)]
    done = subprocess.run(
        [sys.executable, "-m", "judge", *command, "--json"],
        # Buffered output: what the end would lose unflushed.
        env={
            **{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
            "TMPDIR": str(tmp),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["passed"] == 3
        assert len(done.stderr.splitlines()) == 3
        assert [p.name for p in tmp.iterdir() if p.name.startswith("judge-box-")] == []
    finally:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    marker = tmp_path / "handled"
    code = (
        "import atexit, pathlib, runpy, sys\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'ran')\n"
        "sys.argv = ['judge', 'problems']\n"
        "runpy.run_module('judge', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "footholds" in done.stdout
    assert marker.read_text() == "ran"

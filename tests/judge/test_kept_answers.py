"""A toolchain's answers about itself are asked once per binary and machine user
(judge/languages/kept_answers.py); the C++ side is in test_language_cpp.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from judge.languages import kept_answers, python
from judge.sandbox import layout


def test_pythons_version_is_asked_once_per_interpreter(tmp_path, monkeypatch):
    monkeypatch.setattr(kept_answers, "folder", lambda: str(tmp_path))
    asked: list[list[str]] = []
    ask = python.ask_tool
    monkeypatch.setattr(
        python, "ask_tool", lambda argv, tool: asked.append(argv) or ask(argv, tool)
    )

    def version() -> str:
        python._version.cache_clear()  # as in a fresh process
        return python._version()

    try:
        first = version()
        assert first.startswith("Python 3.") and len(asked) == 1
        assert version() == first and len(asked) == 1  # kept
        monkeypatch.setattr(kept_answers, "identity", lambda binary: ["/usr/bin/python9", 1, 2, 3])
        assert version() == first and len(asked) == 2  # another interpreter: asked again
    finally:
        python._version.cache_clear()


def test_answers_are_kept_only_in_a_folder_of_ours_alone(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setattr(kept_answers.tempfile, "gettempdir", lambda: str(shared))
    assert kept_answers.folder() is not None
    mine = shared / f"judge-tools-{os.geteuid()}"
    assert mine.stat().st_mode & 0o777 == 0o700
    mine.chmod(0o777)  # anyone could write answers there
    assert kept_answers.folder() is None
    asked: list[str] = []
    for _ in range(2):
        said = kept_answers.answers("sh", "/bin/sh", ["q"], lambda q: asked.append(q) or "a")
        assert said == {"q": "a"}
    assert asked == ["q", "q"]  # never kept there, never read from there


def test_the_libraries_a_toolchain_loads_are_listed_once_per_file_set(tmp_path, monkeypatch):
    monkeypatch.setattr(kept_answers, "folder", lambda: str(tmp_path / "kept"))
    (tmp_path / "kept").mkdir(mode=0o700)
    tool = tmp_path / "tool"
    tool.write_bytes(Path("/usr/bin/true").read_bytes())
    asked: list[list[str]] = []
    monkeypatch.setattr(
        kept_answers,
        "shared_libraries",
        lambda files: asked.append(files) or layout.shared_libraries(files),
    )
    files = [str(tool), "/usr/bin/env"]

    first = kept_answers.libraries(files)
    assert first == layout.shared_libraries(files) and any("libc.so" in d for d, _ in first)
    assert kept_answers.libraries(files) == first and len(asked) == 1  # kept
    assert kept_answers.libraries(["/usr/bin/env"]) and len(asked) == 2  # another set of files

    tool.write_bytes(tool.read_bytes() + b"\0")  # the binary changed: asked again
    assert kept_answers.libraries(files) == first and len(asked) == 3

    [kept] = [p for p in (tmp_path / "kept").glob("ldd-*") if str(tool) in p.read_text()]
    stored = json.loads(kept.read_text())
    stored["libraries"].append(["/lib/gone.so", str(tmp_path / "gone.so")])
    kept.write_text(json.dumps(stored))  # a library it named is gone: asked again
    assert kept_answers.libraries(files) == first and len(asked) == 4

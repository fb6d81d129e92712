"""A toolchain's answers about itself are asked once per binary and machine user
(judge/languages/kept_answers.py); the C++ side is in test_language_cpp.py."""

from __future__ import annotations

import os

from judge.languages import kept_answers, python


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

"""docs/configuration.md's table of which limits apply to which language says what the plug-ins
do."""

from __future__ import annotations

from pathlib import Path

from judge.languages import get_language, jvm

DOC = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
SECTION = DOC.split("\n## Languages\n", 1)[1].split("\n## ", 1)[0]


def row(name: str) -> str:
    return next(line for line in SECTION.splitlines() if line.startswith(f"| {name} |"))


def test_the_jvm_figures_are_the_plug_ins():
    assert f"plus {jvm.TIME_EXTRA_S:g} s (`time_extra_s`)" in row("time per test")
    assert get_language("java").time_extra_s == get_language("kotlin").time_extra_s
    assert f"+ {jvm.MEMORY_EXTRA_MB} MB (`memory_extra_mb`" in row("memory")
    assert f"up to {jvm.PIDS} tasks" in row("processes, files")
    assert f"{jvm.NOFILE} open files" in row("processes, files")
    compiling = row("compilation, in the sandbox")
    assert f"javac {jvm.JAVAC_TIME_S:g} s CPU, kotlinc {jvm.KOTLINC_TIME_S:g} s CPU" in compiling


def test_the_cpp_compile_limits_are_the_plug_ins():
    limits = get_language("cpp").build_limits()
    wanted = (
        f"g++ {limits.cpu_s:g} s CPU, {limits.wall_s:g} s wall, {limits.memory_bytes >> 30} GiB"
    )
    assert wanted in row("compilation, in the sandbox")
    assert f"{limits.pids} tasks" in row("compilation, in the sandbox")


def test_every_language_is_in_the_table():
    for name in ("python", "cpp", "java", "kotlin"):
        language = get_language(name)
        assert f"| {language.title} | `{name}` |" in SECTION

"""The JVM drivers' runtimes (judgedriver.DriverRuntime, Java's and Kotlin's): compiled once
per toolchain on the host, kept in a folder of this user's alone, bound read-only into every
function build and run; a whole program's build binds it only for the compiler's class archive
kept there, its run not at all."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest

from judge import problems
from judge.execution.build import _run as built_run  # how a build is run, as built() does
from judge.languages import java, jvm, kotlin
from judge.languages.base import RunRequest, Style

PLUGINS = {"java": java, "kotlin": kotlin}
SOURCES = {
    "java": b"class Solution { public int solution(int[] board) { return 0; } }\n",
    "kotlin": b"class Solution { fun solution(board: IntArray): Int = 0 }\n",
}
PROGRAMS = {"java": b"public class Main { public static void main(String[] a) {} }\n"}


@pytest.mark.parametrize("name", PLUGINS)
def test_the_runtime_is_made_once_and_kept_where_only_this_user_writes(name: str) -> None:
    plugin = PLUGINS[name]
    folder = Path(plugin.driver_runtime())
    made = folder / "judgedriver" / "DriverRuntime.class"
    before = made.stat()
    assert Path(plugin.driver_runtime()) == folder
    assert made.stat().st_mtime_ns == before.st_mtime_ns  # not compiled again
    for path in [folder.parent, folder, *folder.rglob("*")]:
        st = path.lstat()
        assert st.st_uid == os.geteuid(), path
        assert not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH), path  # nobody else writes
        assert st.st_mode & stat.S_IROTH, path  # a sandbox uid reads it


def _class_path(argv: tuple[str, ...]) -> list[str]:
    flag = next(a for a in ("-classpath", "-cp") if a in argv)
    return argv[argv.index(flag) + 1].split(":")


@pytest.mark.parametrize("name", PLUGINS)
def test_a_function_build_and_run_have_the_runtime_on_their_class_path(name: str) -> None:
    plugin, numbergame = PLUGINS[name], problems.get("numbergame")
    folder = plugin.driver_runtime()
    build = plugin.LANGUAGE.build_command(numbergame, Style.FUNCTION, SOURCES[name], runtime=folder)
    assert build.trees == {jvm.RUNTIME_TREE: folder}
    assert jvm.RUNTIME_CLASSES in _class_path(build.argv)
    driver = next(data for file, data in build.files.items() if file.startswith(jvm.DRIVER))
    assert b"judgedriver.DriverRuntime.main" in driver and len(driver.splitlines()) < 40

    request = RunRequest(numbergame, Style.FUNCTION, SOURCES[name], artifact="/x/classes")
    run = plugin.LANGUAGE.run_command(request)
    assert run.trees[jvm.RUNTIME_TREE] == folder
    assert jvm.RUNTIME_CLASSES in _class_path(run.argv)


@pytest.mark.parametrize("name", PLUGINS)
def test_a_whole_program_compiles_without_the_runtime_on_its_class_path(name: str) -> None:
    """A whole program's build binds the runtime's folder only for the compiler's archive:
    no driver, nothing of judgedriver on its class path; its run binds nothing of it."""
    plugin, numbergame = PLUGINS[name], problems.get("numbergame")
    program = PROGRAMS.get(name, b"fun main() {}\n")
    folder = plugin.driver_runtime()
    assert plugin.LANGUAGE.prepare_build(Style.STDIO, None, program) == {"runtime": folder}
    build = plugin.LANGUAGE.build_command(numbergame, Style.STDIO, program, runtime=folder)
    assert build.trees == {jvm.RUNTIME_TREE: folder}
    assert not any(f.startswith(jvm.DRIVER) for f in build.files)
    # Only the archive's flag names the folder: judgedriver is on no class path.
    naming = [arg for arg in build.argv if jvm.RUNTIME_CLASSES in arg]
    assert len(naming) == 1 and naming[0].endswith(jvm.build_archive_flags()[0]), naming
    run = plugin.LANGUAGE.run_command(RunRequest(numbergame, Style.STDIO, program, "/x/classes"))
    assert jvm.RUNTIME_TREE not in run.trees


@pytest.mark.parametrize("style", [Style.FUNCTION, Style.STDIO])
@pytest.mark.parametrize("name", PLUGINS)
def test_a_build_maps_the_compilers_class_archive(name: str, style, sandbox, tmp_path) -> None:
    """The runtime's compile leaves the compiler's classes archived beside it, and a build in
    the sandbox maps them: with -Xshare:on (instead of auto) a JVM that cannot map every
    archive it is given refuses to start, so this build fails unless the archive is used."""
    plugin, numbergame = PLUGINS[name], problems.get("numbergame")
    folder = plugin.driver_runtime()
    assert (Path(folder) / jvm.COMPILER_ARCHIVE).stat().st_size > 1 << 20
    source = SOURCES[name] if style is Style.FUNCTION else PROGRAMS.get(name, b"fun main() {}\n")
    build = plugin.LANGUAGE.build_command(numbergame, style, source, runtime=folder)
    assert any(flag.endswith(jvm.build_archive_flags()[0]) for flag in build.argv)
    strict = tuple(
        flag.replace("-Xshare:auto", "-Xshare:on").replace("-Xlog:disable", "-Xlog:cds=error")
        for flag in build.argv
    )
    out = tmp_path / "out"
    out.mkdir(mode=0o755)
    command = dataclasses.replace(build, argv=strict, writable=str(out))
    outcome = built_run(sandbox, command, plugin.LANGUAGE.build_limits())
    assert outcome.exit_code == 0, outcome.output.decode(errors="replace")[-2000:]
    assert any(out.rglob("Solution.class" if style is Style.FUNCTION else "*.class"))

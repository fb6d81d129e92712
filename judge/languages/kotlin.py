"""Kotlin (kotlinc 1.3 on the JDK 17): function style is `class Solution` with a `solution`
method, which a generated driver calls; stdio style is a whole program with a top-level
`fun main()` in Solution.kt.

The driver is Kotlin too, in two parts. What every problem shares (the channels, the
report's encoding: judgedriver.DriverRuntime) is compiled once per toolchain on the host,
as the judge's own code (the C++ driver's runtime object is too), into a folder of this
user's temporary directory, bound read-only into every build and every function's run (a
whole program's build maps only the compiler's class archive kept there). The problem's part
(reading a test's arguments, the call) is compiled with the submission in one kotlinc run:
kotlinc then compiles a few lines of the judge's, not 450 (a build takes about a third
less; measured: see docs/performance.md). The compiler is run as `java -cp <its jars>
K2JVMCompiler`, not through Debian's kotlinc shell script, so the sandbox needs no shell.
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import TYPE_CHECKING

from judge.languages import jvm
from judge.languages.base import LanguageUnavailable, RunRequest, Style
from judge.problems import Case, ProblemSpec
from judge.sandbox.command import Command
from judge.sandbox.limits import RunLimits

if TYPE_CHECKING:  # the build imports the languages
    from judge.execution.build import BuildCache

SOURCE = "Solution.kt"
MAIN_CLASS = "SolutionKt"  # where kotlinc puts the top-level functions of Solution.kt
KOTLIN_LIB = "/usr/share/kotlin/kotlinc/lib"
# The compiler and what its manifest's Class-Path names (which would be read relative to
# the symlinks of KOTLIN_LIB): passed explicitly, each at its real path.
COMPILER_JARS = (
    "kotlin-compiler.jar",
    "kotlin-stdlib.jar",
    "kotlin-reflect.jar",
    "kotlin-script-runtime.jar",
    "trove4j.jar",
    "annotations-13.0.jar",
)


@cache
def _jar(name: str) -> str:
    path = os.path.realpath(os.path.join(KOTLIN_LIB, name))
    if not os.path.isfile(path):
        raise LanguageUnavailable(f"Kotlin is not installed (Debian: kotlin): no {name}")
    return path


def _compiler_jars() -> tuple[str, ...]:
    return tuple(_jar(name) for name in COMPILER_JARS)


@cache
def _manifest_paths() -> tuple[str, ...]:
    """The Class-Path entries of the compiler's manifest as the JVM resolves them (beside the
    compiler's real jar: symlinks in Debian's /usr/share/java), those that exist. The
    compiler's class archive (jvm.COMPILER_ARCHIVE) records them, and a build whose sandbox
    lacks them cannot map it; bound, each is the same jar as its real path above."""
    beside = os.path.dirname(_jar("kotlin-compiler.jar"))
    paths = (os.path.join(beside, name) for name in COMPILER_JARS[1:])
    return tuple(path for path in paths if os.path.isfile(path))


def _stdlib() -> str:
    return _jar("kotlin-stdlib.jar")


class Kotlin:
    name = "kotlin"
    title = "Kotlin"
    extensions = (".kt",)
    source_name = SOURCE
    highlight = "kotlin"
    time_factor = 1.0
    time_extra_s = jvm.TIME_EXTRA_S
    memory_extra_mb = jvm.MEMORY_EXTRA_MB
    reports_batches = False

    def version(self) -> str:
        found = re.search(r"kotlin-compiler-([\d.]+)\.jar$", _jar("kotlin-compiler.jar"))
        kotlin = found.group(1) if found else "?"
        return f"kotlinc {kotlin} (OpenJDK {jvm.jdk_version()})"

    def signature(self, problem: ProblemSpec) -> str:
        types = problem.PARAM_TYPES
        params = ", ".join(f"{p}: {jvm.kotlin_type(types[p])}" for p in problem.PARAMS)
        return f"fun solution({params}): {jvm.kotlin_type(problem.ANSWER)}"

    def template(self, problem: ProblemSpec, style: Style) -> str:
        if style == Style.STDIO:
            return (
                "fun main() {\n"
                "    val cases = readLine()!!.trim().toInt()\n"
                "    val out = StringBuilder()\n"
                "    repeat(cases) {\n"
                "        // read one case, append its answer and a newline to out\n"
                "    }\n"
                "    print(out)\n"
                "}\n"
            )
        answer = jvm.kotlin_type(problem.ANSWER)
        zero = {"Int": "0", "Long": "0L", "Boolean": "false", "String": '""'}.get(answer, "TODO()")
        return (
            "class Solution {\n"
            f"    {self.signature(problem)} {{\n"
            f"        var answer: {answer} = {zero}\n"
            "        return answer\n"
            "    }\n"
            "}\n"
        )

    def prepare_build(
        self, style: Style, cache: BuildCache | None, source: bytes
    ) -> dict[str, str]:
        # Every build binds its driver runtime's folder: a function's has the classes on its
        # class path, and every build maps the compiler's archive kept there.
        return {"runtime": driver_runtime()}

    def build_command(
        self, problem: ProblemSpec, style: Style, source: bytes, runtime: str | None = None
    ) -> Command:
        """`runtime`: the driver runtime's folder (driver_runtime()): a function's build has its
        classes on the class path; every build maps the compiler's archive kept there."""
        files = {SOURCE: source}
        class_path = [_stdlib()]
        # The runtime's folder is bound into every build: it keeps the compiler's archive.
        trees = {jvm.RUNTIME_TREE: runtime or driver_runtime()}
        if style == Style.FUNCTION:
            driver = jvm.kotlin_driver(problem, problem.LIMITS.memory_mb, self.signature(problem))
            files[f"{jvm.DRIVER}.kt"] = driver
            class_path.append(jvm.RUNTIME_CLASSES)
        argv = [
            jvm.java_binary(),
            *jvm.COMPILER_FLAGS,
            *jvm.build_archive_flags(),
            "-cp",
            ":".join(_compiler_jars()),
            "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
            "-no-stdlib",
            "-no-reflect",
            "-classpath",
            ":".join(class_path),
            "-jvm-target",
            "1.8",
            "-nowarn",
            "-d",
            "/box/out",
            *files,
        ]
        return Command(
            argv=tuple(argv),
            files=files,
            layout=jvm.layout((*_compiler_jars(), *_manifest_paths()), warm=False),
            trees=trees,
        )

    def build_limits(self) -> RunLimits:
        return jvm.build_limits(jvm.KOTLINC_TIME_S)

    def run_command(self, request: RunRequest) -> Command:
        return jvm.run_command(request, MAIN_CLASS, (_stdlib(),), runtime=driver_runtime)

    def test_line(self, problem: ProblemSpec, case: Case) -> bytes:
        return jvm.test_line(problem, case)

    def run_limits(self, base: RunLimits) -> RunLimits:
        return jvm.run_limits(base)

    def clean_compile_message(self, text: str) -> str:
        return jvm.clean_compile_message(text, SOURCE, "Solution().solution(...)")


LANGUAGE = Kotlin()


# -- the driver runtime, compiled on the host -------------------------------------------------


def driver_runtime() -> str:
    """The folder holding judgedriver's classes for this toolchain (jvm.driver_runtime)."""
    source = jvm.kotlin_driver_runtime(SOURCE)
    return jvm.driver_runtime("kotlin", LANGUAGE.version(), "DriverRuntime.kt", source, _compile)


def _compile(source: str, classes: str, jvm_flags: tuple[str, ...]) -> list[str]:
    return [
        jvm.java_binary(),
        *jvm.COMPILER_FLAGS,
        *jvm_flags,
        "-cp",
        ":".join(_compiler_jars()),
        "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler",
        *("-no-stdlib", "-no-reflect", "-classpath", _stdlib()),
        *("-jvm-target", "1.8", "-nowarn", "-d", classes, source),
    ]

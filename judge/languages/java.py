"""Java 17 (OpenJDK): function style is `class Solution` with a public `solution` method, which
a generated driver calls; stdio style is a whole program whose entry point is
`public static void main(String[] args)` of class `Main` in Main.java (the convention of
Algospot and most judges). In function style a `main` of the submission is never called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.languages import jvm
from judge.languages.base import RunRequest, Style
from judge.problems import Case, ProblemSpec
from judge.sandbox.command import Command
from judge.sandbox.limits import RunLimits

if TYPE_CHECKING:  # the build imports the languages
    from judge.execution.build import BuildCache

SOURCE = "Solution.java"
PROGRAM = "Main.java"  # stdio style: the file and class javac expects for `public class Main`


class Java:
    name = "java"
    title = "Java 17"
    extensions = (".java",)
    source_name = SOURCE
    highlight = "java"
    time_factor = 1.0
    time_extra_s = jvm.TIME_EXTRA_S
    memory_extra_mb = jvm.MEMORY_EXTRA_MB
    reports_batches = False

    def version(self) -> str:
        return f"OpenJDK {jvm.jdk_version()}"

    def signature(self, problem: ProblemSpec) -> str:
        params = ", ".join(f"{jvm.java_type(problem.PARAM_TYPES[p])} {p}" for p in problem.PARAMS)
        return f"public {jvm.java_type(problem.ANSWER)} solution({params})"

    def template(self, problem: ProblemSpec, style: Style) -> str:
        if style == Style.STDIO:
            return (
                "import java.io.*;\nimport java.util.*;\n\n"
                "public class Main {\n"
                "    public static void main(String[] args) throws IOException {\n"
                "        BufferedReader in =\n"
                "            new BufferedReader(new InputStreamReader(System.in));\n"
                "        StringBuilder out = new StringBuilder();\n"
                "        int cases = Integer.parseInt(in.readLine().trim());\n"
                "        for (int c = 0; c < cases; c++) {\n"
                "            // read one case, append its answer and a newline to out\n"
                "        }\n"
                "        System.out.print(out);\n"
                "    }\n"
                "}\n"
            )
        answer = jvm.java_type(problem.ANSWER)
        zero = {"int": "0", "long": "0", "boolean": "false", "String": '""'}.get(answer, "null")
        return (
            "class Solution {\n"
            f"    {self.signature(problem)} {{\n"
            f"        {answer} answer = {zero};\n"
            "        return answer;\n"
            "    }\n"
            "}\n"
        )

    def _file(self, style: Style) -> str:
        return PROGRAM if style == Style.STDIO else SOURCE

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
        name = self._file(style)
        files = {name: source}
        # The runtime's folder is bound into every build: it keeps the compiler's archive.
        trees = {jvm.RUNTIME_TREE: runtime or driver_runtime()}
        class_path: tuple[str, ...] = ()
        if style == Style.FUNCTION:
            driver = jvm.java_driver(problem, problem.LIMITS.memory_mb, self.signature(problem))
            files[f"{jvm.DRIVER}.java"] = driver
            class_path = ("-cp", jvm.RUNTIME_CLASSES)
        javac = [*_javac(jvm.build_archive_flags()), *class_path, "-d", "/box/out", *files]
        return Command(argv=tuple(javac), files=files, layout=jvm.layout(warm=False), trees=trees)

    def build_limits(self) -> RunLimits:
        return jvm.build_limits(jvm.JAVAC_TIME_S)

    def run_command(self, request: RunRequest) -> Command:
        return jvm.run_command(request, "Main", runtime=driver_runtime)

    def test_line(self, problem: ProblemSpec, case: Case) -> bytes:
        return jvm.test_line(problem, case)

    def run_limits(self, base: RunLimits) -> RunLimits:
        return jvm.run_limits(base)

    def clean_compile_message(self, text: str) -> str:
        # Which file was compiled is not passed here: a stdio program's errors name Main.java.
        main = jvm.clean_compile_message(text, PROGRAM, "public static void main(String[])")
        if "Main.java:" in text and "Solution.java:" not in text:
            return main
        return jvm.clean_compile_message(text, SOURCE, "new Solution().solution(...)")


LANGUAGE = Java()


def _javac(jvm_flags: tuple[str, ...] = ()) -> list[str]:
    return [
        f"{jvm.java_home()}/bin/javac",
        *(f"-J{flag}" for flag in (*jvm.COMPILER_FLAGS, *jvm_flags)),
        *("-encoding", "UTF-8", "-nowarn", "-Xlint:none", "-proc:none", "-implicit:none"),
        *("-Xmaxerrs", "30"),
    ]


# -- the driver runtime, compiled on the host -------------------------------------------------


def driver_runtime() -> str:
    """The folder holding judgedriver's classes for this toolchain (jvm.driver_runtime)."""
    source = jvm.java_driver_runtime(SOURCE)
    return jvm.driver_runtime("java", LANGUAGE.version(), "DriverRuntime.java", source, _compile)


def _compile(source: str, classes: str, jvm_flags: tuple[str, ...]) -> list[str]:
    return [*_javac(jvm_flags), "-d", classes, source]

"""What Java and Kotlin share: the JDK (where it is, what the sandbox must see of it), the
flags of a small, bounded JVM, the generated drivers and the compilers' messages.

A JVM is bounded by the cgroup and -Xmx, not by RLIMIT_AS (it reserves gigabytes of address
space it never touches): the heap gets the problem's memory limit, the cgroup that plus
MEMORY_EXTRA_MB for the JVM itself (metaspace, code cache, thread stacks, the CDS archive).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

from judge.answers import BOOL, INT, LONG, MAX_STR_CHARS, STR, ListType, ValueType, scalar_of
from judge.languages import kept_answers
from judge.languages.base import (
    LanguageUnavailable,
    RunRequest,
    Style,
    make_once,
    own_temp_folder,
)
from judge.languages.drivers.harness import MAX_REPORTED_BYTES, MAX_REPORTED_VALUES
from judge.languages.tests_text import encode_case
from judge.problems import Case, ProblemSpec
from judge.sandbox.command import Command
from judge.sandbox.layout import Layout, toolchain_layout
from judge.sandbox.limits import RunLimits

JDK_GLOB = "/usr/lib/jvm/java-17-openjdk-*"
JDK_CONF = "/etc/java-17-openjdk"  # the JDK's conf/ and lib/jvm.cfg link into it
# The compiled classes: written to /box/out by the compiler, bound read-only here for a run
# (the sandbox keeps /box/out for a compiler's writable output).
CLASSES_TREE = "classes"
CLASSES = f"/box/{CLASSES_TREE}"
DRIVER = "Judge__Driver"  # the driver's class: a name no submission picks by chance
# The stack of the thread that calls solution: about 100,000 frames, far beyond what these
# problems' recursions need; an overflow costs time in proportion (measured 1.4 ms per MB:
# 88 ms at 64 MB, 18 ms at 16 MB), which a runaway recursion pays once per test.
STACK_MB = 16
MEMORY_EXTRA_MB = 160  # the JVM beside its heap (measured: 20-30 MB peak for footholds)
TIME_EXTRA_S = 0.5  # a JVM's start per process: measured in the sandbox 66 ms to "ready"
# for Java, 92 ms for Kotlin (65-75 ms of CPU); room for a loaded machine
NOFILE = 256  # the JDK's modules, libraries and jars, beside what the program opens
PIDS = 64  # a JVM's own threads (about 20) with room for a few of the submission's
JAVAC_TIME_S = 15.0  # measured 0.8 s for footholds in the sandbox
KOTLINC_TIME_S = 30.0  # measured 3.8 s, 245 MB
COMPILE_MEMORY_MB = 1024

# -XX:TieredStopAtLevel=1 (C1 only): footholds' full plan (1789 positions) ran in 0.22 s
# against 0.45 s with C2, whose compiler threads cost more than they win on short tests.
# ActiveProcessorCount=1: one GC and compiler thread, as on a judge core. -Xshare:auto uses
# the JDK's CDS archive (no measurable gain here, no cost).
RUN_FLAGS = (
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:ActiveProcessorCount=1",
    "-XX:-UsePerfData",
    "-Xshare:auto",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=64m",
    "-Xss1m",
    "-Djava.io.tmpdir=/tmp",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.io=ALL-UNNAMED",  # the driver opens the results fd by number
)


# The compilers' JVM: javac is mostly cold code, so C1 alone is quicker start to end.
COMPILER_FLAGS = (
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-UsePerfData",
    "-Xshare:auto",
    "-Xss8m",
    f"-Xmx{COMPILE_MEMORY_MB * 3 // 4}m",
    "-Djava.io.tmpdir=/tmp",
)


@cache
def java_home() -> str:
    import glob  # here, as below: every command imports this module, few run a JVM

    for home in sorted(glob.glob(JDK_GLOB)):
        if os.path.isfile(os.path.join(home, "bin", "javac")) and not os.path.islink(home):
            return home
    raise LanguageUnavailable("OpenJDK 17 is not installed (Debian: openjdk-17-jdk-headless)")


def java_binary() -> str:
    return os.path.join(java_home(), "bin", "java")


@cache
def jdk_version() -> str:
    """ "17.0.15", from the JDK's release file (no JVM started)."""
    try:
        with open(os.path.join(java_home(), "release"), encoding="utf-8") as f:
            found = re.search(r'^JAVA_VERSION="([^"]+)"', f.read(), re.M)
    except OSError as e:
        raise LanguageUnavailable(f"cannot read the JDK's release file: {e}") from e
    if found is None:
        raise LanguageUnavailable("the JDK's release file names no version")
    return found.group(1)


@cache
def layout(extra: tuple[str, ...] = (), warm: bool = True) -> Layout:
    """The JDK, its configuration (conf/ links into /etc) and the libraries it loads, and
    `extra` files (jars), read-only. A run's is warmed, as every run layout is: a JVM reads
    only the pages of the classes it loads, so a run holding hidden boards could leave chosen
    pages of the modules file cached for a later run to time. A compiler's need not be (no
    secret in reach, nothing of the submission running)."""
    home = java_home()
    linked = [os.path.join(home, "bin", name) for name in ("java", "javac")]
    import glob

    linked += sorted(glob.glob(os.path.join(home, "lib", "*.so")))
    linked += sorted(glob.glob(os.path.join(home, "lib", "server", "*.so")))
    return toolchain_layout(
        [home, JDK_CONF, *extra], linked=linked, warm=warm, libraries=kept_answers.libraries
    )


def jvm_flags(heap_mb: int) -> list[str]:
    return [java_binary(), *RUN_FLAGS, f"-Xmx{heap_mb}m", f"-Xms{min(heap_mb, 32)}m"]


def run_limits(base: RunLimits) -> RunLimits:
    return replace(base, pids=max(base.pids, PIDS), address_space=False, nofile=NOFILE)


def build_limits(time_s: float) -> RunLimits:
    return RunLimits(
        cpu_s=time_s,
        wall_s=time_s + 10.0,
        memory_bytes=COMPILE_MEMORY_MB << 20,
        output_bytes=256 << 10,
        pids=PIDS,
        file_bytes=16 << 20,  # one class file: a huge static array initialiser stays small
        address_space=False,
        nofile=NOFILE,
    )


def run_command(
    request: RunRequest,
    main_class: str,
    jars: tuple[str, ...] = (),
    *,
    runtime: Callable[[], str],
) -> Command:
    """A JVM run of the compiled classes (bound at CLASSES) with `jars` on the class path:
    `main_class` for a whole program, the driver on the tests for a function, with the
    language's driver runtime (`runtime()`: its folder, bound at RUNTIME_CLASSES)."""
    if request.artifact is None:
        raise ValueError("a JVM run needs its compiled classes")
    trees = {CLASSES_TREE: request.artifact}
    if request.style == Style.STDIO:
        argv = [*jvm_flags(request.problem.LIMITS.memory_mb), "-cp", ":".join((CLASSES, *jars))]
        return Command(argv=(*argv, main_class), layout=layout(jars), trees=trees)
    trees[RUNTIME_TREE] = runtime()
    path = ":".join((CLASSES, RUNTIME_CLASSES, *jars))
    argv = [*jvm_flags(request.problem.LIMITS.memory_mb), "-cp", path]
    return Command(
        argv=(*argv, DRIVER, *request.driver_args()),
        layout=layout(jars),
        trees=trees,
        input_pipe=True,
    )


def test_line(problem: ProblemSpec, case: Case) -> bytes:
    """One test as the drivers read it on their tests channel (judge/languages/tests_text.py)."""
    return encode_case(problem, case)


# -- drivers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scalar:
    """How the JVM drivers name and read one scalar type."""

    java: str  # int
    boxed: str  # Integer: the driver's arguments are an Object[]
    kotlin: str  # Int
    kotlin_array: str  # IntArray: a flat list's type in Kotlin
    reader: str  # nextInt(): reads one from the test's line
    tag: str  # Int: in the names of the list readers (readInt2)


_SCALARS = {
    INT: _Scalar("int", "Integer", "Int", "IntArray", "nextInt()", "Int"),
    LONG: _Scalar("long", "Long", "Long", "LongArray", "nextLong()", "Long"),
    BOOL: _Scalar("boolean", "Boolean", "Boolean", "BooleanArray", "nextBool()", "Bool"),
    STR: _Scalar("String", "String", "String", "Array<String>", "nextStr()", "Str"),
}


def _scalar(value_type: ValueType) -> tuple[_Scalar, int]:
    item, depth = scalar_of(value_type)
    if item not in _SCALARS:
        raise TypeError(f"no JVM driver for parameter type {value_type.name}")
    return _SCALARS[item], depth


def java_type(value_type: ValueType) -> str:
    scalar, depth = _scalar(value_type)
    return scalar.java + "[]" * depth


def kotlin_type(value_type: ValueType) -> str:
    scalar, depth = _scalar(value_type)
    if depth == 0:
        return scalar.kotlin
    text = scalar.kotlin_array
    for _ in range(depth - 1):
        text = f"Array<{text}>"
    return text


def _template(name: str) -> str:
    from importlib import resources

    return resources.files("judge.languages.drivers").joinpath(name).read_text("utf-8")


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def _params(problem: ProblemSpec) -> list[ValueType]:
    return [problem.PARAM_TYPES[name] for name in problem.PARAMS]


def _reader_name(list_type: ListType) -> str:
    """The name of the driver's function reading a list type: readInt1, readStr2."""
    scalar, depth = _scalar(list_type)
    return f"read{scalar.tag}{depth}"


def _read_call(value_type: ValueType) -> str:
    """The driver's expression reading one argument: nextInt(), readStr2()."""
    if isinstance(value_type, ListType):
        return f"{_reader_name(value_type)}()"
    return _scalar(value_type)[0].reader


def _java_cast(value_type: ValueType) -> str:
    """The cast of an argument taken from the driver's Object[]: (Integer), (int[][])."""
    scalar, depth = _scalar(value_type)
    return f"({scalar.boxed})" if depth == 0 else f"({java_type(value_type)})"


def _list_types(problem: ProblemSpec) -> list[ListType]:
    """Every list type a reader is needed for, the inner ones first."""
    needed: list[ListType] = []
    for value_type in _params(problem):
        levels: list[ListType] = []
        while isinstance(value_type, ListType):
            levels.append(value_type)
            value_type = value_type.item
        needed += [t for t in reversed(levels) if t not in needed]
    return needed


def _java_reader(list_type: ListType) -> str:
    kind = java_type(list_type)
    scalar, depth = _scalar(list_type)
    alloc = f"new {scalar.java}[n]" + "[]" * (depth - 1)
    return (
        f"    static {kind} {_reader_name(list_type)}() {{\n"
        f"        int n = nextInt();\n"
        f'        if (n < 0) throw new IllegalStateException("bad test line");\n'
        f"        {kind} a = {alloc};\n"
        f"        for (int i = 0; i < n; i++) a[i] = {_read_call(list_type.item)};\n"
        f"        return a;\n"
        f"    }}\n"
    )


def java_driver(problem: ProblemSpec, heap_mb: int, signature: str) -> bytes:
    """Java source of the driver's problem part: it reads the arguments and calls
    `new Solution().solution(...)`; the runtime it hands them to is java_driver_runtime().
    heap_mb is only quoted in the out-of-memory message."""
    params = _params(problem)
    calls = ", ".join(f"{_java_cast(t)} a[{k}]" for k, t in enumerate(params))
    return _fill(
        _template("Driver.java.tmpl"),
        {
            "DRIVER": DRIVER,
            "HEAP_MB": str(heap_mb),
            "READERS": "".join(_java_reader(t) for t in _list_types(problem)),
            "READ_ARGS": ", ".join(_read_call(t) for t in params),
            "CALL_ARGS": calls,
            "SIGNATURE": signature,
        },
    ).encode()


def _kotlin_reader(list_type: ListType) -> str:
    kind = kotlin_type(list_type)
    maker = "Array" if kind.startswith("Array<") else kind  # Array(n) {...}, IntArray(n) {...}
    return (
        f"private fun {_reader_name(list_type)}(): {kind} {{\n"
        f"    val n = nextInt()\n"
        f'    if (n < 0) throw IllegalStateException("bad test line")\n'
        f"    return {maker}(n) {{ {_read_call(list_type.item)} }}\n"
        f"}}\n\n"
    )


def kotlin_driver(problem: ProblemSpec, heap_mb: int, signature: str) -> bytes:
    """Kotlin source of the driver's problem part: it reads the arguments and calls
    `Solution().solution(...)`; the runtime it hands them to is kotlin_driver_runtime()."""
    params = _params(problem)
    calls = ", ".join(f"a[{k}] as {kotlin_type(t)}" for k, t in enumerate(params))
    return _fill(
        _template("driver.kt.tmpl"),
        {
            "DRIVER": DRIVER,
            "HEAP_MB": str(heap_mb),
            "READERS": "".join(_kotlin_reader(t) for t in _list_types(problem)),
            "READ_ARGS": ", ".join(_read_call(t) for t in params),
            "CALL_ARGS": calls,
            "SIGNATURE": signature,
        },
    ).encode()


@cache
def _runtime_source(template: str, source_name: str) -> str:
    return _fill(
        _template(template),
        {
            "SOURCE": source_name,
            "STACK_MB": str(STACK_MB),
            "MAX_STR": str(MAX_STR_CHARS),
            "MAX_VALUES": str(MAX_REPORTED_VALUES),
            "MAX_BYTES": str(MAX_REPORTED_BYTES),
        },
    )


def kotlin_driver_runtime(source_name: str) -> str:
    """Kotlin source of what every problem's driver shares (package judgedriver): the
    channels, the report's encoding, the errors' traces in `source_name`."""
    return _runtime_source("DriverRuntime.kt.tmpl", source_name)


def java_driver_runtime(source_name: str) -> str:
    """Java source of what every problem's driver shares (package judgedriver)."""
    return _runtime_source("DriverRuntime.java.tmpl", source_name)


# -- the drivers' runtimes, compiled on the host ---------------------------------------------

RUNTIME_TREE = "driver-runtime"  # bound read-only at /box/driver-runtime
RUNTIME_CLASSES = f"/box/{RUNTIME_TREE}"
_RUNTIME_CLASS = os.path.join("judgedriver", "DriverRuntime.class")
# The compiler's own classes as the runtime's compile loaded them (a dynamic CDS archive,
# written by that compile beside its classes): a build maps them instead of reading and
# verifying them from the compiler's jars again, a third of a Kotlin build and a quarter of a
# Java one (measured: docs/performance.md). A JDK that cannot use it ignores it (-Xshare:auto).
COMPILER_ARCHIVE = "compiler.jsa"


def archive_flags(path: str, *, making: bool) -> tuple[str, ...]:
    """The compiler JVM's flags that write (`making`, at its exit) or map the archive at
    `path`; the JVM's own notes about it are silenced, since they would read as the compile's."""
    return (
        f"-XX:ArchiveClassesAtExit={path}" if making else f"-XX:SharedArchiveFile={path}",
        "-Xlog:disable",
    )


def build_archive_flags() -> tuple[str, ...]:
    """A build's: the archive in the runtime's folder, bound at RUNTIME_CLASSES."""
    return archive_flags(f"{RUNTIME_CLASSES}/{COMPILER_ARCHIVE}", making=False)


@cache
def runtime_key(language: str, version: str, source: str) -> str:
    """A runtime folder's name: the toolchain and the source it compiles."""
    head = {
        "what": f"{language} driver runtime",
        "version": version,
        "source": hashlib.sha256(source.encode()).hexdigest(),
        "compiler archive": COMPILER_ARCHIVE,  # folders made before it held none
    }
    return f"{language}-" + hashlib.sha256(json.dumps(head, sort_keys=True).encode()).hexdigest()


def driver_runtime(
    language: str,
    version: str,
    source_name: str,
    source: str,
    compile_argv: Callable[[str, str, tuple[str, ...]], list[str]],
) -> str:
    """The folder holding judgedriver's classes for this toolchain (`version`), compiled
    on the host from `source` by `compile_argv(source file, classes folder, the compiler
    JVM's extra flags)` the first time, with the compiler's class archive
    (the judge's own code, as C++'s runtime object is) and kept for this machine user in a
    folder of its own: readable by the sandbox's uids, written by the judge alone.
    LanguageUnavailable when it cannot be made."""
    parent = own_temp_folder(f"judge-{language}-driver", 0o755)
    if parent is None:
        raise LanguageUnavailable(f"no folder of the judge's own for {language}'s driver runtime")
    folder = os.path.join(parent, runtime_key(language, version, source))
    if os.path.isfile(os.path.join(folder, _RUNTIME_CLASS)):
        return folder
    # One compile per machine user: the processes (and threads: each opens the file anew)
    # that find it missing wait for the first.
    with open(os.path.join(parent, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isfile(os.path.join(folder, _RUNTIME_CLASS)):
            _compile_runtime(parent, folder, source_name, source, compile_argv)
    return folder


def _compile_runtime(
    parent: str,
    folder: str,
    source_name: str,
    source: str,
    compile_argv: Callable[[str, str, tuple[str, ...]], list[str]],
) -> None:
    """Compile its classes once (make_once): LanguageUnavailable when they cannot be."""

    def make(work: str) -> str:
        path = os.path.join(work, source_name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        classes = os.path.join(work, "classes")
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": work}
        archive = archive_flags(os.path.join(classes, COMPILER_ARCHIVE), making=True)
        done = subprocess.run(
            compile_argv(path, classes, archive),
            cwd=work,
            capture_output=True,
            timeout=300,
            env=env,
        )
        if done.returncode != 0:
            said = (done.stderr + done.stdout).decode(errors="replace").strip()[-2000:]
            raise LanguageUnavailable(f"the driver runtime does not compile here: {said}")
        return classes

    try:
        make_once(parent, folder, make, keep="lock")
    except (OSError, subprocess.SubprocessError) as exc:
        raise LanguageUnavailable(f"the driver runtime cannot be compiled here: {exc}") from None


# -- compile messages ----------------------------------------------------------------------

MESSAGE_LINES = 60
MESSAGE_CHARS = 4000
# "Solution.java:12: error: ..." (javac), "Solution.kt:3:5: error: ..." (kotlinc): a
# diagnostic's first line; the lines after it (the source line, a caret, "symbol: ...")
# belong to it until the next one.
_HEADER = re.compile(r"^(?:/box/)?([\w.$-]+\.(?:java|kt)):(\d+)(?::\d+)?: (error|warning): ")
# What ends a diagnostic without starting one: javac's count, a JVM's or kotlinc's own notes.
_TRAILER = re.compile(r"^(\d+ (errors?|warnings?)|OpenJDK .*|warning: .*|error: .*|info: .*)$")
_EXPECTED = re.compile(r"// EXPECTED: ([\w ()\[\]<>:,]{1,300})$", re.M)
_PATH = re.compile(r"(?:/[\w.+-]+){2,}/?")  # any absolute path left in a kept line


def clean_compile_message(text: str, source_name: str, call: str) -> str:
    """The diagnostics about the submission's file: errors only, its name without a
    directory; errors in the driver become one line saying what it calls (the signature the
    compiler echoed from the driver's call line, where it did)."""
    echoed = _EXPECTED.search(text)
    signature = f"{call}, declared as {echoed.group(1)}" if echoed else call
    kept: list[str] = []
    keeping = False
    driver_errors = 0
    errors = 0
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            keeping = header.group(1) == source_name and header.group(3) == "error"
            if header.group(3) == "error":
                if keeping:
                    errors += 1
                else:
                    driver_errors += 1
            if keeping:
                line = line[line.index(source_name) :]
        elif _TRAILER.match(line):
            keeping = False
        if keeping:
            kept.append(_PATH.sub("<path>", line).rstrip())
    if driver_errors:
        kept.append(
            f"{source_name}: the judge calls {signature}; no such class and method "
            "were found, or their types do not match"
        )
    if not kept:
        kept.append(f"{source_name}: the compiler failed without a message about this file")
    if len(kept) > MESSAGE_LINES:
        kept = [*kept[:MESSAGE_LINES], f"... ({errors} errors in all)"]
    message = "\n".join(kept)
    return message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 3] + "..."

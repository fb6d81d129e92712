"""C++17 (GCC, `-std=gnu++17 -O2`), both styles, compiled in the sandbox to ONE static binary.

Function style: the student's solution.cpp is #included by a driver generated from the
problem's signature (judge/languages/drivers/cpp_driver.py), which calls `solution` per test and
speaks the harness protocol. Stdio style: solution.cpp is the whole program.

Static linking: the run sandbox then binds nothing of the host at all (no libc, no loader),
only the binary, and the run starts in a few milliseconds. It costs about 0.07 s more to link
than a dynamic binary (measured with <bits/stdc++.h>: 0.99 s against 0.92 s) and 2 MB of disk
per cached artifact.

The compiler sees exactly what it needs, read-only: g++, as and ld, the gcc directory
(cc1plus, collect2, crt files, libstdc++.a, its headers), /usr/include, the libraries those
binaries load and the static C library the link reads. Nothing of /etc, /work or the judge:
`#include "/etc/shadow"` is "No such file or directory". A linker script bounds the static
data (a gigabyte global array is a compile error naming the memory limit), the build limits
bound time, memory and files (`#include </dev/random>`, template and constexpr bombs end there).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import subprocess
import tempfile
import threading
from functools import cache
from typing import TYPE_CHECKING

from judge.answers import BOOL, INT, LONG
from judge.languages import kept_answers
from judge.languages.base import (
    LanguageUnavailable,
    RunRequest,
    Style,
    ask_tool,
    make_once,
    own_temp_folder,
)
from judge.languages.drivers.cpp_driver import (
    DRIVER_NAME,
    RUNTIME_NAME,
    SOURCE_NAME,
    driver_source,
    runtime_source,
    signature,
)
from judge.languages.tests_text import encode_case
from judge.problems import Case, ProblemSpec
from judge.sandbox.command import Command
from judge.sandbox.layout import Layout, toolchain_layout
from judge.sandbox.limits import RunLimits

if TYPE_CHECKING:
    from judge.execution.build import BuildCache

log = logging.getLogger(__name__)

GXX = "/usr/bin/g++"
BINARY = "solution"  # under /box/out
LIMITS_SCRIPT = "limits.ld"
FLAGS = (
    "-std=gnu++17",
    "-O2",
    "-static",
    "-pipe",  # no assembler files in the small private /tmp
    "-s",  # no symbol table: a fifth smaller to cache and copy
    "-fdiagnostics-color=never",
    "-fdiagnostics-urls=never",
    "-fmax-errors=20",
)
# What g++ runs, each bound at the path it is found by (and its real path).
TOOLS = ("/usr/bin/g++", "/usr/bin/as", "/usr/bin/ld")
PROGRAMS = ("cc1plus", "collect2", "lto-wrapper", "liblto_plugin.so")
# What a static link of a C++ program reads besides the gcc directory.
LINK_FILES = ("crt1.o", "crti.o", "crtn.o", "libc.a", "libm.a", "libmvec.a")


# A whole program's answers reach the judge line by line, as printed (not all at exit from a
# full buffer): a time-out on a run's third case then keeps the first two answers and their
# times. cout flushes per output too, even after sync_with_stdio(false) (the flag stays).
STDIO_PRELUDE = "judge_stdio.hpp"
STDIO_PRELUDE_SOURCE = b"""\
#include <cstdio>
#include <iostream>
namespace judge_stdio_ {
struct LineBuffered {
  LineBuffered() {
    std::setvbuf(stdout, nullptr, _IOLBF, 1 << 16);
    std::cout.setf(std::ios::unitbuf);
  }
} const line_buffered;
}  // namespace judge_stdio_
"""


class Cpp:
    name = "cpp"
    title = "C++17"
    extensions = (".cpp", ".cc")
    source_name = SOURCE_NAME
    highlight = "cpp"
    time_factor = 1.0
    time_extra_s = 0.0
    memory_extra_mb = 0
    reports_batches = False

    def version(self) -> str:
        return _version()

    def template(self, problem: ProblemSpec, style: Style) -> str:
        head = "#include <bits/stdc++.h>\nusing namespace std;\n\n"
        if style is Style.STDIO:
            return head + (
                "int main() {\n    int cases;\n    cin >> cases;\n"
                "    while (cases--) {\n        // read one case, print its answer on a line\n"
                "    }\n}\n"
            )
        zero = {INT: "0", LONG: "0", BOOL: "false"}.get(problem.ANSWER, "{}")
        return head + signature(problem) + f" {{\n    return {zero};\n}}\n"

    def prepare_build(
        self, style: Style, cache: BuildCache | None, source: bytes
    ) -> dict[str, str]:
        """Before `build_command`: the runtime object from the build cache when it is there
        (a fresh process then compiles nothing for a cached submission), and for a source
        that begins with <bits/stdc++.h> the header precompiled (`pch`, a folder)."""
        if style is Style.FUNCTION:
            runtime_object(cache)
        if includes_bits_first(source):
            folder = precompiled_header(cache)
            if folder is not None:
                return {"pch": folder}
        return {}

    def build_command(
        self, problem: ProblemSpec, style: Style, source: bytes, pch: str | None = None
    ) -> Command:
        """`pch`: a folder holding <bits/stdc++.h> precompiled (precompiled_header), used
        when the source begins with that include: forced first, it is the same program."""
        files = {SOURCE_NAME: source, LIMITS_SCRIPT: _limits_script(problem)}
        trees: dict[str, str] = {}
        first: tuple[str, ...] = ()
        if pch is not None and includes_bits_first(source):
            trees[PCH_TREE] = pch
            first = ("-include", f"/box/{PCH_TREE}/{PCH_WRAPPER}")
        if style is Style.FUNCTION:
            files[DRIVER_NAME] = driver_source(problem).encode()
            files[RUNTIME_OBJECT] = runtime_object()
            inputs: tuple[str, ...] = (*first, DRIVER_NAME, RUNTIME_OBJECT)
        else:
            files[STDIO_PRELUDE] = STDIO_PRELUDE_SOURCE
            inputs = (*first, "-include", STDIO_PRELUDE, SOURCE_NAME)
        return Command(
            argv=(GXX, *FLAGS, "-o", f"/box/out/{BINARY}", *inputs, LIMITS_SCRIPT),
            files=files,
            layout=compiler_layout(),
            env={"PATH": "/usr/bin", "LC_ALL": "C", "TMPDIR": "/tmp"},
            trees=trees,
        )

    def build_limits(self) -> RunLimits:
        # cc1plus with <bits/stdc++.h> and -O2 takes about 1 s and 250 MB.
        return RunLimits(
            cpu_s=10.0,
            wall_s=15.0,
            memory_bytes=1 << 30,
            output_bytes=256 << 10,
            pids=16,
            file_bytes=64 << 20,  # the object file in /tmp and the binary
            tmp_bytes=64 << 20,
            nofile=128,
        )

    def run_command(self, request: RunRequest) -> Command:
        if request.artifact is None:
            raise ValueError("a C++ submission runs only once compiled")
        trees = {"bin": request.artifact}  # the build wrote /box/out; runs read /box/bin
        if request.style is Style.STDIO:
            return Command(argv=(f"/box/bin/{BINARY}",), layout=EMPTY_LAYOUT, trees=trees)
        return Command(
            argv=(f"/box/bin/{BINARY}", *request.driver_args()),
            layout=EMPTY_LAYOUT,
            trees=trees,
            input_pipe=True,
        )

    def test_line(self, problem: ProblemSpec, case: Case) -> bytes:
        return encode_case(problem, case)

    def run_limits(self, base: RunLimits) -> RunLimits:
        return base

    def clean_compile_message(self, text: str) -> str:
        return clean_message(text)


EMPTY_LAYOUT = Layout(binds=(), masks=(), warm=False)  # a static binary needs nothing


def _limits_script(problem: ProblemSpec) -> bytes:
    """An implicit linker script: static data (code, globals, arrays) within the memory limit,
    so a gigabyte global array is a compile error saying why, not a program that cannot start."""
    limit = problem.LIMITS.memory_mb << 20
    message = (
        "the program's static data (global arrays) exceeds the memory limit of "
        f"{problem.LIMITS.memory_mb} MB"
    )
    return f'ASSERT(_end - __executable_start <= {limit}, "{message}")\n'.encode()


RUNTIME_OBJECT = "judge_runtime.o"
RUNTIME_FLAGS = FLAGS[:2]
_runtime_lock = threading.Lock()
_runtime: dict[str, bytes] = {}  # this process's, by runtime_key()


def runtime_key() -> str:
    """The runtime object's build-cache key: the toolchain's identity (as for any artifact),
    the flags and the source's bytes. Prefixed so that it names no submission's artifact."""
    head = {
        "what": "cpp runtime object",
        "version": _version(),
        "flags": list(RUNTIME_FLAGS),
        "source": hashlib.sha256(runtime_source().encode()).hexdigest(),
    }
    return "cppruntime-" + hashlib.sha256(json.dumps(head, sort_keys=True).encode()).hexdigest()


def runtime_object(cache: BuildCache | None = None) -> bytes:
    """The driver's runtime unit compiled on the host: it is the judge's own code, no
    submission's, and the same for every problem, so a build compiles only the student's unit
    (the runtime's headers cost about a third of a build). Kept in this process and, given a
    cache, in the build cache like any artifact (its manifest checks the bytes; its directory
    is private): a new process reads it instead of compiling it again (~1 s of CPU). The object
    is the same bytes from any directory (named relatively), so it keys builds stably."""
    key = runtime_key()
    with _runtime_lock:
        data = _runtime.get(key)
        if data is None and cache is not None:
            data = _cached_runtime(cache, key)
        if data is None:
            data = _compile_runtime()
            if cache is not None:
                _store_runtime(cache, key, data)
        _runtime[key] = data
        return data


# <bits/stdc++.h>, which the template and most contest code begin with, is most of such a
# build: parsing it took 5.0 s of a 5.0 s compile, against 0.6 s with it precompiled (-O2,
# measured on a loaded 2-core machine). GCC uses a precompiled header only as the first thing
# a unit includes and only if it was made with the same options (checked by GCC itself, which
# otherwise reads the header as before), so it is forced first only for a source whose own
# first line is that include: the program is the same. About 100 MB per toolchain.
PCH_TREE = "pch"  # bound read-only at /box/pch
PCH_HEADER = "bits/stdc++.h"
# The precompiled unit is a header of ours that includes it, forced by its full path: the
# include path stays the student's (a .gch beside a header of the same name would make GCC
# look for that header there too, and their own #include of it then fails).
PCH_WRAPPER = "judge_bits.h"
PCH_FLAGS = FLAGS[:2]  # -std and -O: what GCC requires to match
_BITS_FIRST = re.compile(rb"#[ \t]*include[ \t]*<bits/stdc\+\+\.h>[ \t]*(?://[^\n]*)?(?:\r?\n|$)")
_pch_lock = threading.Lock()
_pch_failed: set[str] = set()  # toolchains whose header could not be precompiled here


def includes_bits_first(source: bytes) -> bool:
    """Whether the source's first line of code is `#include <bits/stdc++.h>` (comments and
    blank lines before it aside)."""
    rest = source
    while True:
        rest = rest.lstrip()
        if rest.startswith(b"//"):
            _, _, rest = rest.partition(b"\n")
        elif rest.startswith(b"/*"):
            _, end, rest = rest[2:].partition(b"*/")
            if not end:
                return False
        else:
            return _BITS_FIRST.match(rest) is not None


def pch_key() -> str:
    head = {"what": "cpp precompiled header", "version": _version(), "flags": list(PCH_FLAGS)}
    return "cpppch-" + hashlib.sha256(json.dumps(head, sort_keys=True).encode()).hexdigest()


def precompiled_header(cache: BuildCache | None) -> str | None:
    """The folder holding bits/stdc++.h.gch for this toolchain (made once, on the host: the
    judge's own compile of the system's header, as the runtime object is). Only for a caller
    that keeps builds (`cache`). None when it cannot be made: builds then read the header."""
    if cache is None:
        return None
    key = pch_key()
    parent = _pch_parent()
    if parent is None or key in _pch_failed:
        return None
    folder = os.path.join(parent, key)
    gch = os.path.join(folder, PCH_WRAPPER + ".gch")
    with _pch_lock:
        if not os.path.isfile(gch) and not _make_pch(parent, folder):
            _pch_failed.add(key)
            return None
    return folder


def _pch_parent() -> str | None:
    """This user's folder of precompiled headers, shared by its processes. Bound into builds,
    which run as a sandbox uid, so readable by all (it holds nothing secret) and written by
    us alone (a header someone else wrote would be compiled into submissions)."""
    return own_temp_folder("judge-cpp-pch", 0o755)


def _make_pch(parent: str, folder: str) -> bool:
    """Compile the header once (make_once); False when it cannot be: builds then read it."""
    try:
        make_once(parent, folder, _compile_pch)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("C++: <%s> could not be precompiled (builds read it): %s", PCH_HEADER, exc)
        return False
    return os.path.isfile(os.path.join(folder, PCH_WRAPPER + ".gch"))


def _compile_pch(work: str) -> str:
    with open(os.path.join(work, PCH_WRAPPER), "w") as f:
        f.write(f"#include <{PCH_HEADER}>\n")
    subprocess.run(
        [GXX, *PCH_FLAGS, "-x", "c++-header", "-o", PCH_WRAPPER + ".gch", PCH_WRAPPER],
        cwd=work,
        capture_output=True,
        timeout=300,
        check=True,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
    )
    return work


def _cached_runtime(cache: BuildCache, key: str) -> bytes | None:
    with tempfile.TemporaryDirectory() as work:
        into = os.path.join(work, "out")
        if not cache.fetch(key, into):
            return None
        try:
            with open(os.path.join(into, RUNTIME_OBJECT), "rb") as f:
                return f.read()
        except OSError:
            return None


def _store_runtime(cache: BuildCache, key: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as work:
        os.mkdir(os.path.join(work, "out"))
        with open(os.path.join(work, "out", RUNTIME_OBJECT), "wb") as f:
            f.write(data)
        cache.store(key, os.path.join(work, "out"))


def _compile_runtime() -> bytes:
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, RUNTIME_NAME), "w") as f:
            f.write(runtime_source())
        try:
            subprocess.run(
                [GXX, *RUNTIME_FLAGS, "-c", "-o", RUNTIME_OBJECT, RUNTIME_NAME],
                cwd=work,
                capture_output=True,
                timeout=120,
                check=True,
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise LanguageUnavailable(f"g++ cannot compile the C++ driver here: {exc}") from None
        with open(os.path.join(work, RUNTIME_OBJECT), "rb") as f:
            return f.read()


@cache
def _version() -> str:
    out = kept_answers.answers("g++", GXX, ["--version"], _print)["--version"]
    # "g++ (Debian 12.2.0-14+deb12u1) 12.2.0": the release, and the build it came in.
    first = out.splitlines()[0] if out else ""
    match = re.match(r"g\+\+ \((.*)\) (\S+)$", first)
    return f"g++ {match.group(2)} ({match.group(1)})" if match else first or "g++"


def _print(what: str) -> str:
    return ask_tool([GXX, what], "g++")


@cache
def compiler_layout() -> Layout:
    """Exactly what g++ needs to compile and link a static C++ program, read-only."""
    gcc = "-print-libgcc-file-name"
    progs = [f"-print-prog-name={name}" for name in PROGRAMS[:3]]
    files = [f"-print-file-name={name}" for name in (PROGRAMS[3], *LINK_FILES)]
    said = kept_answers.answers("g++", GXX, [gcc, *progs, *files], _print)
    gcc_dir = os.path.dirname(said[gcc])
    programs = [said[q] for q in progs] + [said[files[0]]]
    link = [os.path.normpath(said[q]) for q in files[1:]]
    link += _script_inputs(link)
    tools = [t for t in TOOLS if os.path.exists(t)]
    return toolchain_layout(
        [*tools, gcc_dir, "/usr/include", *link],
        linked=[os.path.realpath(p) for p in (*tools, *programs) if os.path.isabs(p)],
        warm=False,
        libraries=kept_answers.libraries,
    )


def _script_inputs(paths: list[str]) -> list[str]:
    """Files that linker scripts among `paths` name (libm.a is one: libm-2.36.a, libmvec.a)."""
    found = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
        except OSError:
            continue
        if head.startswith(b"/* GNU ld script"):
            found += [m.decode() for m in re.findall(rb"(/[^\s()]+)", head.split(b"*/", 1)[-1])]
    return found


# -- the compiler's message as a student reads it ---------------------------------------------

MAX_MESSAGE_LINES = 60
# "file:line:col: kind: text", "file: In function ...:", "file:line:col:   required from here"
_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^\s:][^:]*?):(?:(?P<line>\d+):(?:(?P<col>\d+):)?)? ?(?P<rest>.*)$"
)
_CONTEXT = re.compile(r"^\s+(\d+\s+)?\|")  # the source line and caret under a diagnostic
_PATH = re.compile(r"(?<![\w.])/(?:[\w.+-]+/)+(?=[\w.+-])")  # a directory part of a path
_TEMP_OBJECT = re.compile(r"\bcc\w{6}\.o\b")  # the compiler's object file in /tmp
_STATIC_ASSERT = re.compile(r"error: static assertion failed: (?P<message>.*)$")


def clean_message(text: str) -> str:
    """The errors of g++'s output: the student's file and line numbers, headers by their
    name, the driver's own lines left out, warnings dropped; no directory of the judge, the
    sandbox or the toolchain."""
    kept: list[str] = []
    keep_context = dropping_notes = False
    heading = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line:
            continue
        if _CONTEXT.match(line):
            if keep_context:
                kept.append(line)
            continue
        keep_context = False
        if line.startswith("In file included from") or line.lstrip().startswith("from "):
            continue
        line = _PATH.sub("", line).replace("judge_student_main_", "main")
        line = _TEMP_OBJECT.sub("solution.o", line)
        assertion = _STATIC_ASSERT.search(line)
        if line.startswith((f"{DRIVER_NAME}:(", f"{RUNTIME_NAME}:(")):  # the linker's place
            kept.append("ld: " + line.split(": ", 1)[-1])
            continue
        if line.startswith((DRIVER_NAME, RUNTIME_NAME)):
            if assertion:  # the driver's check of solution's signature: the student's error
                kept.append(f"{SOURCE_NAME}: error: {assertion.group('message')}")
            continue  # the driver's own lines say nothing the student wrote
        if line.startswith("See <") or line == "compilation terminated.":
            continue
        if "File size limit exceeded" in line:
            kept.append("g++: error: the compiled code is larger than the size limit")
            continue
        match = _DIAGNOSTIC.match(line)
        if match:
            rest = f" {match.group('rest')}"
            if " warning: " in rest or (" note: " in rest and dropping_notes):
                dropping_notes = True  # a warning's notes go with it
                continue
            dropping_notes = False
        if match and match.group("line") is None and match.group("rest").startswith("In "):
            heading = line  # "solution.cpp: In function ...": shown only above an error
            continue
        if line.startswith(("ld:", "collect2:", "g++:", "as:")) or match:
            if heading:
                kept.append(heading)
                heading = ""
            kept.append(line)
            keep_context = True
    if not kept and text.strip():
        kept.append("compilation failed")
    if len(kept) > MAX_MESSAGE_LINES:
        kept = [*kept[:MAX_MESSAGE_LINES], f"... ({len(kept) - MAX_MESSAGE_LINES} more lines)"]
    return "\n".join(kept)


LANGUAGE = Cpp()

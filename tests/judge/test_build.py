"""Compiling once per grading and the build cache (judge/execution/build.py), through the real
sandbox.

The builds here are Python scripts run in the sandbox by a language made for the test (it
"compiles" by copying the source, padded, into /box/out), so each build is quick and its
artifact's size is chosen; Python's own build (the stdio style's syntax check) is tested too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from judge.execution.build import MANIFEST, BuildCache, built
from judge.execution.program import CompileError
from judge.languages import Style, get_language
from judge.problems import get
from judge.sandbox import RunLimits, SandboxConfig, make_sandbox
from judge.sandbox.command import Command

NUMBERGAME = get("numbergame")
REPO = Path(__file__).resolve().parents[2]

# Copies solution.py to out/program.txt, padded to the size its first line asks for; a source
# starting with "loop" never finishes, "link" leaves a symbolic link behind, "sleep" waits
# half a second first (as a compile waiting for the disk or a CPU would).
COPY = b"""\
import os
import time
source = open("solution.py", "rb").read()
if source.startswith(b"sleep"):
    time.sleep(0.5)
if source.startswith(b"loop"):
    while True:
        pass
if source.startswith(b"link"):
    os.symlink("/etc/passwd", "out/passwd")
size = int(source.split(b"\\n", 1)[0].split(b"=")[1]) if source.startswith(b"pad=") else 0
with open("out/program.txt", "wb") as f:
    f.write(source + b"." * max(size - len(source), 0))
"""


class Copying:
    """A language whose build copies the source: the real build machinery, in miniature."""

    name = "copying"
    title = "Copying"
    extensions = (".copy",)
    source_name = "solution.py"
    highlight = "text"
    time_factor = 1.0
    time_extra_s = 0.0
    reports_batches = False
    memory_extra_mb = 0

    def version(self) -> str:
        return "copying 1"

    def template(self, problem, style):
        return ""

    def build_command(self, problem, style, source):
        return Command(
            argv=("{python}", "-I", "-S", "-B", "/box/build.py"),
            files={"build.py": COPY, "solution.py": source},
        )

    def build_limits(self) -> RunLimits:
        return RunLimits(cpu_s=1.0, wall_s=3.0, memory_bytes=128 << 20)

    def run_command(self, request):
        raise AssertionError("not run here")

    def run_limits(self, base):
        return base

    def clean_compile_message(self, text: str) -> str:
        return text.strip()


class Counting:
    """The real sandbox, counting the runs it starts."""

    def __init__(self, sandbox) -> None:
        self.sandbox = sandbox
        self.runs = 0

    def run(self, command, limits, hidden=False):
        self.runs += 1
        return self.sandbox.run(command, limits, hidden=hidden)


@pytest.fixture(scope="module")
def real_sandbox():
    return make_sandbox(SandboxConfig(mode="bwrap"))


@pytest.fixture
def sandbox(real_sandbox):
    return Counting(real_sandbox)


@pytest.fixture
def cache_dir():
    # Not pytest's tmp_path: nothing of the cache is bound into a run, but its parent must
    # not be shared with other test runs either.
    path = tempfile.mkdtemp(prefix="judge-build-test-")
    yield os.path.join(path, "cache")
    subprocess.run(["rm", "-rf", path], check=False)


def build(sandbox, source: bytes, cache: BuildCache | None) -> bytes:
    with built(NUMBERGAME, Copying(), Style.FUNCTION, source, sandbox, cache) as program:
        assert program.artifact is not None
        artifact = Path(program.artifact)
        mode = (artifact / "program.txt").stat().st_mode & 0o777
        assert mode == 0o444, oct(mode)  # the run's copy: readable, writable by nobody
        data = (artifact / "program.txt").read_bytes()
    assert not artifact.exists()  # the private copy goes with the grading
    return data


def entries(cache: BuildCache) -> list[Path]:
    return sorted(Path(cache.directory, "entries").iterdir())


def test_a_miss_builds_and_a_hit_does_not(sandbox, cache_dir):
    cache = BuildCache(cache_dir)
    assert build(sandbox, b"one", cache) == b"one" and sandbox.runs == 1
    assert build(sandbox, b"one", cache) == b"one" and sandbox.runs == 1  # a hit
    assert build(sandbox, b"two", cache) == b"two" and sandbox.runs == 2  # another source
    assert len(entries(cache)) == 2
    assert build(sandbox, b"one", None) == b"one" and sandbox.runs == 3  # no cache, no hit
    assert os.stat(cache_dir).st_mode & 0o777 == 0o700


def test_the_cache_stays_within_its_bound_least_recently_used_first(sandbox, cache_dir):
    cache = BuildCache(cache_dir, max_bytes=2500)
    for name in (b"a", b"b"):
        build(sandbox, b"pad=1000\n" + name, cache)
    build(sandbox, b"pad=1000\na", cache)  # a hit: "a" is now more recent than "b"
    assert sandbox.runs == 2
    build(sandbox, b"pad=1000\nc", cache)  # 3000 bytes: one must go, and it is "b"
    assert cache.size_bytes() <= 2500
    assert len(entries(cache)) == 2
    runs = sandbox.runs
    build(sandbox, b"pad=1000\na", cache)
    build(sandbox, b"pad=1000\nc", cache)
    assert sandbox.runs == runs  # both kept
    build(sandbox, b"pad=1000\nb", cache)
    assert sandbox.runs == runs + 1  # evicted, so built again


@pytest.mark.parametrize("damage", ["changed", "truncated", "no manifest", "bad manifest"])
def test_a_damaged_or_partial_entry_is_built_again(sandbox, cache_dir, damage):
    cache = BuildCache(cache_dir)
    build(sandbox, b"pad=100\nx", cache)
    (entry,) = entries(cache)
    program = entry / "out" / "program.txt"
    program.chmod(0o644)
    if damage == "changed":
        program.write_bytes(program.read_bytes().replace(b"x", b"y"))
    elif damage == "truncated":
        program.write_bytes(program.read_bytes()[:10])
    elif damage == "no manifest":
        (entry / MANIFEST).unlink()
    else:
        (entry / MANIFEST).write_text("{")
    assert build(sandbox, b"pad=100\nx", cache).startswith(b"pad=100\nx...")
    assert sandbox.runs == 2
    (entry,) = entries(cache)  # stored again, whole
    assert json.loads((entry / MANIFEST).read_text())["files"]["program.txt"][0] == 100
    assert build(sandbox, b"pad=100\nx", cache).startswith(b"pad=100\nx")
    assert sandbox.runs == 2


def test_deleting_the_cache_at_any_time_is_safe(sandbox, cache_dir):
    cache = BuildCache(cache_dir)
    with built(NUMBERGAME, Copying(), Style.FUNCTION, b"kept", sandbox, cache) as program:
        subprocess.run(["rm", "-rf", cache_dir], check=True)
        assert Path(program.artifact, "program.txt").read_bytes() == b"kept"
    assert build(sandbox, b"kept", cache) == b"kept" and sandbox.runs == 2


def test_a_cache_directory_others_can_write_is_not_used(sandbox, cache_dir):
    os.makedirs(cache_dir)
    os.chmod(cache_dir, 0o777)
    cache = BuildCache(cache_dir)
    assert build(sandbox, b"one", cache) == b"one"
    assert build(sandbox, b"one", cache) == b"one"
    assert sandbox.runs == 2
    assert not os.path.exists(os.path.join(cache_dir, "entries"))


CONCURRENT = """
import sys
from judge.execution.build import BuildCache, built
from judge.languages import Style
from judge.problems import get
from judge.sandbox import SandboxConfig, make_sandbox
from tests.judge.test_build import Copying
sandbox = make_sandbox(SandboxConfig(mode="bwrap"))
with built(get("numbergame"), Copying(), Style.FUNCTION, b"pad=50000\\nsame", sandbox,
           BuildCache(sys.argv[1])) as program:
    print(len(open(program.artifact + "/program.txt", "rb").read()))
"""


def test_concurrent_builds_of_one_source_both_succeed_and_leave_one_entry(cache_dir):
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, cache_dir],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        assert out.strip() == "50000"
    cache = BuildCache(cache_dir)
    assert len(entries(cache)) == 1
    assert not os.listdir(os.path.join(cache_dir, "staging"))


def test_a_build_past_its_time_is_a_compile_error(sandbox):
    with pytest.raises(CompileError, match=r"^compilation took longer than 1 s$"):
        build(sandbox, b"loop", None)


def test_a_build_is_charged_its_cpu_time_not_its_wall_time(sandbox):
    """What a build spends off the CPU moves the grading's deadline on (Program.build_waited_s):
    a compiler does not sleep, so that time is the machine's, whether or not the wait clock
    could prove it (it cannot for a compile's short-lived processes)."""
    with built(NUMBERGAME, Copying(), Style.FUNCTION, b"sleep", sandbox) as program:
        assert program.build_waited_s >= 0.45, program.build_waited_s


def test_a_build_leaving_a_link_is_refused(sandbox):
    with pytest.raises(CompileError, match="output was refused"):
        build(sandbox, b"link", None)


def test_python_stdio_syntax_error_is_a_compile_error_naming_only_the_submission(sandbox):
    python = get_language("python")
    source = b"import sys\nprint(int(sys.stdin.readline()) +)\n"
    with (
        pytest.raises(CompileError) as caught,
        built(NUMBERGAME, python, Style.STDIO, source, sandbox) as _,
    ):
        pass
    message = str(caught.value)
    assert message.startswith("solution.py, line 2: SyntaxError")
    assert "/box" not in message and "/tmp" not in message
    with built(NUMBERGAME, python, Style.STDIO, b"print(1)\n", sandbox) as program:
        assert program.artifact is not None  # the check passed: nothing to run but the source
    with built(NUMBERGAME, python, Style.FUNCTION, b"def solution(:\n", sandbox) as program:
        assert program.artifact is None  # function style: the harness reports it
    assert sandbox.runs == 2

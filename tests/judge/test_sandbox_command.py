"""Sandbox.run: any command, not only Python: a toolchain's layout, trees bound at /box/NAME,
stdin, stdout as the results channel, an input pipe written as the run goes, a writable output
directory for a compiler, and the limits a JVM needs (no RLIMIT_AS, more open files)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.sandbox import Command, RunLimits, SandboxConfig, make_sandbox
from judge.sandbox.layout import toolchain_layout

LIMITS = RunLimits(cpu_s=5, wall_s=10, memory_bytes=128 << 20)
ECHO_CPP = """
#include <iostream>
#include <string>
int main() { std::string word; while (std::cin >> word) std::cout << word.size() << std::endl; }
"""


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A host directory the sandbox uids may read (pytest's tmp_path is root's alone, as an
    artifact directory must not be)."""
    path = Path(tempfile.mkdtemp(prefix="judge-test-tree-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def sandbox():
    return make_sandbox(SandboxConfig())


def python(code: str, **fields) -> Command:
    return Command(
        argv=("{python}", "-I", "-S", "-B", "/box/main.py"),
        files={"main.py": code.encode()},
        **fields,
    )


def lines(proc) -> list[str]:
    found = []
    while (line := proc.read_result(timeout=10)) is not None:
        found.append(line.decode())
    return found


def test_a_compiled_program_reads_stdin_and_answers_on_the_results_channel(sandbox, shared_dir):
    tmp_path = shared_dir
    subprocess.run(
        ["g++", "-O2", "-static", "-o", tmp_path / "echo", "-x", "c++", "-"],
        input=ECHO_CPP.encode(),
        check=True,
    )
    command = Command(
        argv=("/box/bin/echo",),
        trees={"bin": str(tmp_path)},
        layout=toolchain_layout(()),  # a static binary needs nothing of the host
        stdin=b"one three\nfive\n",
        stdout_to_results=True,
    )
    with sandbox.run(command, LIMITS) as proc:
        assert lines(proc) == ["3", "5", "4"]
    assert proc.outcome.exit_code == 0


# Echoes each line of its input pipe with its length on the results channel, then "end".
ECHO_INPUT = """
import os, sys
fd = int(sys.argv[1])
with os.fdopen(int(sys.argv[2]), "rb") as tests, os.fdopen(fd, "w", buffering=1) as out:
    for line in tests:
        out.write(f"{len(line)} {line[:20].decode().strip()}\\n")
    out.write("end\\n")
"""


def input_pipe_run(code: str) -> Command:
    return Command(
        argv=("{python}", "-I", "-S", "-B", "/box/main.py", "{results_fd}", "{input_fd}"),
        files={"main.py": code.encode()},
        input_pipe=True,
    )


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_the_input_pipe_goes_in_as_the_process_reads_it(sandbox):
    before = open_fds()
    with sandbox.run(input_pipe_run(ECHO_INPUT), LIMITS) as proc:
        proc.write_input(b"first\n")
        assert proc.read_result(timeout=10) == b"6 first"
        with pytest.raises(TimeoutError):  # nothing more written, nothing more answered
            proc.read_result(timeout=0.3)
        big = b"x" * (1 << 20) + b"\n"  # far beyond a pipe's buffer: queued, never waited for
        started = time.monotonic()
        proc.write_input(big + b"second\n")
        assert time.monotonic() - started < 0.5
        assert proc.read_result(timeout=10) == b"%d %s" % (len(big), b"x" * 20)
        assert proc.read_result(timeout=10) == b"7 second"
        proc.close_input()  # EOF once all of it has gone in
        assert proc.read_result(timeout=10) == b"end"
        assert proc.read_result(timeout=10) is None
    assert proc.outcome.exit_code == 0, proc.outcome.output
    assert open_fds() == before


def test_writing_to_a_process_that_does_not_read_never_blocks(sandbox):
    code = """
import os, sys, time
os.write(int(sys.argv[1]), b"up\\n")
time.sleep(0.5)
os.close(int(sys.argv[2]))  # stops reading: the judge's writes go nowhere, without an error
os.write(int(sys.argv[1]), b"closed\\n")
time.sleep(30)
"""
    before = open_fds()
    with sandbox.run(input_pipe_run(code), LIMITS) as proc:
        assert proc.read_result(timeout=10) == b"up"
        started = time.monotonic()
        for _ in range(64):
            proc.write_input(b"y" * (1 << 16))  # 4 MiB nobody reads
        assert time.monotonic() - started < 0.5
        assert proc.read_result(timeout=10) == b"closed"
        proc.write_input(b"more\n")  # the reader is gone (EPIPE): dropped
        proc.close_input()
        with pytest.raises(TimeoutError):
            proc.read_result(timeout=0.2)
        proc.kill()
    assert open_fds() == before
    # Ended before the process read anything: its descriptors are closed as well.
    with sandbox.run(input_pipe_run("import time\ntime.sleep(30)\n"), LIMITS) as proc:
        proc.write_input(b"z" * (1 << 20))
    assert open_fds() == before


def compile_like(sandbox, code: str, out: Path):
    with sandbox.run(python(code, writable=str(out)), LIMITS) as proc:
        assert proc.read_result(timeout=10) is None
    assert proc.outcome.exit_code == 0, proc.outcome.output
    return proc.outcome


def test_a_compilers_output_comes_out_as_plain_files_of_ours(sandbox, tmp_path):
    code = """
import os
os.makedirs("/box/out/classes/pkg")
open("/box/out/classes/pkg/A.class", "w").write("class")
with open("/box/out/solution", "w") as f:
    f.write("binary")
os.chmod("/box/out/solution", 0o4777)
for path in ("/box/elsewhere", "/tmp/../box/x"):
    try:
        open(path, "w")
    except OSError:
        pass
    else:
        print("WROTE", path)
"""
    outcome = compile_like(sandbox, code, tmp_path)
    assert outcome.output_refused is None and b"WROTE" not in outcome.output
    binary = tmp_path / "solution"
    assert binary.read_text() == "binary" and (tmp_path / "classes/pkg/A.class").is_file()
    st = os.stat(binary)
    assert st.st_uid == os.geteuid() and st.st_mode & 0o7777 == 0o755  # no setuid, ours


@pytest.mark.parametrize(
    "trick",
    [
        'os.symlink("/", "/box/out/classes")',
        'os.symlink("/etc/shadow", "/box/out/solution")',
        'os.mkfifo("/box/out/solution")',
        'open("/box/out/a", "w"); os.link("/box/out/a", "/box/out/b")',
        '[open(f"/box/out/{i}", "w").close() for i in range(5000)]',
        'os.makedirs("/box/out/" + "/".join(["d"] * 40))',
    ],
    ids=["link-to-root", "link-to-shadow", "fifo", "hard-link", "many-files", "deep"],
)
def test_anything_but_a_few_plain_files_refuses_the_whole_output(sandbox, tmp_path, trick):
    outcome = compile_like(sandbox, f"import os\n{trick}\n", tmp_path)
    assert outcome.output_refused
    assert not any(p.is_symlink() or p.is_fifo() for p in tmp_path.rglob("*"))


def test_tree_names_and_paths_are_checked(sandbox, shared_dir):
    for trees in ({"../x": str(shared_dir)}, {".stdin": str(shared_dir)}, {"out": str(shared_dir)}):
        with pytest.raises(ValueError):
            sandbox.run(python("", trees=trees), LIMITS)
    (shared_dir / "real").mkdir()
    (shared_dir / "link").symlink_to(shared_dir / "real")
    with pytest.raises(ValueError):
        sandbox.run(python("", trees={"t": str(shared_dir / "link")}), LIMITS)


def test_a_compilers_view_of_usr_hides_an_installed_judge(sandbox):
    code = "import os, json; print(json.dumps(os.listdir('/usr/local')))"
    layout = toolchain_layout(["/usr"], linked=["/usr/bin/python3"], warm=False)
    command = Command(
        argv=("/usr/bin/python3", "-I", "-S", "-c", code), layout=layout, stdout_to_results=True
    )
    with sandbox.run(command, LIMITS) as proc:
        assert json.loads(proc.read_result(timeout=10)) == []
    assert os.listdir("/usr/local")  # there is something to hide


def test_the_commands_environment_and_the_merged_usr_links(sandbox):
    code = """
import json, os
print(json.dumps({"env": os.environ.get("JUDGE_TEST_VAR"), "lib64": os.path.islink("/lib64")}))
"""
    command = python(code, env={"JUDGE_TEST_VAR": "set"}, stdout_to_results=True)
    with sandbox.run(command, LIMITS) as proc:
        seen = json.loads(proc.read_result(timeout=10))
    assert seen["env"] == "set"
    # The Python layout binds its own libraries; a toolchain layout brings the links:
    with sandbox.run(
        Command(
            argv=("/usr/bin/true",),
            layout=toolchain_layout(["/usr/bin/true"], linked=["/usr/bin/true"]),
        ),
        LIMITS,
    ) as proc:
        proc.read_result(timeout=10)
    assert proc.outcome.exit_code == 0, proc.outcome.output


RESERVE = """
import mmap
try:
    mmap.mmap(-1, 2 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000)  # MAP_NORESERVE
    print("reserved")
except OSError:
    print("refused")
"""


def test_a_jvm_style_run_may_reserve_address_space_beyond_its_memory(sandbox):
    results = []
    for address_space in (True, False):
        limits = RunLimits(cpu_s=5, wall_s=10, memory_bytes=128 << 20, address_space=address_space)
        with sandbox.run(python(RESERVE, stdout_to_results=True), limits) as proc:
            results.append(proc.read_result(timeout=10))
    assert results == [b"refused", b"reserved"]


OPEN_FILES = """
import os
fds = []
try:
    for _ in range(100):
        fds.append(os.open("/box/main.py", os.O_RDONLY))
    print("100 open")
except OSError:
    print("refused at", len(fds))
"""


def test_open_files_are_bounded_by_the_limit(sandbox):
    seen = []
    for nofile in (64, 256):
        limits = RunLimits(cpu_s=5, wall_s=10, memory_bytes=128 << 20, nofile=nofile)
        with sandbox.run(python(OPEN_FILES, stdout_to_results=True), limits) as proc:
            seen.append(proc.read_result(timeout=10).decode())
    assert seen[0].startswith("refused at") and seen[1] == "100 open"


def test_the_unconfined_jail_maps_box_paths_to_its_directory(tmp_path):
    unconfined = make_sandbox(SandboxConfig(mode="none"))
    (tmp_path / "data.txt").write_text("tree file")
    code = "print(open('/box/tree/data.txt'.replace('/box', __import__('os').getcwd())).read())"
    command = python(code, trees={"tree": str(tmp_path)}, stdout_to_results=True)
    with unconfined.run(command, LIMITS) as proc:
        assert proc.read_result(timeout=10) == b"tree file"
    assert shutil.which("g++")  # the C++ test above needs it: a missing compiler fails, not skips


def test_unconfined_every_part_of_a_class_path_in_the_box_is_rewritten(shared_dir):
    """Unconfined, /box is a folder of the host: a JVM's class path names several trees."""
    (shared_dir / "one").mkdir()
    (shared_dir / "two").mkdir()
    code = "import os, sys\nprint(*(os.path.isdir(p) for p in sys.argv[1].split(':')))\n"
    command = Command(
        argv=("{python}", "-I", "-S", "-B", "/box/main.py", "/box/one:/box/two:/usr"),
        files={"main.py": code.encode()},
        trees={"one": str(shared_dir / "one"), "two": str(shared_dir / "two")},
        stdout_to_results=True,
    )
    with make_sandbox(SandboxConfig(mode="none")).run(command, LIMITS) as proc:
        assert lines(proc) == ["True True True"]

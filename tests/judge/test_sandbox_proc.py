"""What every sandbox sees of /proc and /dev, in every layout a language runs or compiles in:
a probe (Python, a static C++ binary, a JVM class) lists /proc/sys, the top of /proc and /dev
and reads what it can. The machine-wide counters must be masked in each, so a layout or a
language added later cannot bring them back unnoticed (they all start through the same bwrap
command line, which this pins down from the inside)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from judge import problems
from judge.languages import LanguageUnavailable, RunRequest, Style, get_language, jvm
from judge.sandbox import Command, RunLimits
from judge.sandbox.layout import Layout

FOOTHOLDS = problems.get("footholds")
LIMITS = RunLimits(cpu_s=10, wall_s=30, memory_bytes=256 << 20, output_bytes=1 << 20)
# The allow lists, spelled out here again (judge/sandbox/layout.py has them): widening one
# is a decision to make in both places, not an accident. Everything else at the top of this
# kernel's /proc must read as empty, or not at all (what only root may read).
PROC_SYS_SHOWN = ["vm/overcommit_memory"]
PROC_SHOWN = {
    *("self", "thread-self", "net", "mounts", "sys"),
    *("cmdline", "config.gz", "consoles", "devices", "dma", "execdomains", "filesystems"),
    *("iomem", "ioports", "kallsyms", "misc", "mtrr", "partitions", "version"),
    *("acpi", "bus", "tty", "sysvipc"),
}
# Machine-wide counters that must read as nothing, whatever the kernel's list of entries.
COUNTERS = ("stat", "meminfo", "loadavg", "uptime", "vmstat", "interrupts", "diskstats", "swaps")
DEV = {"null", "zero", "full", "random", "urandom", "fd", "stdin", "stdout", "stderr", "shm"}

# Each probe prints "sys PATH" for every file under /proc/sys, "top NAME KIND N" for every
# entry at the top of /proc but the processes (KIND f, d or l; N the bytes read, up to 64 KiB,
# or the entries of a directory, or -1 when it cannot be opened), "dev NAME" for every entry
# of /dev, and "ptmx 0" when /dev/ptmx opens ("ptmx -1" when not).
PYTHON_PROBE = r"""
import os
for root, dirs, files in os.walk("/proc/sys"):
    for name in files:
        print("sys", os.path.relpath(os.path.join(root, name), "/proc/sys"))
for name in sorted(os.listdir("/proc")):
    if name.isdigit():
        continue
    path = "/proc/" + name
    try:
        if os.path.islink(path):
            kind, n = "l", 0
        elif os.path.isdir(path):
            kind, n = "d", len(os.listdir(path))
        else:
            kind = "f"
            with open(path, "rb") as f:
                n = len(f.read(65536))
    except OSError:
        n = -1
    print("top", name, kind, n)
for name in os.listdir("/dev"):
    print("dev", name)
try:
    os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
    print("ptmx 0")
except OSError:
    print("ptmx -1")
"""

CPP_PROBE = r"""
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <string>

static long entries(const std::string& path) {
    DIR* dir = opendir(path.c_str());
    if (!dir) return -1;
    long n = 0;
    while (dirent* e = readdir(dir))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") n++;
    closedir(dir);
    return n;
}

static void walk(const std::string& root, const std::string& rel) {
    DIR* dir = opendir((root + rel).c_str());
    if (!dir) return;
    while (dirent* e = readdir(dir)) {
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        std::string path = rel.empty() ? name : rel + "/" + name;
        struct stat st;
        if (lstat((root + path).c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) walk(root, path);
        else std::printf("sys %s\n", path.c_str());
    }
    closedir(dir);
}

int main() {
    walk("/proc/sys/", "");
    DIR* proc = opendir("/proc");
    while (dirent* e = readdir(proc)) {
        std::string name = e->d_name;
        if (name == "." || name == ".." || std::isdigit((unsigned char)name[0])) continue;
        std::string path = "/proc/" + name;
        struct stat st;
        if (lstat(path.c_str(), &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            std::printf("top %s l 0\n", name.c_str());
        } else if (S_ISDIR(st.st_mode)) {
            std::printf("top %s d %ld\n", name.c_str(), entries(path));
        } else {
            long n = -1;
            int fd = open(path.c_str(), O_RDONLY);
            if (fd >= 0) {
                static char buffer[65536];
                n = 0;
                for (long got; n < (long)sizeof buffer &&
                               (got = read(fd, buffer + n, sizeof buffer - n)) > 0;)
                    n += got;
                close(fd);
            }
            std::printf("top %s f %ld\n", name.c_str(), n);
        }
    }
    closedir(proc);
    DIR* dev = opendir("/dev");
    while (dirent* e = readdir(dev)) {
        std::string name = e->d_name;
        if (name != "." && name != "..") std::printf("dev %s\n", name.c_str());
    }
    closedir(dev);
    int fd = open("/dev/ptmx", O_RDWR | O_NOCTTY);
    std::printf("ptmx %d\n", fd >= 0 ? 0 : -1);
}
"""

JAVA_PROBE = r"""
import java.io.File;
import java.io.FileInputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;

public class Probe {
    static void walk(File dir, String rel) {
        File[] files = dir.listFiles();
        if (files == null) return;
        for (File f : files) {
            String path = rel.isEmpty() ? f.getName() : rel + "/" + f.getName();
            if (f.isDirectory() && !Files.isSymbolicLink(f.toPath())) walk(f, path);
            else System.out.println("sys " + path);
        }
    }

    public static void main(String[] args) {
        walk(new File("/proc/sys"), "");
        for (File f : new File("/proc").listFiles()) {
            String name = f.getName();
            if (Character.isDigit(name.charAt(0))) continue;
            if (Files.isSymbolicLink(f.toPath())) {
                System.out.println("top " + name + " l 0");
            } else if (f.isDirectory()) {
                String[] list = f.list();
                System.out.println("top " + name + " d " + (list == null ? -1 : list.length));
            } else {
                long n;
                try (FileInputStream in = new FileInputStream(f)) {
                    n = in.readNBytes(65536).length;
                } catch (Exception e) {
                    n = -1;
                }
                System.out.println("top " + name + " f " + n);
            }
        }
        for (String name : new File("/dev").list()) System.out.println("dev " + name);
        try (RandomAccessFile ptmx = new RandomAccessFile("/dev/ptmx", "rw")) {
            System.out.println("ptmx 0");
        } catch (Exception e) {
            System.out.println("ptmx -1");
        }
    }
}
"""


@pytest.fixture(scope="module")
def probes():
    """The compiled probes, in a directory the sandbox uids may pass through."""
    root = Path(tempfile.mkdtemp(prefix="judge-probe-"))
    root.chmod(0o755)
    (root / "cpp").mkdir(mode=0o755)
    (root / "jvm").mkdir(mode=0o755)
    source = root / "probe.cpp"
    source.write_text(CPP_PROBE)
    subprocess.run(
        ["g++", "-std=gnu++17", "-O1", "-static", "-o", str(root / "cpp" / "probe"), str(source)],
        check=True,
        capture_output=True,
    )
    try:
        javac = os.path.join(jvm.java_home(), "bin", "javac")
    except LanguageUnavailable:
        javac = None
    if javac:
        (root / "Probe.java").write_text(JAVA_PROBE)
        subprocess.run(
            [javac, "-d", str(root / "jvm"), str(root / "Probe.java")],
            check=True,
            capture_output=True,
        )
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def request() -> RunRequest:
    return RunRequest(FOOTHOLDS, Style.FUNCTION, b"", "/nonexistent-artifact", start=0)


def language_layouts(name: str) -> dict[str, Layout]:
    """The layouts `name` compiles and runs in, as its plug-in asks for them."""
    language = get_language(name)
    try:
        language.version()
    except LanguageUnavailable:
        pytest.fail(f"{name} is required and not installed (make setup installs it)")
    build = language.build_command(FOOTHOLDS, Style.FUNCTION, b"")
    run = language.run_command(request())
    assert build.layout is not None and run.layout is not None
    return {"compile": build.layout, "run": run.layout}


def python_command(probes: Path) -> tuple[Command, RunLimits]:
    return Command(
        argv=("{python}", "-I", "-S", "-B", "/box/probe.py"),
        files={"probe.py": PYTHON_PROBE.encode()},
    ), LIMITS


def cpp_command(step: str) -> Callable[[Path], tuple[Command, RunLimits]]:
    def command(probes: Path) -> tuple[Command, RunLimits]:
        layout = language_layouts("cpp")[step]
        trees = {"probe": str(probes / "cpp")}
        return Command(argv=("/box/probe/probe",), layout=layout, trees=trees), LIMITS

    return command


def jvm_command(name: str, step: str) -> Callable[[Path], tuple[Command, RunLimits]]:
    def command(probes: Path) -> tuple[Command, RunLimits]:
        layout = language_layouts(name)[step]
        argv = (*jvm.jvm_flags(64), "-cp", "/box/probe", "Probe")
        trees = {"probe": str(probes / "jvm")}
        return Command(argv=argv, layout=layout, trees=trees), jvm.run_limits(LIMITS)

    return command


LAYOUTS = {
    "python-run": python_command,
    "cpp-compile": cpp_command("compile"),
    "cpp-run": cpp_command("run"),
    "java-compile": jvm_command("java", "compile"),
    "java-run": jvm_command("java", "run"),
    "kotlin-compile": jvm_command("kotlin", "compile"),
    "kotlin-run": jvm_command("kotlin", "run"),
}


def probe(sandbox, command: Command, limits: RunLimits) -> list[list[str]]:
    with sandbox.run(command, limits) as proc:
        while proc.read_result(timeout=limits.wall_s + 5) is not None:
            pass
    outcome = proc.outcome
    assert outcome.exit_code == 0 and outcome.limit is None, outcome
    return [line.split() for line in outcome.output.decode().splitlines() if line.strip()]


@pytest.mark.parametrize("where", LAYOUTS)
def test_every_layout_shows_only_the_allow_lists(sandbox, probes, where):
    command, limits = LAYOUTS[where](probes)
    lines = probe(sandbox, command, limits)
    # /proc/sys: exactly its allow list.
    assert sorted(p[1] for p in lines if p[0] == "sys") == PROC_SYS_SHOWN
    # The top of /proc: every entry this kernel has, but those shown, empty or unreadable.
    top = {p[1]: (p[2], int(p[3])) for p in lines if p[0] == "top"}
    host = {name for name in os.listdir("/proc") if not name.isdigit()}
    assert set(top) == host
    for name, (kind, n) in top.items():
        if name not in PROC_SHOWN and kind != "l":
            readable = os.stat(f"/proc/{name}").st_mode & (0o001 if kind == "d" else 0o004)
            assert n == (0 if readable else -1), (name, kind, n)
    for name in COUNTERS:
        assert top.get(name, ("f", 0)) == ("f", 0), name
    assert top.get("pressure", ("d", 0)) == ("d", 0)
    # /dev: the device nodes and links, no pty.
    assert {p[1] for p in lines if p[0] == "dev"} == DEV
    assert ["ptmx", "-1"] in lines

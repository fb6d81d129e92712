"""How one run is confined: the command line, environment, limits, accounting and kill.

`make_jail(mode, python)` returns a factory `limits -> Jail` plus notes on protections that
are not available on this machine (said in every verdict).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from dataclasses import dataclass


@dataclass
class Usage:
    cpu_s: float = 0.0
    peak_memory_bytes: int = 0
    oom_killed: bool = False


class Jail:
    """Unconfined: the submission runs as a plain child with rlimits. Development only."""

    poll_interval = 0.05  # how often whole-tree CPU and memory are checked while waiting
    pass_fds: tuple[int, ...] = ()

    def __init__(self, limits, python: str, notes: list[str]) -> None:
        self.limits = limits
        self.python = python
        self.notes = notes
        self._usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)

    def command(self, python: str, workdir: str, script: str, args: list[str]) -> list[str]:
        return [python, "-I", "-S", "-B", os.path.join(workdir, script), *args]

    def environment(self) -> dict[str, str]:
        return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}

    def preexec(self) -> None:
        """Runs in the child between fork and exec: per-process limits."""
        limits = self.limits
        cpu = int(limits.cpu_s) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def started(self, popen: subprocess.Popen) -> None:
        self._pid = popen.pid

    def cpu_seconds(self, pid: int) -> float | None:
        """CPU used so far by the whole tree, or None when it cannot be measured live."""
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks = os.sysconf("SC_CLK_TCK")
            return (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / ticks
        except (OSError, IndexError, ValueError):
            return None

    def memory_exceeded(self) -> bool:
        return False

    def kill(self, popen: subprocess.Popen) -> None:
        if popen.poll() is None:
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def finish(self, popen: subprocess.Popen) -> Usage:
        self.kill(popen)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (
            self._usage_before.ru_utime + self._usage_before.ru_stime)
        return Usage(cpu_s=max(cpu, 0.0), peak_memory_bytes=after.ru_maxrss * 1024)


class BwrapJail(Jail):
    """bubblewrap: own namespaces (no network at all), read-only Python, private /tmp."""

    def command(self, python: str, workdir: str, script: str, args: list[str]) -> list[str]:
        return [
            "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--clearenv",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin",
            "--proc", "/proc", "--dev", "/dev",
            "--size", str(self.limits.tmp_bytes), "--tmpfs", "/tmp",
            "--ro-bind", workdir, "/box", "--chdir", "/box",
            python, "-I", "-S", "-B", f"/box/{script}", *args,
        ]


def make_jail(mode: str, python: str):
    notes: list[str] = []
    if mode == "none":
        notes.append("UNSANDBOXED: JUDGE_SANDBOX=none, the submission ran unconfined "
                     "(local development only)")
        return (lambda limits: Jail(limits, python, notes)), notes
    return (lambda limits: BwrapJail(limits, python, notes)), notes

"""Processes of a run: the unconfined jail (a plain child with rlimits, for development), and
the /proc helpers every jail needs to account for, kill and reap what a run started,
including how long a run waited for a CPU that other work held (WaitClock).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import time
from collections.abc import Iterable

from judge.sandbox.command import Command
from judge.sandbox.limits import RunLimits, Usage

_PR_SET_CHILD_SUBREAPER = 36


class Jail:
    """Unconfined: the submission runs as a plain child with rlimits. Development only."""

    poll_interval = 0.05  # how often whole-tree CPU and memory are checked while waiting
    pass_fds: tuple[int, ...] = ()
    ended_clean = True  # after finish(): no process of the run is left

    def __init__(self, limits: RunLimits, python: str, notes: list[str]) -> None:
        self.limits = limits
        self.python = python
        self.notes = notes
        self._usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)

    def command(self, command: Command, workdir: str) -> list[str]:
        """Unconfined, /box is `workdir` itself: the paths under it are rewritten, the trees
        and the output directory are symlinks in it. The run's cwd is `workdir`."""
        for name, source in command.trees.items():
            os.symlink(source, os.path.join(workdir, name))

        def local(path: str) -> str:
            return workdir + path[4:] if path == "/box" or path.startswith("/box/") else path

        # A class path names several: each of its parts is rewritten.
        return [":".join(local(part) for part in arg.split(":")) for arg in command.argv]

    def cwd(self, workdir: str) -> str:
        return workdir

    def environment(self, command: Command) -> dict[str, str]:
        return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **command.env}

    def preexec(self) -> None:
        """Runs in the child between fork and exec: per-process limits."""
        limits = self.limits
        cpu = int(limits.cpu_s) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        if limits.address_space:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def started(self, popen: subprocess.Popen) -> None:
        self._pid = popen.pid

    def abort(self) -> None:
        """The run could not be started: release what __init__ and command() took."""

    def cpu_seconds(self, pid: int) -> float | None:
        """CPU used so far by the whole tree, or None when it cannot be measured live."""
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks = os.sysconf("SC_CLK_TCK")
            return (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / ticks
        except (OSError, IndexError, ValueError):
            return None

    def cpu_wait_seconds(self, pid: int) -> float | None:
        """Time the run has waited for a CPU that other work held since it started, at least
        (WaitClock), or None when it cannot be measured: unconfined, its tree is not known."""
        return None

    def memory_exceeded(self) -> bool:
        return False

    def kill(self, popen: subprocess.Popen) -> None:
        if popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(popen.pid, signal.SIGKILL)

    def finish(self, popen: subprocess.Popen) -> Usage:
        self.kill(popen)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (
            self._usage_before.ru_utime + self._usage_before.ru_stime
        )
        return Usage(cpu_s=max(cpu, 0.0), peak_memory_bytes=after.ru_maxrss * 1024)


class WaitClock:
    """How long a run has waited for a CPU that other work held, at least.

    The kernel counts, per task, its time on a CPU and its time runnable but waiting for one
    (the run delay): /proc/<tid>/schedstat, fields 1 and 2, in ns. A task's delay is time
    other work held its CPU, plus time a task of the same run held it, plus time the run's
    own CPU quota held it back (throttling: a tree using more than one CPU at once waits for
    itself). The last two are no more than its siblings' CPU and the run's throttled time,
    so for any one task

        waited >= delay + its own CPU - the whole run's CPU - the run's throttled time

    and nothing of that can be time every task of the run slept: the task was runnable. The
    best task's is taken (kept when it ends: its count goes with it). For a single-threaded
    program it is its run delay exactly; a run whose tasks queue behind each other gains
    nothing from it, and a sibling's CPU only lowers it (so it may go down).
    """

    def __init__(self) -> None:
        self._longest_ns = 0  # the most one task of the run has been on a CPU or queued for one

    def note(self, tids: Iterable[int]) -> None:
        """Read the run's tasks (before the run's CPU: what it uses meanwhile only counts
        against the waiting)."""
        for tid in tids:
            stat = schedstat_ns(tid)
            if stat is not None:
                self._longest_ns = max(self._longest_ns, stat[0] + stat[1])

    def waited(self, run_cpu_s: float, throttled_s: float) -> float:
        """The waiting proven so far, given the run's CPU and throttled time since noted."""
        return self._longest_ns / 1e9 - run_cpu_s - throttled_s


def schedstat_ns(tid: int) -> tuple[int, int] | None:
    """Task `tid`'s time on a CPU and time runnable but waiting for one, since it began."""
    try:
        fd = os.open(f"/proc/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # ended between the listing and the read
    try:
        fields = os.read(fd, 256).split()
        return int(fields[0]), int(fields[1])
    except (OSError, IndexError, ValueError):
        return None
    finally:
        os.close(fd)


def set_child_subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _proc_status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
    except (OSError, ValueError):
        return {}


def _pids() -> list[int]:
    return [int(n) for n in os.listdir("/proc") if n.isdigit()]


def pids_of_uid(uid: int) -> list[int]:
    """Processes whose real uid is `uid` (zombies included)."""
    found = []
    for pid in _pids():
        try:
            st = os.stat(f"/proc/{pid}")
        except OSError:
            continue
        if st.st_uid != uid:
            continue
        real = _proc_status(pid).get("Uid", "").split()
        if real and int(real[0]) == uid:
            found.append(pid)
    return found


def our_children(uid: int | None) -> list[int]:
    """Our child processes that are sandbox leftovers: owned by the slot uid, or (same uid)
    the pid 1 of a sandbox's pid namespace. Cheap filter on /proc/<pid>/stat first."""
    me = os.getpid()
    found = []
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid != me:
            continue
        status = _proc_status(pid)
        real = status.get("Uid", "").split()
        nspid = status.get("NSpid", "").split()
        if (uid is not None and real and int(real[0]) == uid and uid != os.getuid()) or (
            len(nspid) >= 2 and nspid[-1] == "1"
        ):
            found.append(pid)
    return found


def reap(pids: list[int], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    pending = set(pids)
    while pending:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # not ours (any more): someone else reaped it
            if done:
                pending.discard(pid)
        if not pending or time.monotonic() > deadline:
            return
        time.sleep(0.001)

"""How one run is confined: the command line, environment, limits, accounting and kill.

`make_jail(config, python)` returns a factory `limits -> Jail` plus notes on protections that
are not available on this machine (said in every verdict).

The bubblewrap jail, from the outside in:

- a grading slot (slots.py): an unprivileged uid of its own per concurrent run; as root the
  child drops to it (setgroups([]), setresgid, setresuid) before exec'ing bwrap, so bwrap holds
  no capabilities and RLIMIT_NPROC counts only this run's processes;
- a per-run cgroup (cgroups.py) joined before exec: memory, pids and CPU of the whole tree,
  the tree capped at one CPU, OOM kills detected, everything killed and the group removed at
  the end;
- rlimits set after the uid drop: CPU, AS, NPROC, FSIZE, NOFILE, CORE 0, MEMLOCK 0;
- bwrap started with a two-variable environment (its pid 1's /proc/1/environ is readable
  inside), `--unshare-all` (no network at all, own pid namespace), `--disable-userns`,
  `--cap-drop ALL`, `--die-with-parent`, `--new-session`, `--clearenv`, a seccomp filter
  (seccomp.py), read-only binds of only the interpreter, its stdlib (site-packages masked)
  and the shared libraries they load, a size-capped private /tmp, the submission directory
  read-only at /box; then `python -I -S -B`;
- this process is a child subreaper, so a sandbox init orphaned by a kill is reparented here
  and reaped (zombies would otherwise pile up against RLIMIT_NPROC).

Ending a run kills by its cgroup (or, without one, the sandbox's pid namespace, by killing
its pid 1), never every process of the slot uid: on a host shared with other workers or
containers, a uid is not proof that a process is this run's.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from functools import lru_cache

from judge.sandbox import seccomp
from judge.sandbox.cgroups import CgroupManager, RunCgroup
from judge.sandbox.config import SandboxConfig
from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.slots import NoFreeSlot, Slot, SlotPool
from judge.sandbox.workdirs import RUN_DIR_PREFIX, locked_dir

BWRAP = "/usr/bin/bwrap"
# Processes bwrap itself keeps in the tree: the outer monitor and the sandbox's pid 1.
BWRAP_TASKS = 2
NOFILE = 64
# RLIMIT_NPROC is a backstop above pids.max (the exact whole-tree bound), not the bound: on
# Linux 6.x the uid's process count lags seconds behind a finished sandbox (user-namespace
# ucounts), and an exact NPROC made back-to-back runs on one uid fail with EAGAIN (measured:
# NPROC 34 failed 42 of 60 consecutive runs, NPROC 200 none).
NPROC_SLACK = 64
SHM_BYTES = 1 << 20  # /dev/shm (POSIX semaphores of multiprocessing need a few bytes)
MIN_AS_HEADROOM = 256 << 20  # RLIMIT_AS above the cgroup limit: a backstop, not the limit
BARE_AS_HEADROOM = 64 << 20  # RLIMIT_AS above the limit when it is the only memory bound
_PR_SET_CHILD_SUBREAPER = 36

# Files of /proc that count for the whole machine, not the sandbox: processes forked, memory,
# load, CPU frequency and idle time, open files, dentries, locks, pressure. A run that held
# hidden boards could move them and a later run read them back, so inside they are empty.
GLOBAL_PROC_FILES = (
    *("stat", "vmstat", "meminfo", "loadavg", "uptime", "cpuinfo", "locks", "interrupts"),
    *("softirqs", "diskstats", "schedstat", "zoneinfo", "buddyinfo", "pagetypeinfo"),
    *("slabinfo", "key-users", "pressure/cpu", "pressure/io", "pressure/memory"),
    *("sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/inode-state", "sys/fs/dentry-state"),
    "sys/kernel/random/entropy_avail",
)


@lru_cache(maxsize=1)
def global_proc_files() -> tuple[str, ...]:
    """The GLOBAL_PROC_FILES this kernel has (a bind needs its target to exist)."""
    return tuple(f"/proc/{name}" for name in GLOBAL_PROC_FILES if os.path.exists(f"/proc/{name}"))


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


# ---------------------------------------------------------------------------------------------
# What the sandbox sees


@dataclass(frozen=True)
class Layout:
    python: str  # the interpreter binary (real path), bound at the same path
    binds: tuple[tuple[str, str], ...]  # (host source, sandbox path), all read-only
    masks: tuple[str, ...]  # directories inside the binds covered by an empty read-only tmpfs


_PROBE = r"""
import json, sys, sysconfig
paths = sysconfig.get_paths()
print(json.dumps({
    "stdlib": sorted({paths["stdlib"], paths["platstdlib"]}),
    "path": [p for p in sys.path if p],
    "site": sorted({paths["purelib"], paths["platlib"]}),
}))
"""


def _ldd(files: list[str]) -> list[tuple[str, str]]:
    """(sandbox path the loader opens, host real path) for every library `files` need."""
    try:
        out = subprocess.run(
            ["ldd", *files],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SandboxUnavailable(f"cannot list the interpreter's shared libraries: {e}") from e
    found: dict[str, str] = {}
    for line in out.splitlines():
        line = line.strip()
        if "=>" in line:
            target = line.split("=>", 1)[1].strip().split(" (")[0].strip()
        elif line.startswith("/") and " (" in line:
            target = line.split(" (")[0].strip()  # the dynamic loader itself
        else:
            continue
        if target.startswith("/") and os.path.exists(target):
            found[target] = os.path.realpath(target)
    return sorted(found.items())


@lru_cache(maxsize=8)
def _layout(python: str, mtime: float) -> Layout:
    import json

    try:
        probe = subprocess.run(
            [python, "-I", "-S", "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin"},
        )
        info = json.loads(probe.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        raise SandboxUnavailable(f"cannot run the sandbox interpreter {python}: {e}") from e
    roots = [os.path.realpath(d) for d in info["stdlib"] if os.path.isdir(d)]
    binds: dict[str, str] = {python: python}
    for d in roots:
        binds[d] = d
    sofiles = [python]
    for d in info["path"]:
        d = os.path.realpath(d)
        if not os.path.isdir(d):
            continue
        if not any(d == r or d.startswith(r + "/") for r in roots):
            binds.setdefault(d, d)  # e.g. a lib-dynload outside the stdlib directory
        sofiles += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".so"))
    for dest, source in _ldd(sofiles):
        binds.setdefault(dest, source)
    masks = set()
    for r in roots:
        for name in ("site-packages", "dist-packages"):
            if os.path.isdir(os.path.join(r, name)):
                masks.add(os.path.join(r, name))
    for s in info["site"]:
        s = os.path.realpath(s)
        if os.path.isdir(s) and any(s.startswith(r + "/") for r in roots):
            masks.add(s)
    return Layout(python, tuple((src, dst) for dst, src in binds.items()), tuple(sorted(masks)))


def layout_for(python: str, cache_dir: str | None = None) -> Layout:
    """What the sandbox binds for `python`. Working it out runs the interpreter and `ldd` on
    every extension module (most of a short-lived CLI's start-up), so a process computes it
    once, and with `cache_dir` it is kept on disk for the next process."""
    python = os.path.realpath(python)
    try:
        st = os.stat(python)
    except OSError as e:
        raise SandboxUnavailable(f"sandbox interpreter {python} not found: {e}") from e
    if cache_dir is None:
        return _layout(python, st.st_mtime)
    return _cached_layout(python, st, cache_dir)


LAYOUT_CACHE_VERSION = 1


def _dir_stamps(layout: Layout) -> dict[str, float]:
    """Modification times of the bound directories: a package installed or removed there
    (a new extension module, new libraries to bind) changes them."""
    return {src: os.stat(src).st_mtime for src, _ in layout.binds if os.path.isdir(src)}


def _cached_layout(python: str, st: os.stat_result, cache_dir: str) -> Layout:
    import hashlib
    import json
    import tempfile

    key = hashlib.sha256(
        f"{LAYOUT_CACHE_VERSION}\0{python}\0{st.st_mtime_ns}\0{st.st_size}".encode()
    ).hexdigest()[:32]
    path = os.path.join(cache_dir, f"sandbox-layout-{key}.json")
    cached = _read_layout_cache(path, python)
    if cached is not None:
        return cached
    layout = _layout(python, st.st_mtime)
    try:
        record = {
            "python": layout.python,
            "binds": layout.binds,
            "masks": layout.masks,
            "stamps": _dir_stamps(layout),
        }
        os.makedirs(cache_dir, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".layout-")
        with os.fdopen(fd, "w") as f:
            json.dump(record, f)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache we cannot write only costs the next start the same work again
    return layout


def _read_layout_cache(path: str, python: str) -> Layout | None:
    """The cached layout, or None when it is missing, stale, or not to be trusted: the file
    decides what the sandbox may read, so it must be ours and writable by us alone."""
    import json

    try:
        with open(path, encoding="utf-8") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.geteuid() or st.st_mode & 0o022:
                return None
            record = json.load(f)
        layout = Layout(
            str(record["python"]),
            tuple((str(src), str(dst)) for src, dst in record["binds"]),
            tuple(str(m) for m in record["masks"]),
        )
        if layout.python != python or record["stamps"] != _dir_stamps(layout):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all(os.path.exists(src) for src, _ in layout.binds):
        return None
    return layout


def default_cache_dir() -> str:
    """Where a command-line run keeps the layout: the user's cache directory."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "footholds-judge")


# ---------------------------------------------------------------------------------------------
# Process helpers


def _set_child_subreaper() -> bool:
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


def _our_children(uid: int | None) -> list[int]:
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


def _reap(pids: list[int], timeout: float = 2.0) -> None:
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


# ---------------------------------------------------------------------------------------------
# The bubblewrap jail


@dataclass
class BwrapConfig:
    python: str
    layout: Layout
    filter_bytes: bytes
    slots: SlotPool
    cgroups: CgroupManager
    as_root: bool
    subreaper: bool
    notes: list[str]


class BwrapJail(Jail):
    """bubblewrap: own namespaces (no network at all), read-only Python, private /tmp."""

    def __init__(self, limits, config: BwrapConfig) -> None:
        super().__init__(limits, config.python, list(config.notes))
        self.config = config
        self._seccomp_fd = -1
        self._info_r = self._info_w = -1
        self._sandbox_init: int | None = None
        self._init_reaped = False
        self._cgroup: RunCgroup | None = None
        self._killed = False
        self._finished = False
        try:
            self.slot: Slot = config.slots.acquire()
        except NoFreeSlot as e:
            raise SandboxUnavailable(str(e)) from e
        try:
            if config.cgroups.usable:
                try:
                    self._cgroup = config.cgroups.create(
                        f"judge-{self.slot.key}",
                        memory_bytes=limits.memory_bytes,
                        pids=limits.pids + BWRAP_TASKS,
                    )
                except OSError as e:
                    self.notes.append(
                        f"NO CGROUP for this run ({e}): whole-tree memory, pids "
                        "and CPU bounded only by per-process rlimits"
                    )
        except BaseException:
            self.slot.release()
            raise
        self.pass_fds = ()
        self._join = tuple(self._cgroup.join_paths) if self._cgroup else ()

    # -- starting -------------------------------------------------------------------------
    def command(self, python: str, workdir: str, script: str, args: list[str]) -> list[str]:
        # What the machine-wide /proc files show inside (a device node cannot stand in: /proc
        # is mounted nodev).
        empty = os.path.join(workdir, ".empty")
        with open(empty, "x"):
            pass
        os.chmod(empty, 0o444)
        if self.config.as_root:
            # Only the slot uid (and root) may read the submission on the host.
            os.chown(workdir, self.slot.uid, self.slot.gid)
            os.chmod(workdir, 0o500)
        r, w = os.pipe()
        try:
            os.write(w, self.config.filter_bytes)  # a few hundred bytes: fits the pipe buffer
        finally:
            os.close(w)
        self._seccomp_fd = r
        # bwrap reports the host pid of the sandbox's pid 1 here. Its monitor exits as soon as
        # it learns the exit status, without reaping that pid 1, which is then reparented to
        # us (the subreaper) and must be reaped by us.
        self._info_r, self._info_w = os.pipe()
        self.pass_fds = (r, self._info_w)
        layout = self.config.layout
        argv = [
            BWRAP,
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--clearenv",
            "--hostname",
            "sandbox",
            "--seccomp",
            str(r),
            "--info-fd",
            str(self._info_w),
        ]
        for source, dest in layout.binds:
            argv += ["--ro-bind", source, dest]
        for mask in layout.masks:
            argv += ["--tmpfs", mask, "--remount-ro", mask]
        argv += ["--proc", "/proc"]
        for path in global_proc_files():
            argv += ["--ro-bind", empty, path]
        argv += [
            "--dev",
            "/dev",
            "--size",
            str(self.limits.tmp_bytes),
            "--tmpfs",
            "/tmp",
            "--size",
            str(min(self.limits.tmp_bytes, SHM_BYTES)),
            "--tmpfs",
            "/dev/shm",
            "--ro-bind",
            workdir,
            "/box",
            "--chdir",
            "/box",
            # bwrap's own root and /dev are uncapped tmpfs: make them read-only (the /tmp and
            # /dev/shm mounts stay writable, device nodes still work).
            "--remount-ro",
            "/dev",
            "--remount-ro",
            "/",
            layout.python,
            "-I",
            "-S",
            "-B",
            f"/box/{script}",
            *args,
        ]
        return argv

    def environment(self) -> dict[str, str]:
        # bwrap's own environment: readable inside as /proc/1/environ. Nothing else.
        return {"PATH": "/usr/bin:/bin"}

    def preexec(self) -> None:
        """In the child between fork and exec (as root when the judge is root): join the
        cgroup, drop to the slot uid, then set rlimits (which bwrap inherits too)."""
        for path in self._join:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        if self.config.as_root:
            os.setgroups([])
            os.setresgid(self.slot.gid, self.slot.gid, self.slot.gid)
            os.setresuid(self.slot.uid, self.slot.uid, self.slot.uid)
        limits = self.limits
        cpu = math.ceil(limits.cpu_s) + 1
        setrlimit = resource.setrlimit
        setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        if self._cgroup is not None:
            address_space = limits.memory_bytes + max(limits.memory_bytes, MIN_AS_HEADROOM)
        else:
            address_space = limits.memory_bytes + BARE_AS_HEADROOM
        setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))
        setrlimit(resource.RLIMIT_CORE, (0, 0))
        setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
        if self.config.as_root:
            nproc = limits.pids + BWRAP_TASKS + NPROC_SLACK
            setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

    def started(self, popen: subprocess.Popen) -> None:
        self._pid = popen.pid
        self._close_seccomp()

    def _close_seccomp(self) -> None:
        if self._seccomp_fd >= 0:
            os.close(self._seccomp_fd)
            self._seccomp_fd = -1
        if self._info_w >= 0:
            os.close(self._info_w)
            self._info_w = -1

    def _read_info(self) -> None:
        """The sandbox init's host pid from bwrap's --info-fd (written before it runs)."""
        if self._info_r < 0:
            return
        try:
            os.set_blocking(self._info_r, False)
            data = os.read(self._info_r, 4096)
            pid = json.loads(data.decode()).get("child-pid") if data else None
            self._sandbox_init = pid if isinstance(pid, int) and pid > 0 else None
        except (OSError, ValueError, AttributeError):
            self._sandbox_init = None
        finally:
            os.close(self._info_r)
            self._info_r = -1

    def abort(self) -> None:
        self._close_seccomp()
        if self._info_r >= 0:
            os.close(self._info_r)
            self._info_r = -1
        self._release()

    # -- while running --------------------------------------------------------------------
    def cpu_seconds(self, pid: int) -> float | None:
        if self._cgroup is not None:
            return self._cgroup.cpu_seconds()
        if self.config.as_root:
            return self._uid_cpu_seconds()
        return None

    def _uid_cpu_seconds(self) -> float:
        """Degraded whole-tree CPU: every live process of the slot uid (a /proc scan)."""
        total = 0
        for pid in pids_of_uid(self.slot.uid):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
            except (OSError, IndexError, ValueError):
                continue
        return total / os.sysconf("SC_CLK_TCK")

    def memory_exceeded(self) -> bool:
        return self._cgroup is not None and self._cgroup.oom_kills() > 0

    # -- ending ---------------------------------------------------------------------------
    def kill(self, popen: subprocess.Popen) -> None:
        if popen.poll() is None:
            self._killed = True
        # Killing bwrap's outer process kills the sandbox's pid 1 (--die-with-parent), which
        # takes its whole pid namespace down; the cgroup kill does not wait for that.
        if self._cgroup is not None:
            self._cgroup.kill_all()
        if popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(popen.pid, signal.SIGKILL)
        if self._cgroup is None:
            self._kill_pid_namespace()

    def _kill_pid_namespace(self) -> None:
        """Without a cgroup: SIGKILL the sandbox's pid 1, which takes down every process of
        its pid namespace (and only those)."""
        self._read_info()
        init = self._sandbox_init
        # The pid is the sandbox init's until we reap it (bwrap's monitor never does: it is
        # reparented to us, the subreaper); after that it may be anyone's.
        if init is not None and self.config.subreaper and not self._init_reaped:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(init, signal.SIGKILL)

    def finish(self, popen: subprocess.Popen) -> Usage:
        if self._finished:
            return Usage()
        self._finished = True
        self.kill(popen)
        popen.wait()
        try:
            # An orphaned sandbox pid 1 (its bwrap monitor was killed first) is now our child.
            self._read_info()
            if self.config.subreaper:
                if self._sandbox_init is not None:
                    _reap([self._sandbox_init])
                    self._init_reaped = True
                elif self._killed:
                    _reap(_our_children(self.slot.uid if self.config.as_root else None))
            group = self._cgroup
            if group is not None:
                group.wait_empty()
                usage = Usage(
                    cpu_s=group.cpu_seconds() or 0.0,
                    peak_memory_bytes=group.peak_memory(),
                    oom_killed=group.oom_kills() > 0,
                )
                if not group.remove():
                    self.notes.append("the run's cgroup could not be removed")
            else:
                usage = super().finish(popen)
            if group is None and self.config.subreaper:
                _reap(_our_children(self.slot.uid if self.config.as_root else None))
        finally:
            self._release()
        return usage

    def _release(self) -> None:
        if self._cgroup is not None and not self._cgroup.removed:
            self._cgroup.remove()
        self.slot.release()


# ---------------------------------------------------------------------------------------------


def _check_bwrap(config: BwrapConfig) -> None:
    """One trivial sandboxed run, so a machine where bwrap cannot work (no user namespaces,
    a container's seccomp/AppArmor profile, an interpreter the slot uid cannot read) is
    refused with bwrap's own message instead of failing every submission."""
    from judge.sandbox import RunLimits

    limits = RunLimits(cpu_s=5, wall_s=10, memory_bytes=256 << 20)
    jail = BwrapJail(limits, config)
    box = locked_dir(RUN_DIR_PREFIX)
    workdir = box.path
    try:
        with open(os.path.join(workdir, "check.py"), "w") as f:
            f.write("print('ok')\n")
        argv = jail.command(config.python, workdir, "check.py", [])
        try:
            proc = subprocess.run(
                argv,
                capture_output=True,
                timeout=30,
                env=jail.environment(),
                pass_fds=jail.pass_fds,
                preexec_fn=jail.preexec,
                cwd="/",
                stdin=subprocess.DEVNULL,
            )
        finally:
            jail._read_info()
            if config.subreaper and jail._sandbox_init is not None:
                _reap([jail._sandbox_init])
            jail.abort()
        if proc.returncode != 0 or proc.stdout.strip() != b"ok":
            raise SandboxUnavailable(
                "bubblewrap is installed but cannot run a sandbox here (exit "
                f"{proc.returncode}): {proc.stderr.decode(errors='replace').strip()[:500]}. "
                "It needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1, "
                "user.max_user_namespaces > 0); in Docker run the worker with "
                "security_opt [seccomp=unconfined, apparmor=unconfined]"
            )
    finally:
        box.remove()


@lru_cache(maxsize=8)
def _bwrap_config(config: SandboxConfig, python: str, mtime: float) -> BwrapConfig:
    notes: list[str] = []
    try:
        filter_bytes = seccomp.build_filter()
    except seccomp.UnsupportedArch as e:
        raise SandboxUnavailable(str(e)) from e
    layout = layout_for(python, config.layout_cache)
    as_root = os.geteuid() == 0
    slots = SlotPool.for_config(config)
    if not as_root:
        notes.append(
            f"judge not running as root: submissions run as this user (uid {os.getuid()}), "
            "not a per-slot uid, and RLIMIT_NPROC is not applied (it would count all of this "
            "user's processes)"
        )
    cgroups = CgroupManager.detect(config.cgroup_parent)
    notes += cgroups.notes
    if not as_root and not cgroups.usable:
        notes.append(
            "NO PROCESS LIMIT: neither a pids cgroup nor RLIMIT_NPROC applies, so a fork bomb "
            "is stopped only by the wall, CPU and memory limits (it stays inside the sandbox's "
            "pid namespace and is killed with it)"
        )
    subreaper = _set_child_subreaper()
    if not subreaper:
        notes.append(
            "could not become a child subreaper: sandbox processes orphaned by a kill "
            "are reaped by init, not by the judge"
        )
    bwrap = BwrapConfig(python, layout, filter_bytes, slots, cgroups, as_root, subreaper, notes)
    _check_bwrap(bwrap)
    if config.shared_by_students:
        _warm_page_cache(layout)
    return bwrap


def _warm_page_cache(layout: Layout) -> None:
    """Read every file the sandbox can see once, so its pages are in the page cache before any
    submission runs. A page a run reads first would be faster for every later run: a bit one
    run (holding hidden boards) could leave for another. Warm, no run can change that (the
    calls that evict pages are denied by the seccomp filter); pages the kernel drops under
    memory pressure are the residue."""
    for source, _ in layout.binds:
        paths = [source] if os.path.isfile(source) else []
        for root, _dirs, files in os.walk(source):
            paths += [os.path.join(root, name) for name in files]
        for path in paths:
            with contextlib.suppress(OSError), open(path, "rb") as f:
                while f.read(1 << 20):
                    pass


def make_jail(config: SandboxConfig, python: str):
    notes: list[str] = []
    if config.mode == "none":
        notes.append(
            "UNSANDBOXED: JUDGE_SANDBOX=none, the submission ran unconfined "
            "(local development only)"
        )
        return (lambda limits: Jail(limits, python, notes)), notes
    real = os.path.realpath(python)
    try:
        mtime = os.stat(real).st_mtime
    except OSError as e:
        raise SandboxUnavailable(f"sandbox interpreter {python} not found: {e}") from e
    bwrap = _bwrap_config(config, real, mtime)
    notes += bwrap.notes
    return (lambda limits: BwrapJail(limits, bwrap)), notes

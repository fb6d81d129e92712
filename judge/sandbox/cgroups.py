"""Per-run control groups (v1 or v2): whole-tree memory, process count and CPU.

`CgroupManager.detect()` finds the hierarchy this process may create children in and says
what is missing. `manager.create(name, ...)` makes one run's group; the sandboxed process joins
it itself between fork and exec (`join_paths`, written from `preexec_fn`), so every process it
ever starts is accounted and bounded:

- memory: limit (v1 `memory.limit_in_bytes` + `memory.memsw.limit_in_bytes`, v2 `memory.max`
  + `memory.swap.max` 0), peak, OOM kills (v1 `memory.oom_control` oom_kill, v2
  `memory.events` oom_kill);
- pids: `pids.max`;
- cpu: usage of the whole tree (v1 `cpuacct.usage`, v2 `cpu.stat` usage_usec), and the tree
  capped at one CPU with a CFS quota, so it cannot beat the CPU limit by using every core; its
  threads (v1 `tasks`, v2 `cgroup.threads`) and the time the quota held it back (`cpu.stat`
  throttled_time in v1, throttled_usec in v2), for how long it waited for a CPU
  (processes.WaitClock).

Cheap to poll: a read of one small file each. Nothing here is started at import time.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from dataclasses import dataclass, field

_PERIOD_US = 100_000


def read_file(path: str) -> str | None:
    """A small kernel file's text (a cgroup's, a sysctl's), or None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 65536).decode()
    except OSError:
        return None
    finally:
        os.close(fd)


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _keyed(text: str | None, key: str) -> int | None:
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return None


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(fstype, mount root, mount point, super options) of every cgroup mount we can see."""
    found = []
    text = read_file("/proc/self/mountinfo") or ""
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        lfields, rfields = left.split(), right.split()
        if len(rfields) < 3 or rfields[0] not in ("cgroup", "cgroup2"):
            continue
        root, point = lfields[3], lfields[4].replace("\\040", " ")
        found.append((rfields[0], root, point, set(rfields[2].split(","))))
    return found


def _own_cgroups() -> dict[str, str]:
    """Controller (or "" for the v2 unified hierarchy) -> our path in it."""
    own: dict[str, str] = {}
    for line in (read_file("/proc/self/cgroup") or "").splitlines():
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            own[c] = path
    return own


def _under(mount_root: str, point: str, path: str) -> str | None:
    """The directory of cgroup `path` given a mount of `mount_root` at `point`."""
    if mount_root == "/":
        rel = path
    elif path == mount_root or path.startswith(mount_root.rstrip("/") + "/"):
        rel = path[len(mount_root) :]
    else:
        return None
    return os.path.normpath(point + "/" + rel.lstrip("/"))


@dataclass
class RunCgroup:
    """One run's group: a directory per controller (v1) or one directory (v2)."""

    version: int
    dirs: dict[str, str]  # controller -> directory ("memory", "pids", "cpu", "cpuacct")
    join_paths: list[str]  # cgroup.procs files the child writes "0" to
    _oom_before: int = 0
    removed: bool = field(default=False)
    _cpu_fd: int = -1  # cpu.stat kept open: read after every test, an open() each costs more

    def _cpu_stat(self, path: str) -> str | None:
        try:
            if self._cpu_fd < 0:
                self._cpu_fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(self._cpu_fd, 65536, 0).decode()
        except OSError:
            return None

    def _close(self) -> None:
        if self._cpu_fd >= 0:
            os.close(self._cpu_fd)
            self._cpu_fd = -1

    def _dir(self, controller: str) -> str | None:
        return self.dirs.get(controller)

    # -- accounting (polled while the run is going: keep it to one small read) ------------
    def cpu_seconds(self) -> float | None:
        if self.version == 2:
            d = self._dir("cpu")
            usec = _keyed(self._cpu_stat(d + "/cpu.stat"), "usage_usec") if d else None
            return None if usec is None else usec / 1e6
        d = self._dir("cpuacct")
        text = self._cpu_stat(d + "/cpuacct.usage") if d else None
        return None if not text else int(text) / 1e9

    def threads(self) -> list[int] | None:
        """The host ids of every thread in the group, or None when they cannot be listed."""
        d = self._dir("cpu") or self._dir("cpuacct") or self._dir("pids")
        text = read_file(d + ("/cgroup.threads" if self.version == 2 else "/tasks")) if d else None
        try:
            return None if text is None else [int(tid) for tid in text.split()]
        except ValueError:
            return None

    def throttled_seconds(self) -> float | None:
        """How long the one-CPU quota held the group back (summed over CPUs), or None when
        it cannot be read. Without the cpu controller there is no quota, so none."""
        d = self._dir("cpu")
        if d is None:
            return 0.0
        if self.version == 2:
            usec = _keyed(self._cpu_stat(d + "/cpu.stat"), "throttled_usec")
            return None if usec is None else usec / 1e6
        ns = _keyed(read_file(d + "/cpu.stat"), "throttled_time")
        return None if ns is None else ns / 1e9

    def oom_kills(self) -> int:
        d = self._dir("memory")
        if d is None:
            return 0
        if self.version == 2:
            n = _keyed(read_file(d + "/memory.events"), "oom_kill")
        else:
            n = _keyed(read_file(d + "/memory.oom_control"), "oom_kill")
        return n or 0

    def peak_memory(self) -> int:
        d = self._dir("memory")
        if d is None:
            return 0
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        text = read_file(f"{d}/{name}")
        try:
            return int(text) if text else 0
        except ValueError:
            return 0

    # -- ending ---------------------------------------------------------------------------
    def procs(self) -> list[int]:
        pids: set[int] = set()
        for d in set(self.dirs.values()):
            for tok in (read_file(d + "/cgroup.procs") or "").split():
                pids.add(int(tok))
        return sorted(pids)

    def kill_all(self) -> None:
        """SIGKILL every process in the group, repeatedly, until none is listed."""
        if self.version == 2:
            d = next(iter(self.dirs.values()), None)
            if d and os.path.exists(d + "/cgroup.kill"):
                with contextlib.suppress(OSError):
                    _write(d + "/cgroup.kill", "1")
        for _ in range(200):
            pids = self.procs()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def wait_empty(self, timeout: float = 5.0) -> bool:
        """Kill until no process is listed (SIGKILLed processes take a moment to go)."""
        deadline = time.monotonic() + timeout
        while self.procs():
            if time.monotonic() > deadline:
                return False
            self.kill_all()
            time.sleep(0.001)
        return True

    def remove(self, timeout: float = 5.0) -> bool:
        """Kill what is left and remove the directories. False if some could not be removed."""
        if self.removed:
            return True
        self._close()
        deadline = time.monotonic() + timeout
        ok = True
        for d in sorted(set(self.dirs.values()), key=len, reverse=True):
            while True:
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError as e:
                    if e.errno != errno.EBUSY or time.monotonic() > deadline:
                        ok = False
                        break
                    self.kill_all()
                    time.sleep(0.002)
        self.removed = ok
        return ok


class CgroupManager:
    """Where this process can create per-run groups, and what it can bound there."""

    def __init__(self, version: int, parents: dict[str, str], notes: list[str]) -> None:
        self.version = version  # 0 when unusable
        self.parents = parents  # controller -> parent directory for new groups
        self.notes = notes

    @property
    def usable(self) -> bool:
        return self.version != 0

    @classmethod
    def detect(cls, v2_parent: str | None = None) -> CgroupManager:
        notes: list[str] = []
        mounts = _mounts()
        own = _own_cgroups()
        v2 = cls._detect_v2(mounts, own, v2_parent)
        if v2 is not None and {"memory", "pids", "cpu"} <= v2.keys():
            return cls(2, v2, notes)
        v1 = cls._detect_v1(mounts, own)
        if {"memory", "pids"} <= v1.keys() and ("cpuacct" in v1 or "cpu" in v1):
            missing = {"cpu", "cpuacct"} - v1.keys()
            if missing:
                notes.append(
                    f"cgroup v1 controller(s) {', '.join(sorted(missing))} not "
                    "available: whole-tree CPU is measured but not capped at one CPU"
                )
            return cls(1, v1, notes)
        if v2 is not None and {"memory", "pids"} <= v2.keys():
            notes.append(
                "cgroup v2 'cpu' controller not delegated: whole-tree CPU time is "
                "not bounded by a cgroup (per-process RLIMIT_CPU and the wall limit "
                "still apply)"
            )
            return cls(2, v2, notes)
        notes.append(
            "NO CGROUPS: no writable cgroup v1 (memory, pids, cpuacct) or delegated cgroup v2 "
            "(memory, pids, cpu) hierarchy, so memory and CPU are bounded only per process "
            "(RLIMIT_AS, RLIMIT_CPU) plus the wall limit, not for the whole process tree, and "
            "the process count only by RLIMIT_NPROC (set when the judge runs as root); "
            "JUDGE_CGROUP_PARENT may name a delegated cgroup v2 directory"
        )
        return cls(0, {}, notes)

    @staticmethod
    def _writable_dir(d: str) -> bool:
        return os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK)

    @classmethod
    def _detect_v1(cls, mounts, own) -> dict[str, str]:
        parents: dict[str, str] = {}
        for fstype, root, point, opts in mounts:
            if fstype != "cgroup":
                continue
            for c in ("memory", "pids", "cpu", "cpuacct"):
                if c in opts and c in own and c not in parents:
                    d = _under(root, point, own[c])
                    if d and cls._writable_dir(d):
                        parents[c] = d
        return parents

    @classmethod
    def _detect_v2(cls, mounts, own, v2_parent) -> dict[str, str] | None:
        if v2_parent:
            d = v2_parent
        else:
            if "" not in own:
                return None
            d = None
            for fstype, root, point, _ in mounts:
                if fstype == "cgroup2":
                    d = _under(root, point, own[""])
                    if d:
                        break
        if not d or not cls._writable_dir(d):
            return None
        available = set((read_file(d + "/cgroup.controllers") or "").split())
        wanted = available & {"memory", "pids", "cpu"}
        if not wanted:
            return None
        enabled = set((read_file(d + "/cgroup.subtree_control") or "").split())
        for c in sorted(wanted - enabled):
            # Fails (EBUSY) when d has processes of its own and is not the root.
            with contextlib.suppress(OSError):
                _write(d + "/cgroup.subtree_control", f"+{c}")
        enabled = set((read_file(d + "/cgroup.subtree_control") or "").split())
        return {c: d for c in wanted & enabled}

    def create(self, name: str, *, memory_bytes: int, pids: int, one_cpu: bool = True) -> RunCgroup:
        """A fresh group `name` (a leftover of the same name is killed and removed first)."""
        if self.version == 2:
            d = os.path.join(next(iter(self.parents.values())), name)
            dirs = {c: d for c in self.parents}
        else:
            dirs = {c: os.path.join(p, name) for c, p in self.parents.items()}
        group = RunCgroup(self.version, dirs, [])
        for d in set(dirs.values()):
            if os.path.isdir(d):
                RunCgroup(self.version, {"x": d}, []).remove()
            os.mkdir(d)
        try:
            if self.version == 2:
                self._limit_v2(dirs, memory_bytes, pids, one_cpu)
            else:
                self._limit_v1(dirs, memory_bytes, pids, one_cpu)
        except BaseException:
            group.remove()
            raise
        group.join_paths = [d + "/cgroup.procs" for d in sorted(set(dirs.values()))]
        group._oom_before = group.oom_kills()
        return group

    @staticmethod
    def _limit_v1(dirs, memory_bytes, pids, one_cpu) -> None:
        m = dirs["memory"]
        _write(m + "/memory.limit_in_bytes", str(memory_bytes))
        if os.path.exists(m + "/memory.memsw.limit_in_bytes"):
            _write(m + "/memory.memsw.limit_in_bytes", str(memory_bytes))
        with contextlib.suppress(OSError):
            _write(m + "/memory.swappiness", "0")
        _write(dirs["pids"] + "/pids.max", str(pids))
        if one_cpu and "cpu" in dirs:
            _write(dirs["cpu"] + "/cpu.cfs_period_us", str(_PERIOD_US))
            _write(dirs["cpu"] + "/cpu.cfs_quota_us", str(_PERIOD_US))

    @staticmethod
    def _limit_v2(dirs, memory_bytes, pids, one_cpu) -> None:
        d = dirs["memory"]
        _write(d + "/memory.max", str(memory_bytes))
        if os.path.exists(d + "/memory.swap.max"):
            _write(d + "/memory.swap.max", "0")
        _write(d + "/pids.max", str(pids))
        if one_cpu and "cpu" in dirs:
            _write(d + "/cpu.max", f"{_PERIOD_US} {_PERIOD_US}")

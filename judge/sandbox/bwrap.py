"""The bubblewrap jail: its command line, its slot, cgroup and rlimits, and how it ends.

`bwrap_config` works out once per interpreter what every run shares (the layout, the seccomp
filter, the slot pool, the cgroup manager) and starts the check that bwrap can run here at all
(no run starts before it passed, BwrapConfig.ready, but for Sandbox.start_early's, which is
not used before it passed).
"""

from __future__ import annotations

import concurrent.futures.thread  # noqa: F401 (see StartupCheck: its fork handlers)
import contextlib
import hashlib
import json
import logging  # noqa: F401 (see StartupCheck: its fork handlers)
import math
import os
import resource
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from functools import lru_cache

from judge.sandbox.cgroups import CgroupManager, RunCgroup, read_file
from judge.sandbox.command import Command
from judge.sandbox.config import SandboxConfig
from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.layout import (
    Layout,
    dev_arguments,
    layout_for,
    proc_arguments,
    warm_page_cache,
)
from judge.sandbox.limits import RunLimits, Usage
from judge.sandbox.processes import (
    Jail,
    WaitClock,
    our_children,
    pids_of_uid,
    reap,
    set_child_subreaper,
)
from judge.sandbox.seccomp import UnsupportedArch, build_filter
from judge.sandbox.slots import NoFreeSlot, Slot, SlotPool
from judge.sandbox.workdirs import RUN_DIR_PREFIX, locked_dir

BWRAP = "/usr/bin/bwrap"
# Processes bwrap itself keeps in the tree: the outer monitor and the sandbox's pid 1.
BWRAP_TASKS = 2
# RLIMIT_NPROC is a backstop above pids.max (the exact whole-tree bound), not the bound: on
# Linux 6.x the uid's process count lags seconds behind a finished sandbox (user-namespace
# ucounts), and an exact NPROC made back-to-back runs on one uid fail with EAGAIN (measured:
# NPROC 34 failed 42 of 60 consecutive runs, NPROC 200 none).
NPROC_SLACK = 64
SHM_BYTES = 1 << 20  # /dev/shm (POSIX semaphores of multiprocessing need a few bytes)
MIN_AS_HEADROOM = 256 << 20  # RLIMIT_AS above the cgroup limit: a backstop, not the limit
BARE_AS_HEADROOM = 64 << 20  # RLIMIT_AS above the limit when it is the only memory bound
JVM_BARE_AS_HEADROOM = 4 << 30  # a JVM's reservations (code cache, class space) over its heap


@dataclass
class BwrapConfig:
    python: str
    layout: Layout
    filter_bytes: bytes
    hidden_filter_bytes: bytes  # for runs holding hidden input (seccomp.HIDDEN_DENIED)
    slots: SlotPool
    cgroups: CgroupManager
    as_root: bool
    subreaper: bool
    notes: list[str]
    warm: bool = True  # close the page-cache channel (SandboxConfig.shared_by_students)
    # The start-up check bwrap_config began, until it passed (then None).
    startup: StartupCheck | None = field(default=None, compare=False, repr=False)

    def ready(self) -> None:
        """Wait for the start-up check (StartupCheck); raise SandboxUnavailable while it
        failed. Every jail waits for it: no run starts before the check passed."""
        startup = self.startup
        if startup is None:
            return
        try:
            startup.wait()
        except BaseException:
            bwrap_config.cache_clear()  # as when the check ran inside: the next one checks again
            raise
        self.startup = None


class BwrapJail(Jail):
    """bubblewrap: own namespaces (no network at all), read-only Python, private /tmp."""

    def __init__(
        self, limits: RunLimits, config: BwrapConfig, hidden: bool = False, *, checked: bool = True
    ) -> None:
        if checked:  # else its run waits for the check before it is used (Sandbox.start_early)
            config.ready()
        super().__init__(limits, config.python, list(config.notes))
        self.config = config
        self.hidden = hidden
        self._seccomp_fd = -1
        self._info_r = self._info_w = -1
        self._sandbox_init: int | None = None
        self._init_reaped = False
        self._cgroup: RunCgroup | None = None
        self._wait_clock = WaitClock()
        self._killed = False
        self._finished = False
        self.ended_clean = False
        if not limits.address_space and not config.cgroups.usable:
            raise SandboxUnavailable(
                "a run without RLIMIT_AS (a JVM) needs a cgroup to bound its memory, and "
                "this machine gives the judge none (run it as root or delegate a cgroup)"
            )
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
            if self._cgroup is None and not limits.address_space:
                raise SandboxUnavailable(
                    "a run without RLIMIT_AS (a JVM) needs a cgroup to bound its memory, "
                    "and this run's could not be created"
                )
        except BaseException:
            if self._cgroup is not None:
                self._cgroup.remove()
            self.slot.release()
            raise
        self.pass_fds = ()
        self._join = tuple(self._cgroup.join_paths) if self._cgroup else ()

    # -- starting -------------------------------------------------------------------------
    def command(self, command: Command, workdir: str) -> list[str]:
        """bwrap's command line for `command` (its argv already resolved) in `workdir`."""
        # What the masked /proc files and directories show inside (a device node cannot stand
        # in: /proc is mounted nodev).
        empty = os.path.join(workdir, ".empty")
        with open(empty, "x"):
            pass
        os.chmod(empty, 0o444)
        empty_dir = os.path.join(workdir, ".empty-dir")
        os.mkdir(empty_dir, 0o555)
        out = os.path.join(workdir, "out")  # made by the sandbox when the command writes
        for name, source in command.trees.items():
            os.mkdir(os.path.join(workdir, name), 0o555)  # a mount point
            if self.config.warm:
                warm_tree(source)
        if self.config.as_root:
            # Only the slot uid (and root) may read the submission on the host, and write the
            # compiler's output.
            os.chown(workdir, self.slot.uid, self.slot.gid)
            os.chmod(workdir, 0o500)
            if command.writable is not None:
                os.chown(out, self.slot.uid, self.slot.gid)
        r, w = os.pipe()
        try:
            program = self.config.hidden_filter_bytes if self.hidden else self.config.filter_bytes
            os.write(w, program)  # a few hundred bytes: fits the pipe buffer
        finally:
            os.close(w)
        self._seccomp_fd = r
        # bwrap reports the host pid of the sandbox's pid 1 here. Its monitor exits as soon as
        # it learns the exit status, without reaping that pid 1, which is then reparented to
        # us (the subreaper) and must be reaped by us.
        self._info_r, self._info_w = os.pipe()
        self.pass_fds = (r, self._info_w)
        layout = command.layout or self.config.layout
        if layout.warm and self.config.warm:
            warm_once(layout)
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
        for name, value in sorted(command.env.items()):
            argv += ["--setenv", name, value]
        for target, link in layout.symlinks:
            argv += ["--symlink", target, link]
        for source, dest in layout.binds:
            argv += ["--ro-bind", source, dest]
        for mask in layout.masks:
            argv += ["--tmpfs", mask, "--remount-ro", mask]
        argv += proc_arguments(empty, empty_dir)
        argv += dev_arguments()
        argv += [
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
        ]
        for name, source in sorted(command.trees.items()):
            argv += ["--ro-bind", source, f"/box/{name}"]
        if command.writable is not None:
            argv += ["--bind", out, "/box/out"]
        argv += [
            "--chdir",
            "/box",
            # bwrap's own root and /dev are uncapped tmpfs: make them read-only (the /tmp and
            # /dev/shm mounts stay writable, device nodes still work).
            "--remount-ro",
            "/dev",
            "--remount-ro",
            "/",
            *command.argv,
        ]
        return argv

    def cwd(self, workdir: str) -> str:
        return "/"  # bwrap's own; the program's is /box (--chdir)

    def environment(self, command: Command) -> dict[str, str]:
        # bwrap's own environment: readable inside as /proc/1/environ. Nothing else (the
        # command's own is set by --setenv).
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
        if limits.address_space:
            if self._cgroup is not None:
                address_space = limits.memory_bytes + max(limits.memory_bytes, MIN_AS_HEADROOM)
            else:
                address_space = limits.memory_bytes + BARE_AS_HEADROOM
            setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        elif self._cgroup is None:
            # A JVM without a cgroup: only a loose backstop (its -Xmx bounds the heap).
            address_space = limits.memory_bytes * 4 + JVM_BARE_AS_HEADROOM
            setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        setrlimit(resource.RLIMIT_NOFILE, (limits.nofile, limits.nofile))
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

    def cpu_wait_seconds(self, pid: int) -> float | None:
        """Waiting for a CPU (processes.WaitClock) needs the run's threads: its cgroup's."""
        group = self._cgroup
        tids = None if group is None or group.removed else group.threads()
        if group is None or tids is None:
            return None
        self._wait_clock.note(tids)
        cpu, throttled = group.cpu_seconds(), group.throttled_seconds()
        if cpu is None or throttled is None:
            return None
        return self._wait_clock.waited(cpu, throttled)

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
                    reap([self._sandbox_init])
                    self._init_reaped = True
                elif self._killed:
                    reap(our_children(self.slot.uid if self.config.as_root else None))
            group = self._cgroup
            if group is not None:
                self.ended_clean = group.wait_empty()
                usage = Usage(
                    cpu_s=group.cpu_seconds() or 0.0,
                    peak_memory_bytes=group.peak_memory(),
                    oom_killed=group.oom_kills() > 0,
                )
                if not group.remove():
                    self.notes.append("the run's cgroup could not be removed")
            else:
                usage = super().finish(popen)
                # Its pid namespace dies with its init (killed above): SIGKILLed, nothing of
                # it returns to user space to write again.
                self.ended_clean = True
            if group is None and self.config.subreaper:
                reap(our_children(self.slot.uid if self.config.as_root else None))
        finally:
            self._release()
        return usage

    def _release(self) -> None:
        if self._cgroup is not None and not self._cgroup.removed:
            self._cgroup.remove()
        self.slot.release()


class StartupCheck:
    """One trivial sandboxed run, so a machine where bwrap cannot work (no user namespaces,
    a container's seccomp/AppArmor profile, an interpreter the slot uid cannot read) is
    refused with bwrap's own message instead of failing every submission. Started here and
    ended by `wait()`, so the caller can do other work meanwhile (a command's imports):
    `wait()` raises SandboxUnavailable (or the timeout), and again at every later call.

    It runs on a thread of its own: the child joins the run's cgroup before it execs, and on
    cgroup v1 that waits for an RCU grace period (10-25 ms here) during which Popen would hold
    the caller. The thread lives until the check has ended: bwrap's --die-with-parent kills
    the sandbox when the thread that started it ends. The modules that register fork handlers
    which release a lock in the parent (logging, concurrent.futures) are imported with this
    one: imported by the caller between the fork's "before" and "after" handlers, their lock
    would be released unheld ("Exception ignored ... release unlocked lock" on stderr)."""

    def __init__(self, config: BwrapConfig, passed: str | None = None) -> None:
        """`passed`: a file to write once the check passed (checked_file)."""
        self._lock = threading.Lock()
        self._failure: BaseException | None = None
        self._passed = passed
        limits = RunLimits(cpu_s=5, wall_s=10, memory_bytes=256 << 20)
        self._jail = jail = BwrapJail(limits, config)
        try:
            self._box = locked_dir(RUN_DIR_PREFIX)
        except BaseException:
            jail.abort()
            raise
        try:
            workdir = self._box.path
            with open(os.path.join(workdir, "check.py"), "w") as f:
                f.write("print('ok')\n")
            check = Command(argv=(config.python, "-I", "-S", "-B", "/box/check.py"))
            self._running = threading.Thread(
                target=self._run, args=(check, workdir), name="sandbox-check", daemon=True
            )
            self._running.start()
        except BaseException:
            jail.abort()
            self._box.remove()
            raise

    def _run(self, check: Command, workdir: str) -> None:
        jail = self._jail
        try:
            popen = subprocess.Popen(
                jail.command(check, workdir),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=jail.environment(check),
                pass_fds=jail.pass_fds,
                preexec_fn=jail.preexec,
                cwd="/",
                stdin=subprocess.DEVNULL,
            )
        except BaseException as e:  # raised by wait(), in the caller's thread
            jail.abort()
            self._box.remove()
            self._failure = e
            return
        try:
            self._end(popen)
        except BaseException as e:
            self._failure = e
            return
        if self._passed is not None:
            keep_passed(self._passed)

    def wait(self) -> None:
        with self._lock:
            self._running.join()
            if self._failure is not None:
                raise self._failure

    def _end(self, popen: subprocess.Popen[bytes]) -> None:
        config, jail = self._jail.config, self._jail
        try:
            try:
                with popen:  # as subprocess.run: on a timeout, killed and waited for
                    try:
                        stdout, stderr = popen.communicate(timeout=30)
                    except subprocess.TimeoutExpired:
                        popen.kill()
                        popen.wait()
                        raise
            finally:
                jail._read_info()
                if config.subreaper and jail._sandbox_init is not None:
                    reap([jail._sandbox_init])
                jail.abort()
            if popen.returncode != 0 or stdout.strip() != b"ok":
                raise SandboxUnavailable(
                    "bubblewrap is installed but cannot run a sandbox here (exit "
                    f"{popen.returncode}): {stderr.decode(errors='replace').strip()[:500]}. "
                    "It needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1, "
                    "user.max_user_namespaces > 0); in Docker run the worker with "
                    "security_opt [seccomp=unconfined, apparmor=unconfined]"
                )
        finally:
            self._box.remove()


# The start-up check's own version: a change to what it proves checks every machine again.
CHECK_VERSION = 1


def checked_file(folder: str | None, bwrap: BwrapConfig) -> str | None:
    """Where a command line keeps that the start-up check passed (its layout cache folder,
    the user's own; None without one: a worker checks once per process anyway), named by all
    that decides whether bwrap can run this sandbox: the boot, bwrap's and the interpreter's
    files, the layout, the seccomp filters, the uid and slots, the cgroups, the kernel's
    limits on user namespaces and AppArmor's policy revision. A command then skips the check
    (a sandboxed run: 30 ms of CPU of a 0.15 s grading) until one of them changes. The cost: a
    machine changed in a way none of these shows fails its runs (RE) instead of being
    refused, until its user empties the folder (docs/operations.md)."""
    if folder is None:
        return None
    try:
        parts: list[object] = [CHECK_VERSION, read_file("/proc/sys/kernel/random/boot_id")]
        for path in (BWRAP, bwrap.python):
            st = os.stat(os.path.realpath(path))
            parts += [os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns]
    except OSError:
        return None
    for sysctl in (
        "user/max_user_namespaces",
        "kernel/unprivileged_userns_clone",
        "kernel/apparmor_restrict_unprivileged_userns",
    ):
        parts.append(read_file(f"/proc/sys/{sysctl}"))
    parts.append(read_file("/sys/kernel/security/apparmor/revision"))  # moves at every policy load
    slots, cgroups = bwrap.slots, bwrap.cgroups
    parts += [bwrap.layout, bwrap.filter_bytes, bwrap.hidden_filter_bytes, os.geteuid()]
    parts += [bwrap.as_root, slots.directory, slots.count, slots.uid_base]
    parts += [cgroups.usable, cgroups.version, sorted(cgroups.parents.items())]
    key = hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
    return os.path.join(folder, f"sandbox-checked-{key}")


def keep_passed(path: str) -> None:
    """Write the file checked_file named (the folder made as the layout cache makes it),
    and take away those of other boots and machines' states."""
    folder, name = os.path.split(path)
    with contextlib.suppress(OSError):
        os.makedirs(folder, mode=0o700, exist_ok=True)
        for other in os.listdir(folder):
            if other.startswith("sandbox-checked-") and other != name:
                os.unlink(os.path.join(folder, other))
        with open(path, "w"):
            pass


def warm_tree(path: str) -> None:
    """Read a tree (a compiled artifact: a few MB) before a run sees it, as the layouts are:
    a cached artifact is cold after a restart, and a run holding hidden boards could fault in
    chosen pages of it for a later run of the same artifact to time."""
    warm_page_cache(Layout(binds=((path, path),), masks=()))


@lru_cache(maxsize=16)
def warm_once(layout: Layout) -> None:
    """warm_page_cache, once per process and layout (a language's, at its first run)."""
    warm_page_cache(layout)


@lru_cache(maxsize=8)
def bwrap_config(config: SandboxConfig, python: str, mtime: float) -> BwrapConfig:
    notes: list[str] = []
    try:
        filter_bytes = build_filter()
        hidden_filter_bytes = build_filter(hidden=True)
    except UnsupportedArch as e:
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
    subreaper = set_child_subreaper()
    if not subreaper:
        notes.append(
            "could not become a child subreaper: sandbox processes orphaned by a kill "
            "are reaped by init, not by the judge"
        )
    bwrap = BwrapConfig(
        python,
        layout,
        filter_bytes,
        hidden_filter_bytes,
        slots,
        cgroups,
        as_root,
        subreaper,
        notes,
        warm=config.shared_by_students,
    )
    if config.shared_by_students:
        warm_once(layout)  # before the check's thread, whose command would warm it too
    # Started, not waited for: make_sandbox waits unless its caller waits later (a command
    # that imports the grading meanwhile), and every jail waits (BwrapConfig.ready).
    passed = checked_file(config.layout_cache, bwrap)
    if passed is None or not os.path.exists(passed):
        bwrap.startup = StartupCheck(bwrap, passed)
    return bwrap

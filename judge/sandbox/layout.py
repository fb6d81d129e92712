"""What the sandbox sees: the interpreter, its stdlib and the shared libraries they load
(read-only, site-packages masked), and of /proc its own processes and an allow list.

Working the layout out runs the interpreter and `ldd` on every extension module, so it is
kept once per process and, for short-lived commands, in a cache directory their caller names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from judge.sandbox.errors import SandboxUnavailable

# /proc shows the whole machine beside the sandbox's own processes: counters (processes
# forked, memory, load, idle time, interrupts, open files, dentries, locks, ptys, AIO
# contexts, pressure, entropy) that a run holding hidden boards could move and a concurrent
# or later run read back. So the sandbox's /proc is an allow list: its own processes (the
# numbered directories of its pid namespace), the entries of PROC_SHOWN and, of /proc/sys,
# the files of PROC_SYS_SHOWN. Everything else at its top is masked, a file by an empty
# read-only file, a directory by an empty read-only directory, and /proc/sys by an empty
# read-only tmpfs with those files bound back; an entry a kernel adds is masked too.
#
# What the runtimes read there (strace of python3, g++ with its tools, javac, java and kotlinc
# on small programs; then the language tests with all else masked): their own /proc/self;
# javac /proc/net (a link into /proc/self, the sandbox's empty network namespace); the JVM
# /proc/cpuinfo, /proc/meminfo, /proc/stat and /proc/cgroups, and it runs as well without
# them (processors from sched_getaffinity or -XX:ActiveProcessorCount, the heap from -Xmx);
# glibc's malloc /proc/sys/vm/overcommit_memory (a setting only the host's root changes).
#
# Shown besides what they need, each mount costing start time (bwrap rereads the mount
# table for every bind): files that nothing a sandbox can do changes (the kernel's version,
# command line, configuration, device, filesystem and I/O-region tables, with addresses
# zeroed for a non-root reader), and what is per namespace. Entries only root can read
# (kmsg, slabinfo, timer_list, ...) are not masked: the sandbox's uid is never root.
PROC_NEEDED = ("self", "thread-self", "net", "mounts")
PROC_CONSTANT = (
    *("cmdline", "config.gz", "consoles", "devices", "dma", "execdomains", "filesystems"),
    *("iomem", "ioports", "kallsyms", "misc", "mtrr", "partitions", "version"),
    *("acpi", "bus", "tty"),  # directories: firmware, PCI and input devices, tty drivers
    "sysvipc",  # the sandbox's own IPC namespace
)
PROC_SHOWN = frozenset({*PROC_NEEDED, *PROC_CONSTANT, "sys"})  # /proc/sys: PROC_SYS_SHOWN
PROC_SYS_SHOWN = ("vm/overcommit_memory",)


@dataclass(frozen=True)
class ProcMasks:
    files: tuple[str, ...]  # at the top of /proc, covered by an empty file
    dirs: tuple[str, ...]  # at the top of /proc, covered by an empty directory
    sys_shown: tuple[str, ...]  # /proc/sys/<name> bound back over its empty tmpfs


@lru_cache(maxsize=1)
def proc_masks() -> ProcMasks:
    """What to mask of this kernel's /proc (a bind needs its target to exist), read once per
    process from our own /proc, whose top is the sandbox's but for the processes. A symlink
    (self, mounts, net) leads into the reader's own /proc/self."""
    files: list[str] = []
    dirs: list[str] = []
    with os.scandir("/proc") as entries:
        for entry in entries:
            name = entry.name
            if name.isdigit() or name in PROC_SHOWN or entry.is_symlink():
                continue
            st = entry.stat(follow_symlinks=False)
            is_dir = stat.S_ISDIR(st.st_mode)
            if st.st_uid == 0 and not st.st_mode & (stat.S_IXOTH if is_dir else stat.S_IROTH):
                continue  # only root may read it
            (dirs if is_dir else files).append(name)
    shown = tuple(n for n in PROC_SYS_SHOWN if os.path.isfile(f"/proc/sys/{n}"))
    return ProcMasks(tuple(sorted(files)), tuple(sorted(dirs)), shown)


def proc_arguments(empty_file: str, empty_dir: str) -> list[str]:
    """bwrap's arguments mounting /proc with everything but the allow lists masked."""
    masks = proc_masks()
    argv = ["--proc", "/proc"]
    for name in masks.files:
        argv += ["--ro-bind", empty_file, f"/proc/{name}"]
    for name in masks.dirs:
        argv += ["--ro-bind", empty_dir, f"/proc/{name}"]
    argv += ["--tmpfs", "/proc/sys"]
    for name in masks.sys_shown:
        argv += ["--ro-bind", f"/proc/sys/{name}", f"/proc/sys/{name}"]
    return [*argv, "--remount-ro", "/proc/sys"]


# /dev: bwrap's --dev also mounts a devpts instance and links /dev/ptmx into it, and every
# pty opened there counts in the machine-wide /proc/sys/kernel/pty/nr (bounded by
# kernel/pty/max for the whole machine). So the sandbox's /dev is a tmpfs with only these
# device nodes, bound from the host's as --dev binds them, and the links to the process's own
# descriptors: no ptmx, no pts, no tty (a sandbox has no terminal).
DEVICES = ("null", "zero", "full", "random", "urandom")
DEV_LINKS = (
    ("/proc/self/fd", "/dev/fd"),
    ("/proc/self/fd/0", "/dev/stdin"),
    ("/proc/self/fd/1", "/dev/stdout"),
    ("/proc/self/fd/2", "/dev/stderr"),
)


def dev_arguments() -> list[str]:
    """bwrap's arguments making /dev (left writable: the caller remounts it read-only once
    /dev/shm is mounted on it)."""
    argv = ["--tmpfs", "/dev"]
    for name in DEVICES:
        argv += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for target, link in DEV_LINKS:
        argv += ["--symlink", target, link]
    return argv


@dataclass(frozen=True)
class Layout:
    binds: tuple[tuple[str, str], ...]  # (host source, sandbox path), all read-only
    masks: tuple[str, ...]  # directories inside the binds covered by an empty read-only tmpfs
    symlinks: tuple[tuple[str, str], ...] = ()  # (target, sandbox path): merged-/usr links
    python: str = ""  # the interpreter binary (real path) of a Python layout
    # Read every bound file before the first run (warm_page_cache). False only for what runs
    # with no secret in reach and nothing of the submission executing (a compiler): warming a
    # whole toolchain tree would read gigabytes.
    warm: bool = True


# Debian 12 is merged-/usr: these are symlinks into /usr, which binaries' paths name (the
# dynamic loader is /lib64/ld-linux-x86-64.so.2).
MERGED_USR_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


# Where an installed judge (its code, the reference solvers) or other Python packages live: a
# toolchain bound whole (a compiler's /usr) must not show them, `.incbin` or `#include` could
# read them. Masked wherever a bind covers them.
@lru_cache(maxsize=1)
def judge_places() -> tuple[str, ...]:
    return (
        "/usr/local",
        *sorted(
            os.path.join("/usr/lib", name, packages)
            for name in (os.listdir("/usr/lib") if os.path.isdir("/usr/lib") else ())
            if name.startswith("python3")
            for packages in ("site-packages", "dist-packages")
        ),
    )


def toolchain_layout(
    paths: Iterable[str],
    *,
    linked: Iterable[str] = (),
    masks: Iterable[str] = (),
    warm: bool = True,
    libraries: Callable[[list[str]], list[tuple[str, str]]] | None = None,
) -> Layout:
    """A layout binding `paths` (files or directories, each at its own path, read-only), the
    shared libraries the ELF files `linked` load (and the dynamic loader), and the host's
    merged-/usr symlinks, so a toolchain's binaries resolve inside as outside. Paths that do
    not exist here are left out (the run then fails visibly). `libraries` lists what `linked`
    load (shared_libraries, or a caller's kept answers of it)."""
    binds: list[tuple[str, str]] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.exists(real):
            binds.append((real, real))
            if real != path and not os.path.islink(os.path.dirname(path)):
                binds.append((real, path))  # also where it is named (/usr/bin/java...)
    for dest, source in (libraries or shared_libraries)(list(linked)) if linked else ():
        # Named through /lib or /lib64, which are symlinks inside too: bind where they lead.
        dest = os.path.join(os.path.realpath(os.path.dirname(dest)), os.path.basename(dest))
        if not _covered(dest, binds):
            binds.append((source, dest))
    symlinks = tuple((os.readlink(link), link) for link in MERGED_USR_LINKS if os.path.islink(link))
    hidden = [p for p in (*judge_places(), *masks) if os.path.isdir(p) and _covered(p, binds)]
    return Layout(tuple(dict.fromkeys(binds)), tuple(dict.fromkeys(hidden)), symlinks, warm=warm)


def _covered(path: str, binds: list[tuple[str, str]]) -> bool:
    return any(path == dest or path.startswith(dest.rstrip("/") + "/") for _, dest in binds)


_PROBE = r"""
import json, sys, sysconfig
paths = sysconfig.get_paths()
print(json.dumps({
    "stdlib": sorted({paths["stdlib"], paths["platstdlib"]}),
    "path": [p for p in sys.path if p],
    "site": sorted({paths["purelib"], paths["platlib"]}),
}))
"""


def shared_libraries(files: list[str]) -> list[tuple[str, str]]:
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
    for dest, source in shared_libraries(sofiles):
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
    return Layout(
        tuple((src, dst) for dst, src in binds.items()), tuple(sorted(masks)), python=python
    )


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
    try:
        with open(path, encoding="utf-8") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.geteuid() or st.st_mode & 0o022:
                return None
            record = json.load(f)
        layout = Layout(
            tuple((str(src), str(dst)) for src, dst in record["binds"]),
            tuple(str(m) for m in record["masks"]),
            python=str(record["python"]),
        )
        if layout.python != python or record["stamps"] != _dir_stamps(layout):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all(os.path.exists(src) for src, _ in layout.binds):
        return None
    return layout


def warm_page_cache(layout: Layout) -> None:
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

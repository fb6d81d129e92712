"""A seccomp-BPF deny-list filter, assembled in pure Python for `bwrap --seccomp FD`.

bwrap reads the raw program (an array of `struct sock_filter`) from the fd and installs it
with no_new_privs just before it execs the sandboxed command. The filter:

- kills the process on any other syscall ABI (i386 via int 0x80, x32 numbers >= 0x40000000):
  the tables below would not match their numbers, so they must never get through;
- returns EPERM for calls a submission has no business making (debugging other processes,
  kernel keyrings, io_uring, BPF, perf, mounts and namespaces, modules, ...);
- allows socket()/socketpair() only for AF_UNIX (no netlink, packet or inet sockets; the
  network namespace is empty anyway);
- refuses clone() with namespace flags and makes clone3() fail with ENOSYS (its flags sit
  behind a pointer the filter cannot read, and libc then falls back to clone());
- refuses the TIOCSTI / TIOCLINUX ioctls (typing into a terminal);
- closes channels between runs through state the kernel shares: the page cache (fadvise,
  readahead, mincore, cachestat, preadv2/pwritev2 with RWF_NOWAIT, madvise COLD/PAGEOUT),
  file locks and notifications on the shared read-only files (flock, fcntl locks, leases
  and F_NOTIFY, inotify) and global counters (sysinfo; the AIO calls, whose contexts count
  in the machine-wide /proc/sys/fs/aio-nr and are refused at aio-max-nr for everyone): a run
  that held hidden boards could otherwise leave bits there for a later or concurrent run,
  whose output a student reads, to pick up;
- allows everything else.
"""

from __future__ import annotations

import errno
import os
import struct

# struct seccomp_data { int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]; }
_OFF_NR = 0
_OFF_ARCH = 4
_OFF_ARG0_LO = 16  # little-endian: the low 32 bits of args[0]
_OFF_ARG1_LO = 24
_OFF_ARG2_LO = 32

# BPF opcodes (linux/bpf_common.h)
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
X32_SYSCALL_BIT = 0x40000000

AF_UNIX = 1
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
MADV_COLD, MADV_PAGEOUT = 20, 21  # push file pages out of the page cache
# fcntl commands: locks (F_GETLK, F_SETLK, F_SETLKW and the OFD ones), leases, F_NOTIFY.
FCNTL_DENIED = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
CLONE_PIDFD = 0x00001000  # a pidfd (see pidfd_open below)
CLONE_NEW_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)

# Calls answered with EPERM. Names missing from an architecture's table are skipped there.
DENIED = (
    # other processes' memory and debugging
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "process_madvise",
    "move_pages",
    "migrate_pages",
    # kernel keyrings
    "keyctl",
    "add_key",
    "request_key",
    # large kernel attack surface a Python solution never needs
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "lookup_dcookie",
    # mounts, namespaces, filesystem handles
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    # the machine itself
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "get_kernel_syms",
    "query_module",
    "syslog",
    "acct",
    "swapon",
    "swapoff",
    "reboot",
    "sethostname",
    "setdomainname",
    "quotactl",
    "quotactl_fd",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "vhangup",
    "iopl",
    "ioperm",
    "uselib",
    "ustat",
    "sysfs",
    "_sysctl",
    "nfsservctl",
    # execution domain tricks (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ...)
    "personality",
    # state shared with later runs: the page cache, locks, notifications, global counters
    "fadvise64",
    "readahead",
    "mincore",
    "cachestat",
    "preadv2",
    "pwritev2",
    "flock",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "sysinfo",
    # Linux AIO: contexts count machine-wide (fs/aio-nr, bounded by fs/aio-max-nr); no
    # runtime here uses it (glibc's POSIX aio is threads, the JVM's NIO is epoll)
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    # a pidfd's inode number counts every process the machine ever made (pidfs): what a
    # run holding hidden input forked would show in a later run's fstat
    "pidfd_open",
)

# Denied as well in runs holding hidden input: each makes an inode numbered from a counter
# the whole machine shares (pipes and sockets: get_next_ino; SysV and memfd shared memory
# theirs), which a later visible run reads back in fstat: the phase lock keeps runs
# apart in time, not this state. No driver needs them (the JVM drivers read files with
# java.io: NIO's file channels make a socketpair).
HIDDEN_DENIED = (
    "pipe",
    "pipe2",
    "socket",
    "socketpair",
    "memfd_create",
    "shmget",
    # ... and may not make itself wait for a CPU: time waiting for one is not charged
    # (limits.charged_s), so pinning itself to a busy core or lowering its own priority would
    # stretch its wall time on a busy machine by choice, a channel. No runtime needs them.
    "sched_setaffinity",
    "sched_setscheduler",
    "sched_setattr",
    "setpriority",
)

# Syscall numbers (from the kernel's uapi headers; aarch64 uses the asm-generic table).
SYSCALLS_X86_64 = {
    "sched_setaffinity": 203,
    "sched_setscheduler": 144,
    "sched_setattr": 314,
    "setpriority": 141,
    "pidfd_open": 434,
    "shmget": 29,
    "pipe": 22,
    "pipe2": 293,
    "memfd_create": 319,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "move_pages": 279,
    "migrate_pages": 256,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "lookup_dcookie": 212,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "unshare": 272,
    "setns": 308,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "open_by_handle_at": 304,
    "name_to_handle_at": 303,
    "fanotify_init": 300,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "create_module": 174,
    "get_kernel_syms": 177,
    "query_module": 178,
    "syslog": 103,
    "acct": 163,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "quotactl": 179,
    "quotactl_fd": 443,
    "settimeofday": 164,
    "clock_settime": 227,
    "clock_adjtime": 305,
    "adjtimex": 159,
    "vhangup": 153,
    "iopl": 172,
    "ioperm": 173,
    "uselib": 134,
    "ustat": 136,
    "sysfs": 139,
    "_sysctl": 156,
    "nfsservctl": 180,
    "personality": 135,
    "fadvise64": 221,
    "readahead": 187,
    "mincore": 27,
    "cachestat": 451,
    "preadv2": 327,
    "pwritev2": 328,
    "flock": 73,
    "inotify_init": 253,
    "inotify_init1": 294,
    "inotify_add_watch": 254,
    "sysinfo": 99,
    "io_setup": 206,
    "io_destroy": 207,
    "io_getevents": 208,
    "io_submit": 209,
    "io_cancel": 210,
    "io_pgetevents": 333,
    "madvise": 28,
    "fcntl": 72,
    "socket": 41,
    "socketpair": 53,
    "clone": 56,
    "clone3": 435,
    "ioctl": 16,
}
SYSCALLS_AARCH64 = {
    "sched_setaffinity": 122,
    "sched_setscheduler": 119,
    "sched_setattr": 274,
    "setpriority": 140,
    "pidfd_open": 434,
    "shmget": 194,
    "pipe2": 59,  # (no pipe: asm-generic has only pipe2)
    "memfd_create": 279,
    "ptrace": 117,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "kcmp": 272,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "move_pages": 239,
    "migrate_pages": 238,
    "keyctl": 219,
    "add_key": 217,
    "request_key": 218,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "bpf": 280,
    "perf_event_open": 241,
    "userfaultfd": 282,
    "lookup_dcookie": 18,
    "mount": 40,
    "umount2": 39,
    "pivot_root": 41,
    "chroot": 51,
    "unshare": 97,
    "setns": 268,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "open_by_handle_at": 265,
    "name_to_handle_at": 264,
    "fanotify_init": 262,
    "kexec_load": 104,
    "kexec_file_load": 294,
    "init_module": 105,
    "finit_module": 273,
    "delete_module": 106,
    "syslog": 116,
    "acct": 89,
    "swapon": 224,
    "swapoff": 225,
    "reboot": 142,
    "sethostname": 161,
    "setdomainname": 162,
    "quotactl": 60,
    "quotactl_fd": 443,
    "settimeofday": 170,
    "clock_settime": 112,
    "clock_adjtime": 266,
    "adjtimex": 171,
    "vhangup": 58,
    "nfsservctl": 42,
    "personality": 92,
    "fadvise64": 223,
    "readahead": 213,
    "mincore": 232,
    "cachestat": 451,
    "preadv2": 286,
    "pwritev2": 287,
    "flock": 32,
    "inotify_init1": 26,
    "inotify_add_watch": 27,
    "sysinfo": 179,
    "io_setup": 0,
    "io_destroy": 1,
    "io_submit": 2,
    "io_cancel": 3,
    "io_getevents": 4,
    "io_pgetevents": 292,
    "madvise": 233,
    "fcntl": 25,
    "socket": 198,
    "socketpair": 199,
    "clone": 220,
    "clone3": 435,
    "ioctl": 29,
}

ARCHES = {
    "x86_64": (AUDIT_ARCH_X86_64, SYSCALLS_X86_64),
    "amd64": (AUDIT_ARCH_X86_64, SYSCALLS_X86_64),
    "aarch64": (AUDIT_ARCH_AARCH64, SYSCALLS_AARCH64),
    "arm64": (AUDIT_ARCH_AARCH64, SYSCALLS_AARCH64),
}


class UnsupportedArch(RuntimeError):
    """No syscall table for this machine: refuse rather than install a filter that misfires."""


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def build_filter(machine: str | None = None, hidden: bool = False) -> bytes:
    """The filter program for `machine` (default: this one) as raw sock_filter bytes;
    `hidden`: for a run holding hidden input (HIDDEN_DENIED too)."""
    # os.uname().machine is what platform.machine() returns, without importing platform
    # (about 1 ms of every command's start).
    machine = (machine or os.uname().machine).lower()
    if machine not in ARCHES:
        raise UnsupportedArch(
            f"no seccomp syscall table for architecture {machine!r} (supported: x86_64, "
            "aarch64); the sandbox refuses to run without its syscall filter"
        )
    audit_arch, table = ARCHES[machine]
    eperm = RET_ERRNO | errno.EPERM
    prog = [
        _insn(_LD_W_ABS, _OFF_ARCH),
        _insn(_JEQ_K, audit_arch, jt=1, jf=0),
        _insn(_RET_K, RET_KILL_PROCESS),
        _insn(_LD_W_ABS, _OFF_NR),
    ]
    if audit_arch == AUDIT_ARCH_X86_64:
        prog += [_insn(_JGE_K, X32_SYSCALL_BIT, jt=0, jf=1), _insn(_RET_K, RET_KILL_PROCESS)]
    for name in DENIED + (HIDDEN_DENIED if hidden else ()):
        if name in table:
            prog += [_insn(_JEQ_K, table[name], jt=0, jf=1), _insn(_RET_K, eperm)]
    # clone3: ENOSYS, so libc falls back to clone(), whose flags we can inspect.
    prog += [_insn(_JEQ_K, table["clone3"], jt=0, jf=1), _insn(_RET_K, RET_ERRNO | errno.ENOSYS)]
    # Each block below starts with the syscall number in the accumulator and ends in a return.
    for name in ("socket", "socketpair"):
        prog += [
            _insn(_JEQ_K, table[name], jt=0, jf=4),
            _insn(_LD_W_ABS, _OFF_ARG0_LO),
            _insn(_JEQ_K, AF_UNIX, jt=0, jf=1),
            _insn(_RET_K, RET_ALLOW),
            _insn(_RET_K, eperm),
        ]
    prog += [
        _insn(_JEQ_K, table["clone"], jt=0, jf=4),
        _insn(_LD_W_ABS, _OFF_ARG0_LO),
        _insn(_JSET_K, CLONE_NEW_FLAGS | CLONE_PIDFD, jt=0, jf=1),
        _insn(_RET_K, eperm),
        _insn(_RET_K, RET_ALLOW),
    ]
    prog += [
        _insn(_JEQ_K, table["ioctl"], jt=0, jf=5),
        _insn(_LD_W_ABS, _OFF_ARG1_LO),
        _insn(_JEQ_K, TIOCSTI, jt=2, jf=0),
        _insn(_JEQ_K, TIOCLINUX, jt=1, jf=0),
        _insn(_RET_K, RET_ALLOW),
        _insn(_RET_K, eperm),
    ]
    prog += [
        _insn(_JEQ_K, table["madvise"], jt=0, jf=5),
        _insn(_LD_W_ABS, _OFF_ARG2_LO),
        _insn(_JEQ_K, MADV_COLD, jt=2, jf=0),
        _insn(_JEQ_K, MADV_PAGEOUT, jt=1, jf=0),
        _insn(_RET_K, RET_ALLOW),
        _insn(_RET_K, eperm),
    ]
    count = len(FCNTL_DENIED)
    prog += [_insn(_JEQ_K, table["fcntl"], jt=0, jf=count + 3), _insn(_LD_W_ABS, _OFF_ARG1_LO)]
    for n, command in enumerate(FCNTL_DENIED):
        prog.append(_insn(_JEQ_K, command, jt=count - n, jf=0))
    prog += [_insn(_RET_K, RET_ALLOW), _insn(_RET_K, eperm)]
    prog.append(_insn(_RET_K, RET_ALLOW))
    if len(prog) > 4096:  # BPF_MAXINSNS
        raise AssertionError("seccomp program too long")
    return b"".join(prog)

"""The phase lock: on one kernel, a run holding hidden input never runs beside a run whose
output a student sees.

Processes running at the same time share what the kernel counts machine-wide (open AIO
contexts, ptys, the pipe and socket inode numbers, CPU and cache contention): a hidden-tier
process can modulate any of them and a concurrent visible run (another tier, a Run, a
shrink, any account's) can read them back and print what it read. Masking one counter closes
one channel; the lock closes the class. Any number of visible runs, or any number of hidden
runs, may run at once, never both.

    phases = PhaseLock("/run/judge-phase")
    with phases.hold(hidden=True):      # blocks while any visible run is going
        ...start the run, wait for it, kill and reap it...

Three flock'd files in one directory shared by every judge on the host (compose mounts one
volume there for all workers): `visible` and `hidden`, which each run of that phase holds
shared, and `gate`. To enter, a run takes the gate, takes its phase's file shared, then waits
for the other phase's file to be free (exclusive, released at once) and lets the gate go.
While it waits it holds the gate, so no new run of the phase that is running gets in: the
running phase drains and the waiting one starts. Phases thus alternate under load, each
turn admitting every run of its phase that arrives while it runs, and neither starves.
flock locks belong to open file descriptions, so threads, processes and a crashed holder
(its descriptors closed by the kernel) all behave.

What outlives a run is handled at the turn: the first visible run after hidden ones drops
the kernel's dentry and inode caches (as root), where a hidden run could leave failed
lookups for a later run to time. Counters that only go up (pipe, socket, pidfd inode
numbers) are the seccomp filter's: hidden runs cannot move them (seccomp.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator

VISIBLE, HIDDEN, GATE = "visible.lock", "hidden.lock", "gate.lock"
# Left by hidden runs, taken away with the caches by the first visible run after them.
HIDDEN_RAN = "hidden-ran"
DROP_CACHES = "/proc/sys/vm/drop_caches"


def default_phase_dir() -> str:
    """One directory per machine (per user when not root): every judge must name the same."""
    if os.geteuid() == 0 and os.access("/run", os.W_OK):
        return "/run/judge-phase"
    return os.path.join(tempfile.gettempdir(), f"judge-phase-{os.geteuid()}")


class PhaseLock:
    """`drop_caches` (root only): at each turn from hidden runs to visible ones, free the
    kernel's unused dentries and inodes. A hidden run can look up names that do not exist
    (one per bit of a board) in a directory every sandbox shares, and the kernel keeps each
    failed lookup: a later visible run times the same lookups (about 2 us cached, 6 us
    not) and reads the bits back. The lock keeps runs apart in time; this empties what
    they leave in the name cache. It takes about 2 ms; the page cache stays."""

    def __init__(self, directory: str, drop_caches: bool | None = None) -> None:
        self.directory = directory
        self.drop_caches = os.geteuid() == 0 if drop_caches is None else drop_caches
        self.drops = 0  # how many turns this object dropped the caches at

    def _open(self, name: str) -> int:
        with contextlib.suppress(FileExistsError):
            os.mkdir(self.directory, 0o700)
        st = os.lstat(self.directory)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            raise PermissionError(f"phase lock directory {self.directory} is not ours")
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        return os.open(os.path.join(self.directory, name), flags, 0o600)

    def acquire(self, hidden: bool) -> int:
        """Enter the phase; returns the descriptor whose closing leaves it."""
        held = self._enter(hidden, wait=True)
        assert held is not None
        return held

    def try_acquire(self, hidden: bool) -> int | None:
        """acquire, or None at once where it would wait (a run of the other phase going on,
        or one waiting to enter)."""
        return self._enter(hidden, wait=False)

    def _enter(self, hidden: bool, *, wait: bool) -> int | None:
        mine, theirs = (HIDDEN, VISIBLE) if hidden else (VISIBLE, HIDDEN)
        now = 0 if wait else fcntl.LOCK_NB
        gate = self._open(GATE)
        try:
            try:
                fcntl.flock(gate, fcntl.LOCK_EX | now)
            except BlockingIOError:
                return None
            held = self._open(mine)
            try:
                fcntl.flock(held, fcntl.LOCK_SH)
                other = self._open(theirs)
                try:
                    fcntl.flock(other, fcntl.LOCK_EX | now)  # every run of the other phase ended
                except BlockingIOError:
                    os.close(held)
                    return None
                finally:
                    os.close(other)
                self._turn(hidden)
            except BaseException:
                os.close(held)
                raise
        finally:
            os.close(gate)
        return held

    def _turn(self, hidden: bool) -> None:
        """With the gate and the other phase drained: note a hidden run, or clean up after
        hidden runs before the first visible one."""
        marker = os.path.join(self.directory, HIDDEN_RAN)
        if hidden:
            if not os.path.exists(marker):
                os.close(self._open(HIDDEN_RAN))
            return
        if not os.path.exists(marker):
            return
        if self.drop_caches:
            with open(DROP_CACHES, "w") as caches:
                caches.write("2")
            self.drops += 1
        os.unlink(marker)

    @contextlib.contextmanager
    def hold(self, hidden: bool) -> Iterator[None]:
        held = self.acquire(hidden)
        try:
            yield
        finally:
            os.close(held)

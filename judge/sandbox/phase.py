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
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator

VISIBLE, HIDDEN, GATE = "visible.lock", "hidden.lock", "gate.lock"


def default_phase_dir() -> str:
    """One directory per machine (per user when not root): every judge must name the same."""
    if os.geteuid() == 0 and os.access("/run", os.W_OK):
        return "/run/judge-phase"
    return os.path.join(tempfile.gettempdir(), f"judge-phase-{os.geteuid()}")


class PhaseLock:
    def __init__(self, directory: str) -> None:
        self.directory = directory

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
        mine, theirs = (HIDDEN, VISIBLE) if hidden else (VISIBLE, HIDDEN)
        gate = self._open(GATE)
        try:
            fcntl.flock(gate, fcntl.LOCK_EX)
            held = self._open(mine)
            try:
                fcntl.flock(held, fcntl.LOCK_SH)
                other = self._open(theirs)
                try:
                    fcntl.flock(other, fcntl.LOCK_EX)  # every run of the other phase ended
                finally:
                    os.close(other)
            except BaseException:
                os.close(held)
                raise
        finally:
            os.close(gate)
        return held

    @contextlib.contextmanager
    def hold(self, hidden: bool) -> Iterator[None]:
        held = self.acquire(hidden)
        try:
            yield
        finally:
            os.close(held)

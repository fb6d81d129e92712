"""Grading slots: one unprivileged uid per concurrent run, claimed with a file lock.

Each slot N is a lock file `slot-N.lock`; holding an exclusive `flock` on it means owning uid
`base + N` (and the cgroup named after the slot) until released. flock locks belong to the
open file description, so two threads of one process, two Celery pool processes and a CLI run
all exclude each other, and a crashed holder releases its slot automatically.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
import time
from dataclasses import dataclass

DEFAULT_UID_BASE = 61000
DEFAULT_SLOTS = 64


class NoFreeSlot(RuntimeError):
    pass


@dataclass
class Slot:
    number: int
    uid: int
    gid: int
    _fd: int

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = -1


class SlotPool:
    def __init__(self, directory: str, count: int, uid_base: int | None) -> None:
        self.directory = directory
        self.count = count
        self.uid_base = uid_base  # None: run as the current user (not root)

    @classmethod
    def default(cls) -> SlotPool:
        count = int(os.environ.get("JUDGE_SANDBOX_SLOTS") or DEFAULT_SLOTS)
        if os.geteuid() == 0:
            base = int(os.environ.get("JUDGE_SANDBOX_UID_BASE") or DEFAULT_UID_BASE)
            directory = (
                "/run/judge-slots"
                if os.access("/run", os.W_OK)
                else os.path.join(tempfile.gettempdir(), "judge-slots")
            )
        else:
            base = None
            directory = os.path.join(tempfile.gettempdir(), f"judge-slots-{os.getuid()}")
        return cls(directory, count, base)

    def _ensure_dir(self) -> None:
        with contextlib.suppress(FileExistsError):
            os.mkdir(self.directory, 0o700)
        st = os.lstat(self.directory)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            raise NoFreeSlot(f"slot directory {self.directory} is not a directory we own")

    def acquire(self, timeout: float = 60.0) -> Slot:
        """A free slot; waits up to `timeout` seconds when all are busy."""
        self._ensure_dir()
        deadline = time.monotonic() + timeout
        # Start at a random slot rather than the lowest free one: a uid's RLIMIT_NPROC count
        # lags behind a finished sandbox by seconds (user-namespace accounting), so quick
        # consecutive runs should not all land on the same uid.
        start = int.from_bytes(os.urandom(2), "little") % self.count
        while True:
            for i in range(self.count):
                n = (start + i) % self.count
                path = os.path.join(self.directory, f"slot-{n}.lock")
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                if self.uid_base is None:
                    return Slot(n, os.getuid(), os.getgid(), fd)
                return Slot(n, self.uid_base + n, self.uid_base + n, fd)
            if time.monotonic() > deadline:
                raise NoFreeSlot(f"all {self.count} sandbox slots busy for {timeout:.0f} s")
            time.sleep(0.05)

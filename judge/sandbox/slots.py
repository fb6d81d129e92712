"""Grading slots: one unprivileged uid per concurrent run, claimed with a file lock.

As root, slot N of a pool means uid `base + N`, and its lock file is named after the uid
(`uid-61005.lock`), not after N: pools with different bases on one machine (several workers,
the command line, a test run) then exclude each other on every uid they share, whatever
their slot numbers. Holding an exclusive `flock` on the file means owning the uid (and the
cgroup named after it) until released. flock locks belong to the open file description, so
two threads of one process, two Celery pool processes and a CLI run all exclude each other,
and a crashed holder releases its slot automatically.

Containers do not share /run: there, workers on one host get disjoint uid ranges from the
service's registry instead (worker/uid_block_lease.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
import time
from dataclasses import dataclass

from judge.sandbox.config import SandboxConfig


class NoFreeSlot(RuntimeError):
    pass


@dataclass
class Slot:
    number: int
    uid: int
    gid: int
    key: str  # names its lock file and its cgroup: unique among pools of this machine
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
    def for_config(cls, config: SandboxConfig) -> SlotPool:
        if os.geteuid() == 0:
            directory = config.slot_dir or (
                "/run/judge-slots"
                if os.access("/run", os.W_OK)
                else os.path.join(tempfile.gettempdir(), "judge-slots")
            )
            return cls(directory, config.slots, config.uid_base)
        directory = config.slot_dir or os.path.join(
            tempfile.gettempdir(), f"judge-slots-{os.getuid()}"
        )
        return cls(directory, config.slots, None)

    def uids(self) -> range | None:
        """The uids this pool runs sandboxes as (None: the current user's)."""
        return None if self.uid_base is None else range(self.uid_base, self.uid_base + self.count)

    def _key(self, n: int) -> str:
        if self.uid_base is None:
            return f"user-{os.getuid()}-slot-{n}"
        return f"uid-{self.uid_base + n}"

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
                key = self._key(n)
                path = os.path.join(self.directory, f"{key}.lock")
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                if self.uid_base is None:
                    return Slot(n, os.getuid(), os.getgid(), key, fd)
                return Slot(n, self.uid_base + n, self.uid_base + n, key, fd)
            if time.monotonic() > deadline:
                raise NoFreeSlot(f"all {self.count} sandbox slots busy for {timeout:.0f} s")
            time.sleep(0.05)

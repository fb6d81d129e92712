"""Temporary directories that say whether their owner is alive: a flock held while in use.

A run's directory (the harness, the student's source, the tests) is removed when the run
ends, but a SIGKILLed worker never gets there. Its leftovers must go, yet /tmp is shared with
other judges and test runs, so only a directory that is provably nobody's may be removed:

- `locked_dir(prefix)` creates the directory under a staging name, takes an exclusive flock
  on it, and only then renames it to `<prefix>...`. A directory under its final name is
  therefore locked from the moment it exists until its owner has removed it; the kernel
  drops the lock when the owner dies, however it dies.
- `remove_stale(parent, prefix)` removes every `<prefix>*` directory whose lock it can take:
  nobody holds it, so nobody uses it. A live run's directory is never touched. (Staging
  names left by an owner killed between its two system calls go once an hour old.)
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass

# A run's directory on the host. (Older versions named theirs judge-run-*, unlocked: those
# cannot be told from a live run of an older judge, so they are left alone.)
RUN_DIR_PREFIX = "judge-box-"
STAGING = ".staging-"
STAGING_MAX_AGE_S = 3600.0


@dataclass
class LockedDir:
    path: str
    _fd: int

    def remove(self) -> None:
        """Delete the directory, then drop the lock (a cleaner never sees it unlocked)."""
        if self._fd < 0:
            return
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self._fd)
        self._fd = -1

    def detach(self) -> None:
        """Drop the lock without removing (the owner lives on but no longer vouches for it:
        tests simulate a killed owner this way)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _try_lock(path: str) -> int | None:
    """A descriptor holding the directory's exclusive lock, or None when someone holds it
    (or it is not a real directory: a symlink planted in /tmp is not followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def locked_dir(prefix: str, parent: str | None = None) -> LockedDir:
    """A new private directory `<parent>/<prefix>XXXXXXXX`, locked by this process."""
    parent = parent or tempfile.gettempdir()
    staging = tempfile.mkdtemp(prefix=STAGING + prefix, dir=parent)
    fd = _try_lock(staging)
    if fd is None:  # only a racing cleaner could hold it: it is about to remove it
        shutil.rmtree(staging, ignore_errors=True)
        raise OSError(f"could not lock the new directory {staging}")
    final = os.path.join(parent, os.path.basename(staging).removeprefix(STAGING))
    try:
        os.rename(staging, final)  # same inode: the lock goes with it
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        os.close(fd)
        raise
    return LockedDir(final, fd)


def remove_stale(parent: str, prefix: str) -> list[str]:
    """Remove the `<prefix>*` directories of `parent` nobody holds; returns their paths."""
    removed: list[str] = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        staged = name.startswith(STAGING + prefix)
        if not (name.startswith(prefix) or staged):
            continue
        path = os.path.join(parent, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue
        if staged and now - st.st_mtime < STAGING_MAX_AGE_S:
            continue  # its owner may be between mkdtemp and flock
        fd = _try_lock(path)
        if fd is None:
            continue  # in use
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)
        if not os.path.lexists(path):
            removed.append(path)
    return removed

"""What is worked out from a built-in package's files once and kept between processes:
problem.py's compiled code (code.py) and problem.toml's table (manifest.py). A command line
starts once per file, and compiling and parsing them was 15 ms of a 0.15 s grading (issue 24).

Kept in a folder of ours alone (judge-problem-kept-UID in the temporary directory, 0700), as
Python keeps its own __pycache__, under a name that holds the digest of what it was worked
out from: another input is another name. The folder is opened once and checked by its open
descriptor (never followed through a symbolic link), and its files are read and written
relative to it, so a folder swapped after the check is not the one read.
"""

from __future__ import annotations

import contextlib
import os
import tempfile


def default_folder() -> str:
    path = os.path.join(tempfile.gettempdir(), f"judge-problem-kept-{os.geteuid()}")
    with contextlib.suppress(OSError):  # there already, or not ours: _opened says
        os.mkdir(path, 0o700)
    return path


def read(name: str, folder: str | None = None) -> bytes | None:
    """What was kept under `name`, or None."""
    with _opened(folder) as where:
        if where is None:
            return None
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=where)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as kept:
            return kept.read()


def write(name: str, data: bytes, folder: str | None = None) -> None:
    """Keep `data` under `name`, whole or not at all for a reader beside us; nothing when the
    folder cannot take it."""
    with _opened(folder) as where:
        if where is None:
            return
        partial = f"{name}.{os.getpid()}.part"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            with os.fdopen(os.open(partial, flags, 0o600, dir_fd=where), "wb") as out:
                out.write(data)
            os.replace(partial, name, src_dir_fd=where, dst_dir_fd=where)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(partial, dir_fd=where)


@contextlib.contextmanager
def _opened(folder: str | None):
    """The folder's descriptor while it is ours alone (a directory we own, that no one else
    may write or read), else None."""
    path = folder if folder is not None else default_folder()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        yield None
        return
    try:
        st = os.fstat(fd)
        yield fd if st.st_uid == os.geteuid() and not st.st_mode & 0o077 else None
    finally:
        os.close(fd)

"""What is worked out from a package's files once and kept between processes: problem.py's
compiled code (code.py) and problem.toml's table (manifest.py). A command line starts once
per file, and for a built-in problem compiling and parsing them was 15 ms of a 0.15 s
grading (issue 24).

Kept in a folder of ours alone (judge-problem-kept-UID in the temporary directory, 0700), as
Python keeps its own __pycache__, under a name that holds the digest of what it was worked
out from: another input is another name. A folder that is not ours alone is not read.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


def default_folder() -> str:
    path = os.path.join(tempfile.gettempdir(), f"judge-problem-kept-{os.geteuid()}")
    with contextlib.suppress(OSError):  # there already, or not ours: ours_alone says
        os.mkdir(path, 0o700)
    return path


def read(name: str, folder: str | None = None) -> bytes | None:
    """What was kept under `name`, or None."""
    folder = folder if folder is not None else default_folder()
    if not ours_alone(folder):
        return None
    try:
        with open(os.path.join(folder, name), "rb") as kept:
            return kept.read()
    except OSError:
        return None


def write(name: str, data: bytes, folder: str | None = None) -> None:
    """Keep `data` under `name` (whole or not at all, for a reader beside us); nothing when
    the folder cannot take it."""
    folder = folder if folder is not None else default_folder()
    if not ours_alone(folder):
        return
    path = os.path.join(folder, name)
    partial = f"{path}.{os.getpid()}.part"
    try:
        with open(partial, "wb") as out:
            out.write(data)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(partial)


def ours_alone(folder: str) -> bool:
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o077

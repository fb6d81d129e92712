"""What a compile run wrote under /box/out, taken out of the sandbox without trusting it.

The run wrote into a directory of its own run directory, as its own uid; everything there is
the submission's. Only regular files (one link each) and directories come out, copied into
the caller's directory by descriptors opened without following links, within a file count,
a total size and a depth. Anything else (a symlink, a FIFO, a socket, a hard link, too much,
too deep), or a process of the run still alive, refuses the whole output: fail closed.
"""

from __future__ import annotations

import os
import stat

# A compiled program: a binary, or a JVM's classes (one file per class).
MAX_FILES = 2000
MAX_BYTES = 64 << 20
MAX_DEPTH = 16


class OutputRefused(Exception):
    pass


def collect_output(source: str, dest: str) -> None:
    """Copy the regular files and directories under `source` into `dest` (an empty directory
    of ours); raises OutputRefused, leaving `dest` partly filled, for anything else."""
    fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        _copy_tree(fd, dest, 0, [0, 0])
    finally:
        os.close(fd)


def _copy_tree(dir_fd: int, dest: str, depth: int, seen: list[int]) -> None:
    with os.scandir(dir_fd) as entries:
        names = [entry.name for entry in entries]
    for name in names:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        target = os.path.join(dest, name)
        if stat.S_ISDIR(st.st_mode):
            if depth + 1 >= MAX_DEPTH:
                raise OutputRefused("directories nested too deep")
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            try:
                os.mkdir(target, 0o755)
                _copy_tree(child, target, depth + 1, seen)
            finally:
                os.close(child)
        elif stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            seen[0] += 1
            seen[1] += st.st_size
            if seen[0] > MAX_FILES or seen[1] > MAX_BYTES:
                raise OutputRefused(f"more than {MAX_FILES} files or {MAX_BYTES >> 20} MiB")
            _copy_file(dir_fd, name, target, st)
        else:
            raise OutputRefused(f"{name!r} is not a regular file or a directory")


def _copy_file(dir_fd: int, name: str, target: str, st: os.stat_result) -> None:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        opened = os.fstat(fd)
        if (opened.st_ino, opened.st_dev) != (st.st_ino, st.st_dev) or opened.st_nlink != 1:
            raise OutputRefused(f"{name!r} changed while it was copied")
        mode = 0o755 if st.st_mode & stat.S_IXUSR else 0o644
        with open(target, "xb") as out:
            os.chmod(target, mode)
            left = st.st_size
            while True:
                chunk = os.read(fd, min(1 << 20, left + 1))
                if not chunk:
                    break
                left -= len(chunk)
                if left < 0:
                    raise OutputRefused(f"{name!r} grew while it was copied")
                out.write(chunk)
    finally:
        os.close(fd)

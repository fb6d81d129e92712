"""Files at rest: the data directory is 0700 and what it holds (the embedded SQLite database
with its -wal and -shm files, the broker's database, the secret) is 0600.

Made so at creation, whatever the umask, and tightened at start when an older version left
them more open.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def _tighten(path: Path, mode: int) -> None:
    if stat.S_IMODE(path.stat().st_mode) & ~mode:
        try:
            path.chmod(mode)
        except PermissionError:  # not ours: say so rather than refuse to start
            log.warning("%s is open to others and not ours to chmod to %o", path, mode)


def private_dir(path: Path) -> Path:
    """Create the directory (and its parents) or tighten it: 0700, owner only."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    _tighten(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create the file empty if missing, 0600 from its first moment; tighten it if it exists."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    _tighten(path, FILE_MODE)
    return path


def private_sqlite(url: str) -> None:
    """Before SQLite opens a database file: create it 0600 (SQLite would make it 0644, and
    gives its -wal and -shm files the database file's mode), and tighten those that exist.
    A new parent directory is made 0700; an existing one is left alone (it may be /tmp)."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    private_file(path)
    for suffix in SQLITE_COMPANIONS:
        companion = path.with_name(path.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            _tighten(companion, FILE_MODE)

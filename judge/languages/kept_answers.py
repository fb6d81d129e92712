"""What a toolchain program says about itself (its version, where its parts are), and the
shared libraries its binaries load, kept.

Each answer is a program start: g++ is asked twelve questions and the sandbox's Python its
version, and a fresh process (`python -m judge grade`) asked them all again before every
grading (~50 ms for g++, ~10 ms for Python). The answers are kept for this machine user in one
file per tool, with the identity of the binary they came from (its real path, inode, size and
modification time): another binary, or a file that does not read as ours, is asked again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence

from judge.languages.base import own_temp_folder
from judge.sandbox.layout import shared_libraries

Identity = list[str | int]


def folder() -> str | None:
    """This user's folder of kept answers (answers someone else could write are not trusted)."""
    return own_temp_folder("judge-tools", 0o700)


def identity(binary: str) -> Identity | None:
    try:
        real = os.path.realpath(binary)
        st = os.stat(real)
    except OSError:
        return None
    return [real, st.st_ino, st.st_size, st.st_mtime_ns]


def answers(
    tool: str, binary: str, questions: Sequence[str], ask: Callable[[str], str]
) -> dict[str, str]:
    """`binary`'s answers to `questions`, asked with `ask` only when not kept for it."""
    key, where = identity(binary), folder()
    if key is None or where is None:  # nothing to key them by, or nowhere to keep them
        return {q: ask(q) for q in questions}
    path = os.path.join(where, f"{tool}.json")
    kept: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as f:
            stored = json.load(f)
        if stored["binary"] == key:
            kept = {q: a for q, a in stored["answers"].items() if isinstance(a, str)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # none yet, or not ours to trust: ask
    if all(q in kept for q in questions):
        return {q: kept[q] for q in questions}
    kept |= {q: ask(q) for q in questions if q not in kept}
    _keep(path, {"binary": key, "answers": kept})
    return {q: kept[q] for q in questions}


# Rebuilt by ldconfig whenever a library is installed, upgraded or removed.
LOADER_CACHE = "/etc/ld.so.cache"


def libraries(files: list[str]) -> list[tuple[str, str]]:
    """shared_libraries(files), kept per the identities of `files` and of the loader's cache
    (`ldd` runs the loader once per file: about 0.5 s for a JDK's 40 files, in every fresh
    process that lays out a JVM). A kept answer naming a library no longer there is asked
    again. What it names is bound into the sandbox, so it is kept only where only we write."""
    key = [identity(f) for f in [*files, LOADER_CACHE]]
    where = folder()
    if where is None or any(k is None for k in key):
        return shared_libraries(files)
    name = hashlib.sha256(json.dumps(files).encode()).hexdigest()[:24]
    path = os.path.join(where, f"ldd-{name}.json")
    try:
        with open(path, encoding="utf-8") as f:
            stored = json.load(f)
        if stored["files"] == key:
            kept = [(str(dest), str(source)) for dest, source in stored["libraries"]]
            if all(os.path.exists(source) for _, source in kept):
                return kept
    except (OSError, ValueError, KeyError, TypeError):
        pass  # none yet, or not ours to trust: ask
    found = shared_libraries(files)
    _keep(path, {"files": key, "libraries": found})
    return found


def _keep(path: str, stored: dict) -> None:
    """Write whole or not at all (a rename); a reader never sees a part-written file."""
    try:
        fd, work = tempfile.mkstemp(dir=os.path.dirname(path), prefix="making-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(stored, f)
        os.replace(work, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(work)

"""A problem package as a checked folder: `Package.load(folder)`.

    package = Package.load(Path("tictactoe"))
    package.manifest, package.statement, package.stdio, package.boards, package.digest

Loading reads the declarations only (archive.check_folder's bounds, problem.toml,
statement.md, the optional stdio.md, boards/); problem.py is read as source and never run
here: judge/problems/code.py runs it, and judge/problems/bind.py makes the ProblemSpec.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from judge.problems.archive import check_folder
from judge.problems.host import read_source
from judge.problems.manifest import (
    MAX_STATEMENT_BYTES,
    Board,
    Manifest,
    ManifestError,
    read_boards,
    read_manifest,
    read_statement,
    read_text,
)

STDIO_FILE = "stdio.md"  # the stdin/stdout format's description, for the problem page
SUBMISSIONS = "submissions"
# submissions/<folder>/ -> the verdict every file in it must get.
VERDICT_FOLDERS = {
    "accepted": "AC",
    "wrong_answer": "WA",
    "time_limit_exceeded": "TLE",
    "runtime_error": "RE",
}


@dataclass(frozen=True)
class Package:
    folder: Path  # resolved
    manifest: Manifest
    statement: str  # statement.md
    stdio: str  # stdio.md, or "" when the package has none
    boards: tuple[Board, ...]  # the hidden boards, sorted by file name
    digest: str  # sha256 of the package's files (see `digest_of`): this version's identity

    @classmethod
    def load(cls, folder: str | Path, *, builtin: bool = False) -> Package:
        """The package in `folder`; ArchiveError for its files, ManifestError (listing every
        problem) for its declarations. `builtin`: one shipped inside the product, whose
        problem.toml table is kept between processes (judge/problems/kept.py)."""
        root = check_folder(Path(folder))
        manifest = read_manifest(root, keep=builtin)
        return cls(
            folder=root,
            manifest=manifest,
            statement=read_statement(root),
            stdio=read_stdio(root),
            boards=tuple(read_boards(root, manifest)),
            digest=digest_of(root),
        )

    @property
    def slug(self) -> str:
        return self.manifest.slug

    def source(self) -> bytes:
        """problem.py's bytes (ProblemError when it cannot be read)."""
        return read_source(self.folder / "problem.py")

    def submissions(self) -> list[tuple[str, Path]]:
        """(folder name, file) for every file under submissions/, sorted; hidden files (a
        dot first) left out."""
        found = []
        root = self.folder / SUBMISSIONS
        for top, folders, files in os.walk(root):
            folders[:] = sorted(f for f in folders if not f.startswith("."))
            for name in sorted(files):
                if not name.startswith("."):
                    path = Path(top, name)
                    found.append((path.relative_to(root).parts[0], path))
        return found


def read_stdio(folder: Path) -> str:
    """stdio.md when the package has one (UTF-8 markdown, bounded like the statement)."""
    if not os.path.lexists(folder / STDIO_FILE):
        return ""
    text = read_text(folder / STDIO_FILE, STDIO_FILE, MAX_STATEMENT_BYTES)
    if not text.strip():
        raise ManifestError([f"{STDIO_FILE}: empty (leave it out instead)"])
    return text


def digest_of(folder: Path) -> str:
    """sha256 over every regular file under `folder`, in the order of their relative POSIX
    paths compared as UTF-8 bytes; each file adds its path's length (8 bytes, big-endian),
    its path, its size (8 bytes) and its bytes. Framing the fields keeps two different
    packages from hashing alike by moving bytes between a name and a content."""
    files = []
    for top, _folders, names in os.walk(folder):
        for name in names:
            path = Path(top, name)
            if path.is_file():
                files.append((path.relative_to(folder).as_posix().encode("utf-8"), path))
    digest = hashlib.sha256()
    for rel, path in sorted(files):
        data = path.read_bytes()
        digest.update(len(rel).to_bytes(8, "big") + rel + len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()

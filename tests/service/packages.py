"""Zips of the tic-tac-toe fixture package (tests/judge/packages/tictactoe) for the upload
tests, under a slug of the test's choosing."""

from __future__ import annotations

import io
import secrets
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path

TICTACTOE = Path(__file__).resolve().parents[1] / "judge" / "packages" / "tictactoe"


def unique_slug(prefix: str = "ttt") -> str:
    """A slug no other test run uses (problem.toml's ^[a-z][a-z0-9_]{1,31}$)."""
    return f"{prefix}_{secrets.token_hex(6)}"


def package_zip(
    slug: str,
    *,
    edit: Callable[[str, bytes], bytes | None] = lambda name, data: data,
    extra: dict[str, bytes] | None = None,
    folder: Path = TICTACTOE,
) -> bytes:
    """The package in `folder` zipped under `slug` (problem.toml's slug line replaced);
    `edit(name, data)` may change a file (None leaves it out), `extra` adds files."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            name = path.relative_to(folder).as_posix()
            data = path.read_bytes()
            if name == "problem.toml":
                lines = data.decode().splitlines()
                lines = [f'slug = "{slug}"' if ln.startswith("slug =") else ln for ln in lines]
                data = ("\n".join(lines) + "\n").encode()
            changed = edit(name, data)
            if changed is not None:
                archive.writestr(f"{slug}/{name}", changed)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def symlink_zip(slug: str) -> bytes:
    """The package with a symbolic link member added."""
    out = io.BytesIO(package_zip(slug))
    with zipfile.ZipFile(out, "a") as archive:
        info = zipfile.ZipInfo(f"{slug}/boards/link.json")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    return out.getvalue()

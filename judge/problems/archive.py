"""A problem package's files, before anything reads them: an uploaded zip unpacked safely
(`unpack`), or a folder on disk checked with the same bounds (`check_folder`).

A zip is judged from its central directory before a byte is written: every member's name,
kind, flags, compression method, declared sizes and compression ratio. Only then is it
unpacked, into a fresh staging folder next to the destination, counting the bytes actually
inflated; the staging folder becomes the destination only when every member was written, so
a refused upload leaves nothing behind. Every refusal is an `ArchiveError` naming the member.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import struct
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import IO

MANIFEST = "problem.toml"

# The bounds of a package: problem.toml, statement.md, problem.py, a few hundred hidden boards
# and reference submissions. Each is far above what a real package needs and far below what
# would hurt a worker that stores every version and unpacks one per grading.
MAX_MEMBERS = 2000  # files and folders: 500 boards (manifest.MAX_BOARDS) plus submissions
MAX_FILE_BYTES = 5 << 20  # one file: a problem.py with precomputed tables stays well under
MAX_TOTAL_BYTES = 20 << 20  # the whole package unpacked
# The zip itself: every member stored uncompressed, plus room for its headers.
MAX_ARCHIVE_BYTES = MAX_TOTAL_BYTES + (4 << 20)
MAX_DEPTH = 8  # path components: wrapper/submissions/accepted/a.py is 4
MAX_NAME_BYTES = 255  # one component: NAME_MAX of Linux filesystems, so writing cannot fail on it
# Source and JSON deflate 3 to 20 times; deflate itself tops out near 1032. A member above
# RATIO_FLOOR_BYTES that inflates more than MAX_RATIO times is a bomb, not a package file
# (below the floor a file of one repeated byte is ordinary, and harmless).
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 1 << 20
# Stored and deflate are what every "compress folder" writes; bzip2 and lzma reach ratios of
# a million to one and may be missing from a Python build.
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
# Finder metadata that macOS's "Compress" adds: checked like any member, never written.
SKIPPED_FOLDERS = frozenset({"__MACOSX"})
SKIPPED_FILES = frozenset({".DS_Store"})

_ENCRYPTED = 0x1 | 0x40  # traditional and strong encryption flag bits
_PATCHED = 0x20  # "compressed patched data", which zipfile cannot read
_UTF8_NAME = 0x800
_DRIVE = re.compile(r"[A-Za-z]:")
_KINDS = {
    stat.S_IFLNK: "symbolic link",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
    stat.S_IFIFO: "fifo",
    stat.S_IFSOCK: "socket",
}
_CHUNK = 1 << 16


class ArchiveError(ValueError):
    """A package's files (an uploaded zip, or a folder) that the judge refuses; the message
    says what is wrong and names the member."""


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


def unpack(data: bytes, dest: Path) -> Path:
    """Unpacks the zip `data` into `dest` (which must not exist yet; its parent must) so that
    `dest` holds problem.toml, whether the zip has it at its top level or inside its single
    top-level folder. Returns `dest`; ArchiveError, with nothing written, if it is refused."""
    if len(data) > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"the zip is {len(data)} bytes, over {_mib(MAX_ARCHIVE_BYTES)}")
    if os.path.lexists(dest):
        raise FileExistsError(f"{dest} exists already")
    with _open_zip(data) as archive:
        members = _members(archive)
        root = _package_root(members)
        # mkdtemp: a new name no one else has (so no symlink of anyone's is in the way), 0o700
        # while it is filled, on the destination's filesystem so that the rename is atomic.
        staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=dest.parent))
        try:
            _extract(archive, members, len(root), staging)
            os.chmod(staging, 0o755)
            os.rename(staging, dest)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return dest


def _open_zip(data: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(BytesIO(data))
    except UnicodeDecodeError as exc:  # a name flagged UTF-8 that is not
        raise ArchiveError(f"a member name is not valid UTF-8: {exc.object[:80]!r}") from None
    except (zipfile.BadZipFile, ValueError, EOFError, OSError, struct.error) as exc:
        raise ArchiveError(f"not a zip file, or a corrupt one ({exc})") from None
    except NotImplementedError as exc:
        raise ArchiveError(f"the zip uses a feature the judge does not read ({exc})") from None


@dataclass(frozen=True)
class _Member:
    info: zipfile.ZipInfo
    name: str  # as written in the zip, decoded; no trailing "/"
    parts: tuple[str, ...]
    is_dir: bool

    @property
    def skipped(self) -> bool:
        return self.parts[0] in SKIPPED_FOLDERS or self.parts[-1] in SKIPPED_FILES


def _members(archive: zipfile.ZipFile) -> list[_Member]:
    """Every member, each checked: ArchiveError for the first one refused."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise ArchiveError(f"the zip has {len(infos)} members, at most {MAX_MEMBERS} are allowed")
    if not infos:
        raise ArchiveError("the zip is empty")
    members = []
    budget = _Budget()
    for info in infos:
        raw = _member_name(info)
        name = raw.removesuffix("/")
        parts = _split_name(name, raw)
        is_dir = _check_kind(info, raw)
        _check_flags(info, raw)
        if not is_dir:
            _check_sizes(info, raw)
            budget.add(raw, info.file_size)
        members.append(_Member(info, name, parts, is_dir))
    _check_unique((m.parts, m.is_dir) for m in members)
    return members


def _member_name(info: zipfile.ZipInfo) -> str:
    """The name as written: zipfile decodes a name without the UTF-8 flag as cp437, which
    gives back its bytes exactly, so they can be read as UTF-8 (what Info-ZIP and macOS
    write without the flag). Uses orig_filename: zipfile cuts `filename` at a NUL."""
    name = info.orig_filename
    if info.flag_bits & _UTF8_NAME:
        return name
    raw = name.encode("cp437")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"member name {raw!r} is not valid UTF-8") from None


def _split_name(name: str, shown: str | None = None) -> tuple[str, ...]:
    """The components of a relative, "/"-separated member name, refusing anything that could
    land outside the package or mean different files on different systems."""
    shown = shown if shown is not None else name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a folder's name on disk that is not UTF-8
        raise ArchiveError(f"name {shown!r} is not valid UTF-8") from None
    # Cc: NUL, escapes, newlines; Cf: bidi overrides and zero-width characters that make two
    # names look alike.
    bad = next((c for c in name if unicodedata.category(c) in ("Cc", "Cf")), None)
    if bad is not None:
        raise ArchiveError(f"{shown!r}: control character U+{ord(bad):04X} in a name")
    if "\\" in name:
        raise ArchiveError(f"{shown!r}: backslash in a name (zip names separate with '/')")
    if name.startswith("/"):
        raise ArchiveError(f"{shown!r}: absolute path")
    if _DRIVE.match(name):
        raise ArchiveError(f"{shown!r}: drive letter in a name")
    parts = tuple(name.split("/"))
    for part in parts:
        if part == "..":
            raise ArchiveError(f"{shown!r}: '..' in a name")
        if part in ("", "."):
            raise ArchiveError(f"{shown!r}: empty or '.' component in a name")
        if len(part.encode()) > MAX_NAME_BYTES:
            raise ArchiveError(f"{shown!r}: a component is over {MAX_NAME_BYTES} bytes")
    if len(parts) > MAX_DEPTH:
        raise ArchiveError(f"{shown!r}: nested {len(parts)} deep, at most {MAX_DEPTH}")
    return parts


def _check_kind(info: zipfile.ZipInfo, name: str) -> bool:
    """True for a folder, False for a regular file; ArchiveError for anything else. The
    Unix mode is in the high 16 bits of external_attr (0 from tools that write none)."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    is_dir = name.endswith("/")
    if kind in _KINDS:
        raise ArchiveError(f"{name!r} is a {_KINDS[kind]}: only files and folders are allowed")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise ArchiveError(f"{name!r} has an unknown file type {kind:#o}")
    if kind == stat.S_IFDIR and not is_dir:
        raise ArchiveError(f"{name!r} is marked a folder but its name does not end in '/'")
    if is_dir and (kind == stat.S_IFREG or info.file_size):
        raise ArchiveError(f"{name!r} ends in '/' but is a file")
    return is_dir


def _check_flags(info: zipfile.ZipInfo, name: str) -> None:
    if info.flag_bits & _ENCRYPTED:
        raise ArchiveError(f"{name!r} is encrypted")
    if info.flag_bits & _PATCHED:
        raise ArchiveError(f"{name!r} is compressed patched data, which the judge does not read")
    if info.compress_type not in METHODS:
        raise ArchiveError(
            f"{name!r} is compressed with method {info.compress_type}: "
            f"only {' and '.join(METHODS.values())} are accepted"
        )


def _deflate_bound(size: int) -> int:
    """The most compressed bytes `size` bytes can take: deflate's stored blocks cost 5 bytes
    per block (zlib's deflateBound assumes 16 KiB blocks), plus headers."""
    return size + 5 * (size // 16383 + 1) + 64


def _check_sizes(info: zipfile.ZipInfo, name: str) -> None:
    """The declared sizes, before anything is inflated: the file's own bound, and sizes that
    cannot be true (zipfile stops reading at the declared size, so a member that inflates to
    more than it declares is refused here or by its CRC, never written in full)."""
    size, packed = info.file_size, info.compress_size
    if size > MAX_FILE_BYTES:
        raise ArchiveError(f"{name!r} is {size} bytes unpacked, over {_mib(MAX_FILE_BYTES)}")
    if info.compress_type == zipfile.ZIP_STORED and packed != size:
        raise ArchiveError(f"{name!r} is stored but declares {size} bytes in {packed}")
    if packed > _deflate_bound(size):
        raise ArchiveError(
            f"{name!r} declares {size} bytes unpacked but holds {packed} compressed bytes, "
            "more than that many can take: its declared size is false"
        )
    if size > RATIO_FLOOR_BYTES and size > MAX_RATIO * packed:
        raise ArchiveError(
            f"{name!r} inflates {size // max(packed, 1)} times ({packed} bytes to {size}), "
            f"over {MAX_RATIO}: a zip bomb"
        )


class _Budget:
    """The files and bytes of a package so far, against its bounds."""

    def __init__(self) -> None:
        self.members = 0
        self.total = 0

    def count(self, name: str) -> None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise ArchiveError(f"more than {MAX_MEMBERS} files and folders (at {name!r})")

    def add(self, name: str, size: int) -> None:
        if size > MAX_FILE_BYTES:
            raise ArchiveError(f"{name!r} is {size} bytes, over {_mib(MAX_FILE_BYTES)}")
        self.total += size
        if self.total > MAX_TOTAL_BYTES:
            raise ArchiveError(f"the package is over {_mib(MAX_TOTAL_BYTES)} (at {name!r})")


def _fold(parts: tuple[str, ...]) -> str:
    """One key for names that macOS and Windows take for the same file: case and Unicode
    normalisation (é as one code point or two) folded."""
    return "/".join(
        unicodedata.normalize("NFC", unicodedata.normalize("NFC", p).casefold()) for p in parts
    )


def _check_unique(entries: Iterable[tuple[tuple[str, ...], bool]]) -> None:
    """No two entries (components, is a folder) name the same path, not even in another case
    (they would overwrite each other where case does not matter), and no file is also used
    as a folder."""
    seen: dict[str, str] = {}
    files: dict[str, str] = {}
    listed = list(entries)
    for parts, is_dir in listed:
        name = "/".join(parts) + ("/" if is_dir else "")
        key = _fold(parts)
        if key in seen:
            same = "appears twice" if seen[key] == name else f"and {seen[key]!r} name one path"
            raise ArchiveError(f"{name!r} {same}")
        seen[key] = name
        if not is_dir:
            files[key] = name
    for parts, _ in listed:
        for depth in range(1, len(parts)):
            parent = files.get(_fold(parts[:depth]))
            if parent is not None:
                raise ArchiveError(f"{parent!r} is a file, but {'/'.join(parts)!r} is inside it")


def _package_root(members: list[_Member]) -> tuple[str, ...]:
    """() when problem.toml is at the top of the zip, (folder,) when every member is inside
    one folder that holds it."""
    kept = [m for m in members if not m.skipped]
    files = {m.parts for m in kept if not m.is_dir}
    if (MANIFEST,) in files:
        return ()
    tops = sorted({m.parts[0] for m in kept})
    if len(tops) == 1 and (tops[0], MANIFEST) in files:
        return (tops[0],)
    listed = ", ".join(tops[:10]) + (", ..." if len(tops) > 10 else "")
    raise ArchiveError(
        f"no {MANIFEST} at the top of the zip or in its single top-level folder "
        f"(top level: {listed or 'nothing'})"
    )


def _extract(archive: zipfile.ZipFile, members: list[_Member], strip: int, into: Path) -> None:
    """Writes the members into the empty folder `into`, without their first `strip`
    components, counting the inflated bytes against the bounds again."""
    budget = _Budget()
    for member in members:
        rel = member.parts[strip:]
        if not rel or member.skipped:
            continue
        if member.is_dir:
            _make_folders(into, rel)
            continue
        _make_folders(into, rel[:-1])
        size = _write_member(archive, member, into.joinpath(*rel))
        budget.add(member.name, size)


def _make_folders(into: Path, parts: tuple[str, ...]) -> None:
    for depth in range(1, len(parts) + 1):
        path = into.joinpath(*parts[:depth])
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(path).st_mode):  # lstat: a symlink is no folder
                raise ArchiveError(f"{'/'.join(parts)!r} is inside a file") from None


# O_EXCL with O_CREAT never opens an existing file, and never follows a symlink (nor does
# O_NOFOLLOW): a file is only ever created. 0o644: no exec, setuid or sticky bit comes from
# the zip.
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


# What zipfile raises on a member whose headers or data are broken (a header offset that
# points nowhere gives a negative seek: ValueError). OSError is left out: writing can fail
# for reasons of the server's, not the zip's.
_CORRUPT = (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, struct.error, ValueError)


def _write_member(archive: zipfile.ZipFile, member: _Member, target: Path) -> int:
    try:
        with archive.open(member.info) as source, open(target, "xb", opener=_opener) as out:
            return copy_bounded(source, out, member.info.file_size, member.name)
    except ArchiveError:
        raise
    except _CORRUPT as exc:
        raise ArchiveError(f"{member.name!r} is corrupt: {exc}") from None


def _opener(path: str, _flags: int) -> int:
    return os.open(path, _CREATE, 0o644)


def copy_bounded(source: IO[bytes], out: IO[bytes], declared: int, name: str) -> int:
    """Copies `source` to `out`, counting: ArchiveError as soon as it gives more than the
    `declared` size (a zip's declared size can lie), or when it ends short of it."""
    copied = 0
    while chunk := source.read(_CHUNK):
        copied += len(chunk)
        if copied > declared:
            raise ArchiveError(f"{name!r} inflates past the {declared} bytes it declares")
        out.write(chunk)
    if copied != declared:
        raise ArchiveError(f"{name!r} inflates to {copied} bytes, not the {declared} it declares")
    return copied


def check_folder(folder: Path) -> Path:
    """A package given as a folder on disk (the command line's case), checked with the zip's
    bounds: names, kinds (files, folders, and symlinks only to a file or folder inside the
    package), sizes and count. Returns the resolved folder; ArchiveError if refused."""
    if not folder.is_dir():
        raise ArchiveError(f"{folder} is not a folder")
    root = folder.resolve()
    budget = _Budget()
    entries = []
    for path in _walk(root):
        name = path.relative_to(root).as_posix()
        parts = _split_name(name)
        budget.count(name)
        mode = _folder_entry_mode(root, path, name)
        if stat.S_ISREG(mode):
            budget.add(name, os.stat(path).st_size)
        entries.append((parts, stat.S_ISDIR(mode)))
    _check_unique(entries)
    if not stat.S_ISREG(_folder_entry_mode(root, root / MANIFEST, MANIFEST)):
        raise ArchiveError(f"{MANIFEST} is not a file")
    return root


def _walk(root: Path) -> Iterator[Path]:
    """Every entry under `root`, sorted, not descending into symlinked folders (their targets
    are inside the package, so walked anyway)."""
    for top, folders, files in os.walk(root, onerror=_walk_error):
        folders.sort()
        for name in sorted(folders + files):
            yield Path(top, name)


def _walk_error(error: OSError) -> None:
    raise ArchiveError(f"cannot read {error.filename}: {error.strerror}")


def _folder_entry_mode(root: Path, path: Path, name: str) -> int:
    """The mode of a regular file or a folder, following a symlink only to a target inside
    `root`; ArchiveError for a missing entry, a link outside, a device, fifo or socket."""
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            target = os.path.realpath(path)
            if os.path.commonpath((root, target)) != str(root):
                raise ArchiveError(f"{name!r} is a symbolic link to outside the package")
            mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise ArchiveError(f"{name!r} is missing (or a symbolic link to nothing)") from None
    except OSError as exc:
        raise ArchiveError(f"{name!r} cannot be read: {exc.strerror}") from None
    kind = stat.S_IFMT(mode)
    if kind in _KINDS:
        raise ArchiveError(f"{name!r} is a {_KINDS[kind]}: only files and folders are allowed")
    if kind not in (stat.S_IFREG, stat.S_IFDIR):
        raise ArchiveError(f"{name!r} has an unknown file type {kind:#o}")
    return mode

"""Unpacking an uploaded package zip, and checking a package folder: real zips built here
(hostile ones by hand or by patching their bytes), each refusal's exact message, and nothing
written when a zip is refused."""

from __future__ import annotations

import io
import os
import random
import stat
import struct
import unicodedata
import warnings
import zipfile
import zlib
from pathlib import Path

import pytest

from judge.problems import archive
from judge.problems.archive import ArchiveError, check_folder, copy_bounded, unpack

PACKAGE = {
    "problem.toml": b'slug = "tictactoe"\n',
    "statement.md": b"# Tic-tac-toe\n",
    "problem.py": b"def validate(case):\n    pass\n",
    "boards/b1.json": b'{"board": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}',
}


def make_zip(
    entries: list[tuple[str | zipfile.ZipInfo, bytes]], method: int = zipfile.ZIP_DEFLATED
) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name: some tests want one
        with zipfile.ZipFile(buffer, "w", method) as out:
            for name, data in entries:
                out.writestr(name, data)
    return buffer.getvalue()


def package_zip(*extra: tuple[str | zipfile.ZipInfo, bytes], prefix: str = "") -> bytes:
    return make_zip([(prefix + name, data) for name, data in PACKAGE.items()] + list(extra))


def with_mode(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return info


def patch_member(data: bytes, name: str, **fields: int) -> bytes:
    """`data` with fields of `name`'s local and central headers rewritten: flags, crc,
    compress_size, file_size."""
    offsets = {"flags": (6, 8, "<H"), "crc": (14, 16, "<I"), "file_size": (22, 24, "<I")}
    offsets["compress_size"] = (18, 20, "<I")
    patched = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as read:
        local = read.getinfo(name).header_offset
    central = next(
        at
        for at in range(len(data) - 46)
        if data[at : at + 4] == b"PK\x01\x02"
        and data[at + 46 : at + 46 + len(name.encode())] == name.encode()
    )
    for field, value in fields.items():
        in_local, in_central, form = offsets[field]
        struct.pack_into(form, patched, local + in_local, value)
        struct.pack_into(form, patched, central + in_central, value)
    return bytes(patched)


@pytest.fixture
def dest(tmp_path: Path) -> Path:
    return tmp_path / "package"


def refused(data: bytes, dest: Path) -> str:
    """The refusal's message, after checking that nothing was left next to `dest`."""
    with pytest.raises(ArchiveError) as caught:
        unpack(data, dest)
    assert list(dest.parent.iterdir()) == []
    return str(caught.value)


def files_under(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


# ---- packages that are unpacked ---------------------------------------------------------------


def test_a_zip_with_problem_toml_at_its_top_is_unpacked_into_dest(dest):
    assert unpack(package_zip(), dest) == dest
    assert files_under(dest) == PACKAGE
    assert [p.name for p in dest.parent.iterdir()] == ["package"]  # no staging folder left


def test_a_zip_of_one_folder_is_unpacked_without_that_folder(dest):
    data = make_zip(
        [("tictactoe/", b""), ("tictactoe/boards/", b"")]
        + [(f"tictactoe/{name}", body) for name, body in PACKAGE.items()]
        + [("tictactoe/submissions/accepted/", b"")]
    )
    assert unpack(data, dest) == dest
    assert files_under(dest) == PACKAGE
    assert (dest / "submissions" / "accepted").is_dir()


def test_what_macos_compress_adds_is_left_out(dest):
    data = package_zip(
        ("__MACOSX/tictactoe/._problem.toml", b"\x00\x05\x16\x07"),
        ("tictactoe/.DS_Store", b"Bud1"),
        prefix="tictactoe/",
    )
    unpack(data, dest)
    assert files_under(dest) == PACKAGE


def test_stored_members_are_unpacked_too(dest):
    data = make_zip(list(PACKAGE.items()), zipfile.ZIP_STORED)
    unpack(data, dest)
    assert files_under(dest) == PACKAGE


def test_no_exec_or_setuid_bit_comes_from_the_zip(dest):
    data = package_zip(
        (with_mode("run.sh", stat.S_IFREG | 0o6777), b"#!/bin/sh\n"),
        (with_mode("wide/", stat.S_IFDIR | 0o7777), b""),
    )
    unpack(data, dest)
    file_mode = stat.S_IMODE((dest / "run.sh").stat().st_mode)
    assert file_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH | stat.S_ISUID) == 0
    assert file_mode & (stat.S_ISGID | stat.S_IWOTH) == 0
    folder_mode = stat.S_IMODE((dest / "wide").stat().st_mode)
    assert folder_mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWOTH) == 0


def test_names_in_utf8_without_the_flag_are_read_as_utf8(dest):
    # Info-ZIP and macOS write UTF-8 names without setting the flag: read them as UTF-8.
    data = package_zip(("boards/XX.json", b'{"board": []}'))
    data = data.replace(b"boards/XX.json", "boards/é.json".encode())  # é is two bytes too
    unpack(data, dest)
    assert (dest / "boards" / "é.json").read_bytes() == b'{"board": []}'


def test_an_existing_dest_is_never_written_into(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "package").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(FileExistsError):
        unpack(package_zip(), tmp_path / "package")
    assert list((tmp_path / "elsewhere").iterdir()) == []


# ---- zips that are refused, with nothing written ----------------------------------------------


def test_not_a_zip(dest):
    assert refused(b"PK not really", dest).startswith("not a zip file, or a corrupt one (")


def test_a_truncated_zip(dest):
    data = package_zip()
    assert refused(data[: len(data) // 2], dest).startswith("not a zip file, or a corrupt one")


def test_an_empty_zip(dest):
    assert refused(make_zip([]), dest) == "the zip is empty"


def test_a_zip_over_the_archive_bound(dest):
    size = archive.MAX_ARCHIVE_BYTES + 1
    assert refused(b"\0" * size, dest) == f"the zip is {size} bytes, over 24 MiB"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../evil", "'../evil': '..' in a name"),
        ("boards/../../evil", "'boards/../../evil': '..' in a name"),
        ("/etc/passwd", "'/etc/passwd': absolute path"),
        ("C:/Windows/evil", "'C:/Windows/evil': drive letter in a name"),
        ("c:evil", "'c:evil': drive letter in a name"),
        (
            "boards\\..\\evil",
            "'boards\\\\..\\\\evil': backslash in a name (zip names separate with '/')",
        ),
        ("boards//b2.json", "'boards//b2.json': empty or '.' component in a name"),
        ("./problem.py", "'./problem.py': empty or '.' component in a name"),
        ("a\x1b[31mred", "'a\\x1b[31mred': control character U+001B in a name"),
        ("line\nbreak", "'line\\nbreak': control character U+000A in a name"),
        ("gpj.\u202eexe", "'gpj.\\u202eexe': control character U+202E in a name"),
        ("/".join("d" * 9), "'d/d/d/d/d/d/d/d/d': nested 9 deep, at most 8"),
        ("x" * 256, f"'{'x' * 256}': a component is over 255 bytes"),
    ],
)
def test_a_name_that_could_escape_or_mislead_is_refused(dest, name, message):
    assert refused(package_zip((name, b"x")), dest) == message


def test_a_nul_in_a_name_is_refused_though_zipfile_cuts_the_name_there(dest):
    data = package_zip(("problem.py.X.sh", b"x")).replace(b"problem.py.X.sh", b"problem.py\0X.sh")
    assert refused(data, dest) == "'problem.py\\x00X.sh': control character U+0000 in a name"


def test_a_name_not_in_utf8_is_refused(dest):
    data = package_zip(("bad-XX.txt", b"x")).replace(b"bad-XX.txt", b"bad-\xff\xfe.txt")
    assert refused(data, dest) == "member name b'bad-\\xff\\xfe.txt' is not valid UTF-8"


def test_a_name_flagged_utf8_that_is_not_is_refused(dest):
    data = package_zip(("bad-é.txt", b"x")).replace("é".encode(), b"\xff\xfe")
    assert refused(data, dest) == "a member name is not valid UTF-8: b'bad-\\xff\\xfe.txt'"


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        (stat.S_IFLNK | 0o777, "symbolic link"),
        (stat.S_IFIFO | 0o644, "fifo"),
        (stat.S_IFCHR | 0o644, "character device"),
        (stat.S_IFBLK | 0o644, "block device"),
        (stat.S_IFSOCK | 0o644, "socket"),
    ],
)
def test_a_member_that_is_not_a_file_or_folder_is_refused(dest, mode, kind):
    data = package_zip((with_mode("boards/b2.json", mode), b"/etc/passwd"))
    assert (
        refused(data, dest) == f"'boards/b2.json' is a {kind}: only files and folders are allowed"
    )


def test_a_folder_without_a_slash_and_a_file_with_one_are_refused(dest):
    folder = with_mode("boards2", stat.S_IFDIR | 0o755)
    message = "'boards2' is marked a folder but its name does not end in '/'"
    assert refused(package_zip((folder, b"")), dest) == message
    assert refused(package_zip(("notes/", b"text")), dest) == "'notes/' ends in '/' but is a file"


def test_a_duplicate_name_is_refused(dest):
    data = package_zip(("problem.toml", b'slug = "other"\n'))
    assert refused(data, dest) == "'problem.toml' appears twice"


def test_names_that_differ_only_in_case_or_unicode_form_are_refused(dest):
    assert refused(package_zip(("Problem.TOML", b"")), dest) == (
        "'Problem.TOML' and 'problem.toml' name one path"
    )
    nfc = unicodedata.normalize("NFC", "boards/é.json")
    nfd = unicodedata.normalize("NFD", "boards/é.json")
    message = refused(package_zip((nfc, b"{}"), (nfd, b"{}")), dest)
    assert message == f"{nfd!r} and {nfc!r} name one path"


def test_a_file_that_is_also_a_folder_is_refused(dest):
    data = make_zip([("problem.toml", b""), ("boards", b"x"), ("boards/b1.json", b"{}")])
    assert refused(data, dest) == "'boards' is a file, but 'boards/b1.json' is inside it"
    data = make_zip([("problem.toml", b""), ("boards/", b""), ("boards", b"x")])
    assert refused(data, dest) == "'boards' and 'boards/' name one path"


def test_ten_thousand_members_are_refused(dest):
    data = make_zip([(f"boards/{i}.json", b"{}") for i in range(10_000)], zipfile.ZIP_STORED)
    assert refused(data, dest) == "the zip has 10000 members, at most 2000 are allowed"


def test_a_member_over_the_file_bound_is_refused(dest):
    size = archive.MAX_FILE_BYTES + 1
    data = package_zip(("big.bin", os.urandom(size)))
    assert refused(data, dest) == f"'big.bin' is {size} bytes unpacked, over 5 MiB"


def test_a_package_over_the_total_bound_is_refused(dest):
    chunk = os.urandom(4 << 20)  # incompressible: no ratio to trip over
    data = package_zip(*[(f"data/{i}.bin", chunk) for i in range(5)], prefix="")
    assert refused(data, dest) == "the package is over 20 MiB (at 'data/4.bin')"


def test_a_compression_bomb_is_refused(dest):
    data = package_zip(("boards/huge.json", b"0" * (4 << 20)))
    packed = zipfile.ZipFile(io.BytesIO(data)).getinfo("boards/huge.json").compress_size
    assert refused(data, dest) == (
        f"'boards/huge.json' inflates {(4 << 20) // packed} times ({packed} bytes to "
        f"{4 << 20}), over 100: a zip bomb"
    )


def test_a_declared_size_smaller_than_the_data_can_be_is_refused_before_inflating(dest):
    # The headers claim 100 bytes; the member inflates to 4 MiB.
    data = package_zip(("solver.py", b"#" * (4 << 20)))
    packed = zipfile.ZipFile(io.BytesIO(data)).getinfo("solver.py").compress_size
    data = patch_member(data, "solver.py", file_size=100, crc=zlib.crc32(b"#" * 100))
    assert refused(data, dest) == (
        f"'solver.py' declares 100 bytes unpacked but holds {packed} compressed bytes, "
        "more than that many can take: its declared size is false"
    )


def test_a_false_declared_size_is_caught_while_inflating_and_nothing_is_left(dest):
    text = os.urandom(60_000).hex().encode()  # compresses about 2:1
    data = patch_member(package_zip(("solver.py", text)), "solver.py", file_size=100_000)
    assert refused(data, dest) == "'solver.py' is corrupt: Bad CRC-32 for file 'solver.py'"
    data = patch_member(package_zip(("solver.py", text)), "solver.py", file_size=130_000)
    assert refused(data, dest) == "'solver.py' inflates to 120000 bytes, not the 130000 it declares"


def test_a_member_is_never_written_past_its_declared_size(dest):
    # With a CRC to match, the truncation passes: zipfile stops at the declared size.
    text = os.urandom(60_000).hex().encode()
    data = package_zip(("solver.py", text))
    data = patch_member(data, "solver.py", file_size=100_000, crc=zlib.crc32(text[:100_000]))
    unpack(data, dest)
    assert (dest / "solver.py").read_bytes() == text[:100_000]


def test_the_bytes_inflated_are_counted_against_the_declared_size():
    out = io.BytesIO()
    with pytest.raises(ArchiveError, match=r"^'x' inflates past the 10 bytes it declares$"):
        copy_bounded(io.BytesIO(b"0123456789A"), out, 10, "x")
    with pytest.raises(ArchiveError, match=r"^'x' inflates to 9 bytes, not the 10 it declares$"):
        copy_bounded(io.BytesIO(b"012345678"), out, 10, "x")
    assert copy_bounded(io.BytesIO(b"0123456789"), io.BytesIO(), 10, "x") == 10


def test_a_stored_member_whose_sizes_disagree_is_refused(dest):
    data = make_zip([*PACKAGE.items(), ("a.txt", b"abc")], zipfile.ZIP_STORED)
    data = patch_member(data, "a.txt", compress_size=3, file_size=2)
    assert refused(data, dest) == "'a.txt' is stored but declares 2 bytes in 3"


@pytest.mark.parametrize(("flags", "what"), [(0x1, "is encrypted"), (0x41, "is encrypted")])
def test_an_encrypted_member_is_refused(dest, flags, what):
    data = patch_member(package_zip(("secret.py", b"x = 1\n")), "secret.py", flags=flags)
    assert refused(data, dest) == f"'secret.py' {what}"


def test_patched_data_is_refused(dest):
    data = patch_member(package_zip(("p.bin", b"x")), "p.bin", flags=0x20)
    message = "'p.bin' is compressed patched data, which the judge does not read"
    assert refused(data, dest) == message


@pytest.mark.parametrize(("method", "number"), [(zipfile.ZIP_BZIP2, 12), (zipfile.ZIP_LZMA, 14)])
def test_a_compression_method_other_than_deflate_is_refused(dest, method, number):
    data = make_zip(list(PACKAGE.items()), method)
    assert refused(data, dest) == (
        f"'problem.toml' is compressed with method {number}: only stored and deflate are accepted"
    )


@pytest.mark.parametrize(
    ("names", "top"),
    [
        (["README.md"], "README.md"),
        (["a/problem.toml", "b/problem.toml"], "a, b"),
        (["tictactoe/problem.toml", "extra.txt"], "extra.txt, tictactoe"),
        (["tictactoe/inner/problem.toml"], "tictactoe"),
        (["__MACOSX/problem.toml"], "nothing"),
    ],
)
def test_a_zip_without_problem_toml_where_expected_is_refused(dest, names, top):
    data = make_zip([(name, b"") for name in names])
    assert refused(data, dest) == (
        "no problem.toml at the top of the zip or in its single top-level folder "
        f"(top level: {top})"
    )


# ---- a package as a folder on disk ------------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "tictactoe"
    for name, data in PACKAGE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def folder_refused(folder: Path) -> str:
    with pytest.raises(ArchiveError) as caught:
        check_folder(folder)
    return str(caught.value)


def test_a_package_folder_passes(folder):
    assert check_folder(folder) == folder.resolve()


def test_a_symlink_inside_the_package_passes_and_one_outside_does_not(folder, tmp_path):
    (folder / "boards" / "same.json").symlink_to("b1.json")
    (folder / "more").symlink_to("boards", target_is_directory=True)
    assert check_folder(folder) == folder.resolve()
    (tmp_path / "secret").write_text("x")
    (folder / "statement2.md").symlink_to(tmp_path / "secret")
    message = "'statement2.md' is a symbolic link to outside the package"
    assert folder_refused(folder) == message


def test_a_symlink_to_nothing_is_refused(folder):
    (folder / "boards" / "gone.json").symlink_to("nowhere.json")
    message = "'boards/gone.json' is missing (or a symbolic link to nothing)"
    assert folder_refused(folder) == message


def test_a_fifo_in_a_folder_is_refused(folder):
    os.mkfifo(folder / "pipe")
    assert folder_refused(folder) == "'pipe' is a fifo: only files and folders are allowed"


def test_a_file_over_the_bound_in_a_folder_is_refused(folder):
    with open(folder / "big.bin", "wb") as big:  # sparse: no disk used
        big.truncate(archive.MAX_FILE_BYTES + 1)
    assert folder_refused(folder) == f"'big.bin' is {archive.MAX_FILE_BYTES + 1} bytes, over 5 MiB"


def test_a_folder_over_the_total_bound_is_refused(folder):
    for i in range(5):
        with open(folder / f"data{i}.bin", "wb") as data:
            data.truncate(archive.MAX_FILE_BYTES)
    assert folder_refused(folder) == "the package is over 20 MiB (at 'data4.bin')"


def test_a_folder_with_too_many_files_is_refused(folder):
    for i in range(archive.MAX_MEMBERS):
        (folder / "boards" / f"{i:04}.json").write_bytes(b"{}")
    message = folder_refused(folder)
    assert message.startswith("more than 2000 files and folders (at 'boards/")


def test_a_folder_with_names_alike_but_for_case_is_refused(folder):
    (folder / "Statement.md").write_bytes(b"# Other\n")
    assert folder_refused(folder) == "'statement.md' and 'Statement.md' name one path"


def test_a_folder_with_an_unsafe_or_undecodable_name_is_refused(folder):
    (folder / "a\x1bb").write_bytes(b"")
    assert folder_refused(folder) == "'a\\x1bb': control character U+001B in a name"
    os.remove(folder / "a\x1bb")
    with open(os.path.join(os.fsencode(folder), b"bad-\xff.txt"), "wb"):
        pass
    assert folder_refused(folder) == "name 'bad-\\udcff.txt' is not valid UTF-8"


def test_a_folder_without_problem_toml_is_refused(folder, tmp_path):
    (folder / "problem.toml").unlink()
    assert folder_refused(folder) == "'problem.toml' is missing (or a symbolic link to nothing)"
    assert folder_refused(tmp_path / "nowhere") == f"{tmp_path / 'nowhere'} is not a folder"


def test_a_zip_with_random_bytes_changed_is_unpacked_or_refused_and_nothing_else(tmp_path):
    # Fixed seeds: among these, a header offset that points before the zip (a negative seek,
    # ValueError inside zipfile) and names whose local and central copies differ.
    base = package_zip()
    for seed in range(1500):
        rng = random.Random(seed)
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        dest = tmp_path / f"package{seed}"
        try:
            unpack(bytes(data), dest)
        except ArchiveError:
            assert not os.path.lexists(dest)
    assert [p for p in tmp_path.iterdir() if not p.name.startswith("package")] == []

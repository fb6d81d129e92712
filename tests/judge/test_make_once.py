"""make_once: what a toolchain needs made once (a precompiled header, the JVM drivers'
runtime) appears whole, readable by the sandbox's uids, and replaces older toolchains'."""

from __future__ import annotations

import os
import stat

import pytest

from judge.languages.base import make_once


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_what_is_made_is_renamed_into_place_readable_and_older_folders_go(tmp_path):
    (tmp_path / "old-toolchain").mkdir()
    (tmp_path / "lock").touch()
    (tmp_path / "making-someone-else").mkdir()  # another process still at work

    def make(work: str) -> str:
        os.makedirs(os.path.join(work, "classes", "pkg"), mode=0o700)
        with open(os.path.join(work, "classes", "pkg", "A.class"), "w") as f:
            f.write("made")
        os.chmod(os.path.join(work, "classes", "pkg", "A.class"), 0o600)
        return os.path.join(work, "classes")

    make_once(str(tmp_path), str(tmp_path / "new-toolchain"), make, keep="lock")

    made = tmp_path / "new-toolchain"
    assert (made / "pkg" / "A.class").read_text() == "made"
    assert mode(made) == mode(made / "pkg") == 0o755
    assert mode(made / "pkg" / "A.class") == 0o644
    assert sorted(os.listdir(tmp_path)) == ["lock", "making-someone-else", "new-toolchain"]


def test_a_folder_another_process_published_first_stays(tmp_path):
    theirs = tmp_path / "toolchain"
    theirs.mkdir()
    (theirs / "file").write_text("theirs")

    def make(work: str) -> str:
        with open(os.path.join(work, "file"), "w") as f:
            f.write("mine")
        return work

    make_once(str(tmp_path), str(theirs), make)
    assert (theirs / "file").read_text() == "theirs"
    assert os.listdir(tmp_path) == ["toolchain"]  # our work folder is gone


def test_a_failed_make_leaves_nothing_and_removes_nothing(tmp_path):
    (tmp_path / "old-toolchain").mkdir()

    def make(work: str) -> str:
        with open(os.path.join(work, "half"), "w") as f:
            f.write("part")
        raise OSError("the compiler is gone")

    with pytest.raises(OSError, match="the compiler is gone"):
        make_once(str(tmp_path), str(tmp_path / "new-toolchain"), make)
    assert os.listdir(tmp_path) == ["old-toolchain"]  # still usable by an older judge

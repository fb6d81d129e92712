"""The README and docs/ say what is there: the README's layout map names paths that exist and
names every package and every room of judge/; every relative link in the README and docs/
reaches a file (and a heading, when it names one); docs/configuration.md's table lists exactly
the JUDGE_* variables `Settings` reads."""

from __future__ import annotations

import re
from pathlib import Path

from config import Settings

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
ENTRY = re.compile(r"^(?P<indent> *)(?P<path>\S+) {2,}(?P<what>\S.*)$")
LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def section(text: str, heading: str) -> str:
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def layout_map() -> list[str]:
    """The paths the README's map names, each relative to the repository's root."""
    block = section(README.read_text(), "## Layout").split("```text\n", 1)[1].split("\n```", 1)[0]
    paths: list[str] = []
    parents: list[str] = []  # the directory entries above the current line, one per level
    for line in block.splitlines():
        entry = ENTRY.match(line)
        assert entry, f"not a `path  description` line: {line!r}"
        indent = len(entry["indent"])
        assert indent % 2 == 0 and indent // 2 <= len(parents), f"badly indented: {line!r}"
        del parents[indent // 2 :]
        path = "".join(parents) + entry["path"]
        paths.append(path)
        if path.endswith("/"):
            parents.append(entry["path"])
    return paths


def test_every_path_in_the_map_exists():
    for path in layout_map():
        where = REPO / path
        assert where.is_dir() if path.endswith("/") else where.is_file(), path


def test_the_map_names_every_package_and_every_room_of_the_judge():
    named = set(layout_map())
    packages = {f"{p.name}/" for p in REPO.iterdir() if (p / "__init__.py").is_file()}
    assert packages <= named, packages - named
    judge = REPO / "judge"
    rooms = {
        f"{p.parent.relative_to(REPO).as_posix()}/"
        for p in judge.rglob("__init__.py")
        if p.parent != judge
    }
    assert rooms <= named, rooms - named
    entry_points = ("__init__.py", "__main__.py")
    modules = {f"judge/{p.name}" for p in judge.glob("*.py") if p.name not in entry_points}
    assert modules <= named, modules - named


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found, fenced = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def test_every_relative_link_reaches_a_file_and_its_heading():
    for document in (README, *DOCS):
        text = document.read_text()
        assert "../shared/" not in text, document
        for link in LINK.finditer(text):
            target = link["target"]
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            where = (document.parent / file).resolve() if file else document
            assert where.is_relative_to(REPO) and where.exists(), f"{document.name}: {target}"
            if anchor:
                assert anchor in anchors(where), f"{document.name}: {target}"


def test_the_configuration_table_lists_every_setting():
    table = section((REPO / "docs" / "configuration.md").read_text(), "## Environment variables")
    listed = {
        name
        for row in table.splitlines()
        if row.startswith("| `")
        for name in re.findall(r"`(JUDGE_[A-Z_]+)`", row.split(" | ", 1)[0])
    }
    read = {f"JUDGE_{name.upper()}" for name in Settings.model_fields}
    assert listed == read, (sorted(read - listed), sorted(listed - read))


# A path the project's code lives under, as the prose names one ("judge/grading/plan.py").
NAMED_PATH = re.compile(r"(?<![\w/.])((?:judge|store|api|worker|config|bench|tests)/[\w./-]*[\w/])")
GENERATED = {"tests/artifacts"}  # made by a test run, not in the tree


def test_every_path_the_prose_names_exists():
    # A move that forgets the docs leaves them describing a tree that is gone.
    missing = [
        f"{doc.name}: {path}"
        for doc in (README, *DOCS)
        for path in NAMED_PATH.findall(doc.read_text())
        if path.rstrip("/") not in GENERATED and not (REPO / path).exists()
    ]
    assert missing == []

"""The labelled set of the similarity benchmark: accepted solutions in the repository (and
bench/similarity_solutions/, independent solutions of the same textbook algorithms written
for it), each copied with the usual disguises, generated here deterministically.

Positives: a solution and a disguised copy of it, and two copies of one solution.
Negatives: two independent solutions of one problem in one language (the hard ones: the
same recurrence written by different hands), and a copy of one with another.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Name

ROOT = Path(__file__).resolve().parent.parent
EXTENSIONS = {".py": "python", ".cpp": "cpp", ".java": "java", ".kt": "kotlin"}
PROBLEMS = ("footholds", "numbergame", "subtraction", "stonegame", "blockgame")
SOURCES = (
    "problems/*/submissions/accepted/*",
    "tests/submissions/accepted/*",
    "tests/submissions/*/accepted/*",
    "tests/service/solutions/*_ok*",
    "bench/similarity_solutions/*",
)


@dataclass(frozen=True)
class Doc:
    name: str
    problem: str
    language: str
    source: str
    original: str  # the solution it was made from (itself for an original)


def originals() -> list[Doc]:
    docs = []
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            language = EXTENSIONS.get(path.suffix)
            problem = path.name.split("_")[0]
            if language is None or problem not in PROBLEMS:
                continue
            name = str(path.relative_to(ROOT))
            docs.append(Doc(name, problem, language, path.read_text(), name))
    return docs


# -- disguises: each takes a source and a random generator, returns the disguised source ----
KEEP_NAMES = {"solution", "Solution", "main", "Main"}
COMMENT = {"python": "#", "cpp": "//", "java": "//", "kotlin": "//"}
DEAD_CODE = {
    "python": ["unused_total = 0", "if False:\n{i}    print('debug')", "scratch = []"],
    "cpp": ["int unusedTotal = 0;", "if (false) { cerr << 1; }", "vector<int> scratch;"],
    "java": [
        "int unusedTotal = 0;",
        "if (false) { System.out.println(1); }",
        "int[] scratch = {};",
    ],
    "kotlin": [
        "val unusedTotal = 0",
        "if (false) { println(1) }",
        "val scratch = ArrayList<Int>()",
    ],
}
WORDS = ["alpha", "beta", "count", "acc", "tmp", "val", "cell", "node", "memo", "res", "aux"]


def rename(source: str, language: str, rng: random.Random) -> str:
    """Every identifier declared or used (not an attribute) gets a new name."""
    names: dict[str, str] = {}
    out = []
    previous = ""
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
    tokens = list(lexer.get_tokens(source))
    # names a library gives (imported, built in, decorators) keep theirs, as a copier's must
    imported = {v for k, v in tokens if k in Name.Namespace or k in Name.Builtin}
    for line in source.splitlines():
        if line.lstrip().startswith(("import ", "from ", "#include")):
            imported.update(re.findall(r"\w+", line))
    for kind, value in tokens:
        if (
            kind in Name
            and kind not in Name.Builtin
            and kind not in Name.Decorator
            and value not in KEEP_NAMES | imported
            and previous != "."
            and value[:1].islower()
        ):
            if value not in names:
                names[value] = f"{rng.choice(WORDS)}{len(names)}"
            value = names[value]
        out.append(value)
        if value.strip():
            previous = value
    return "".join(out)


def recomment(source: str, language: str, rng: random.Random) -> str:
    """Comments dropped, new ones written, blank lines and indentation changed."""
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
    text = "".join(v for k, v in lexer.get_tokens(source) if k not in Comment.Single)
    lines = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if language != "python":
            line = line.replace("    ", "  ")  # two-space indentation
        lines.append(line)
        if rng.random() < 0.25:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(f"{indent}{COMMENT[language]} step {rng.randint(1, 99)}: see notes")
        if rng.random() < 0.2:
            lines.append("")
    return "\n".join(lines) + "\n"


def _blocks(lines: list[str], language: str) -> list[tuple[int, int]]:
    """Line ranges of the top-level functions (Python, C++) or methods (Java, Kotlin)."""
    indent = "" if language in ("python", "cpp") else "    "
    header = re.compile(rf"^{indent}(def |fun |private |public |static |int |bool |long |void )")
    starts = [i for i, line in enumerate(lines) if header.match(line) and "(" in line]
    blocks = []
    for start in starts:
        end = start + 1
        while end < len(lines) and (
            not lines[end].strip()
            or lines[end].startswith(indent + " ")
            or lines[end].startswith(indent + "\t")
        ):
            end += 1
        if language != "python" and end < len(lines) and lines[end].strip() == "}":
            end += 1  # the closing brace
        blocks.append((start, end))
    return blocks


def reorder(source: str, language: str, rng: random.Random) -> str:
    """Two functions swapped (when the source has two at the same level)."""
    lines = source.splitlines()
    blocks = [b for b in _blocks(lines, language) if b[1] - b[0] > 1]
    if len(blocks) < 2:
        return source
    (a0, a1), (b0, b1) = blocks[0], blocks[1]
    if a1 > b0:
        return source
    swapped = lines[:a0] + lines[b0:b1] + lines[a1:b0] + lines[a0:a1] + lines[b1:]
    return "\n".join(swapped) + "\n"


def insert_dead_code(source: str, language: str, rng: random.Random) -> str:
    """A dead statement or two at the start of blocks."""
    lines = source.splitlines()
    opening = [
        i
        for i, line in enumerate(lines)
        if line.rstrip().endswith(":" if language == "python" else "{") and i + 1 < len(lines)
    ]
    for i in sorted(rng.sample(opening, min(2, len(opening))), reverse=True):
        body = lines[i + 1]
        indent = body[: len(body) - len(body.lstrip())]
        statement = rng.choice(DEAD_CODE[language]).replace("{i}", indent)
        lines.insert(i + 1, indent + statement)
    return "\n".join(lines) + "\n"


def extract_helper(source: str, language: str, rng: random.Random) -> str:
    """One right-hand side moved into a helper function called in its place."""
    lines = source.splitlines()
    assign = re.compile(r"^(\s+)(\w[\w\[\] .]*?) = (.+?)(;?)$")
    candidates = [i for i, line in enumerate(lines) if assign.match(line) and "(" in line]
    if not candidates:
        return source
    i = rng.choice(candidates)
    match = assign.match(lines[i])
    assert match is not None
    indent, target, value, semi = match.groups()
    lines[i] = f"{indent}{target} = pick({value}){semi}"
    helper = {
        "python": ["def pick(value):", "    return value", "", ""],
        "cpp": ["template <class T> T pick(T value) {", "    return value;", "}", ""],
        "java": ["    static <T> T pick(T value) {", "        return value;", "    }", ""],
        "kotlin": ["fun <T> pick(value: T): T {", "    return value", "}", ""],
    }[language]
    if language == "java":
        at = next((j + 1 for j, line in enumerate(lines) if line.startswith("class ")), 0)
    else:
        at = next((j for j, line in enumerate(lines) if _blocks([line], language)), 0)
    return "\n".join(lines[:at] + helper + lines[at:]) + "\n"


def rewrite_loop(source: str, language: str, rng: random.Random) -> str:
    """A counted for loop written as a while loop."""
    lines = source.splitlines()
    if language == "python":
        loop = re.compile(r"^(\s*)for (\w+) in range\(([^,()]+), ([^()]+(?:\([^()]*\))?[^()]*)\):$")
    elif language == "kotlin":
        loop = re.compile(r"^(\s*)for \((\w+) in ([^.]+)\.\.([^)]+(?:\([^)]*\))?)\) \{$")
    else:
        loop = re.compile(
            r"^(\s*)for \(int (\w+) = ([^;]+); \w+ <=? ([^;]+); (?:\+\+\w+|\w+\+\+)\) \{$"
        )
    for i, line in enumerate(lines):
        match = loop.match(line)
        if match is None:
            continue
        indent, var, low, high = match.groups()
        end = i + 1
        while end < len(lines) and (not lines[end].strip() or lines[end].startswith(indent + " ")):
            end += 1
        body = lines[i + 1 : end]
        step = (
            indent
            + "    "
            + {"python": f"{var} += 1", "kotlin": f"{var}++"}.get(language, f"{var}++;")
        )
        if language == "python":
            head = [f"{indent}{var} = {low}", f"{indent}while {var} < {high}:"]
            return "\n".join(lines[:i] + head + body + [step] + lines[end:]) + "\n"
        cmp = "<=" if language == "kotlin" or "<=" in line else "<"
        decl = {"kotlin": "var", "cpp": "int", "java": "int"}[language]
        semi = "" if language == "kotlin" else ";"
        head = [f"{indent}{decl} {var} = {low}{semi}", f"{indent}while ({var} {cmp} {high}) {{"]
        return "\n".join(lines[:i] + head + body + [step] + lines[end:]) + "\n"
    return source


DISGUISES: dict[str, Callable[[str, str, random.Random], str]] = {
    "rename": rename,
    "recomment": recomment,
    "reorder": reorder,
    "dead code": insert_dead_code,
    "helper": extract_helper,
    "loop": rewrite_loop,
}

# Each copy: renamed and recommented (every plagiarist does that) plus two of the others.
STRUCTURAL = ("reorder", "dead code", "helper", "loop")


def copies(doc: Doc, rng: random.Random, count: int = 2) -> list[Doc]:
    made = []
    for n in range(count):
        chosen = ["rename", *rng.sample(STRUCTURAL, 2), "recomment"]
        text = doc.source
        for name in chosen:
            text = DISGUISES[name](text, doc.language, rng)
        made.append(
            Doc(
                f"{doc.name} copy {n + 1} ({', '.join(chosen)})",
                doc.problem,
                doc.language,
                text,
                doc.name,
            )
        )
    return made


@dataclass(frozen=True)
class Pair:
    a: Doc
    b: Doc
    copied: bool


def labelled_pairs(seed: int = 27) -> list[Pair]:
    rng = random.Random(seed)
    bases = originals()
    made = {doc.name: copies(doc, rng) for doc in bases}
    pairs = []
    for doc in bases:
        first, second = made[doc.name]
        pairs += [Pair(doc, first, True), Pair(doc, second, True), Pair(first, second, True)]
    for x, y in combinations(bases, 2):
        if x.problem != y.problem or x.language != y.language:
            continue
        pairs.append(Pair(x, y, False))
        pairs.append(Pair(made[x.name][0], y, False))
    return pairs

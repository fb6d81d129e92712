"""A problem package's declarations: problem.toml read into a typed `Manifest`, statement.md,
and the hidden boards in boards/.

Validation collects every problem, not just the first, each naming where it is: a key path in
problem.toml (`limits.time_s: must be a positive number (got "1s")`) or a file
(`boards/b1.json: ...`), so an instructor fixes a package in one round. Unknown keys are
refused by name: a typo must not be silently ignored. The folder read is one that
`archive.unpack` wrote or `archive.check_folder` accepted (no symlink out, no device, bounded).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.answers import ListType, ValueType, parse_type
from judge.problems import kept
from judge.problems.spec import Limits, View

# "json" (an editor made from the signature) always works; the others are the renderers of
# the web pages (VIEWS in api/web/static/js/boards.js).
VIEW_KINDS = ("json", "grid-two-pieces", "number-row")

# Each name's pattern, and how a message says it.
SLUG = (
    re.compile(r"[a-z][a-z0-9_]{1,31}"),
    "2 to 32 lowercase letters, digits and underscores, starting with a letter",
)
# A parameter becomes an argument name in every offered language.
PARAM_NAME = (
    re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}"),
    "1 to 32 letters, digits and underscores, starting with a letter",
)
# A profile name is passed to generate() and shown in reports and on the command line.
PROFILE_NAME = (
    re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,39}"),
    "1 to 40 letters, digits, '_', '.' and '-', starting with a letter, digit or '_'",
)
MAX_TITLE = 80
MAX_PARAMS = 8
MAX_TYPE_NAME = 40
# Limits: footholds, the slowest built-in, needs 10 s per test; Python with the harness needs
# about 20 MiB before the solution allocates anything, and a worker runs several tests at a
# time; a grading past 10 minutes holds a worker a class is waiting for.
MAX_TIME_S = 10.0
MIN_MEMORY_MB, MAX_MEMORY_MB = 32, 1024
MAX_TOTAL_S = 600.0
DEFAULT_LIMITS = Limits(time_s=1.0, memory_mb=256, total_s=60.0)
# Every random board is a test of every submission, and has its answer computed.
MAX_RANDOM = 500
MAX_PROFILES = 32
MAX_SAMPLES = 20  # the statement's examples, each run on the problem page
MAX_BOUNDS = 16
# File bounds: the statement is text (no images); problem.toml may carry sample boards; a
# hidden board is one test's case, and each is a test of every submission.
MAX_MANIFEST_BYTES = 1 << 20
MAX_STATEMENT_BYTES = 256 << 10
MAX_BOARDS = 500
MAX_BOARD_BYTES = 1 << 20

# Each table's keys: True when required.
_TOP = {
    "slug": True,
    "title": True,
    "signature": True,
    "limits": False,
    "plan": True,
    "view": False,
    "samples": True,
}
_SIGNATURE = {"params": True, "returns": True}
_PARAM = {"name": True, "type": True}
_LIMITS = {"time_s": False, "memory_mb": False, "total_s": False}
_PLAN = {"random": True, "profiles": True}
_VIEW = {"kind": True, "bounds": False}
_SAMPLE = {"input": True, "answer": True}
# Text other than tab, newline and carriage return below U+0020, and DEL: NUL is refused by
# PostgreSQL text, the rest are terminal escapes.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class ManifestError(ValueError):
    """A package whose declarations are refused: `problems` lists every one found, each naming
    its key path or file."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Param:
    name: str
    type: ValueType


@dataclass(frozen=True)
class Manifest:
    slug: str
    title: str
    params: tuple[Param, ...]  # the arguments of `solution`, in order
    returns: ValueType
    limits: Limits
    random_count: int  # random boards per submission
    profiles: Mapping[str, float]  # generate()'s profile names -> weights, all positive
    view: View
    samples: tuple[dict[str, Any], ...]  # {"input": case, "answer": answer}, as ProblemSpec

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def param_types(self) -> dict[str, ValueType]:
        return {p.name: p.type for p in self.params}

    def spec_fields(self, statement: str) -> dict[str, Any]:
        """The ProblemSpec fields the manifest declares (and the statement): the same for
        a problem bound to its code (bind.py) and one read from its declarations alone
        (declared.py)."""
        return {
            "SLUG": self.slug,
            "TITLE": self.title,
            "STATEMENT": statement,
            "PARAMS": self.param_names,
            "PARAM_TYPES": self.param_types,
            "ANSWER": self.returns,
            "VIEW": self.view,
            "LIMITS": self.limits,
            "SAMPLES": list(self.samples),
            "PROFILES": dict(self.profiles),
            "RANDOM_COUNT": self.random_count,
        }


@dataclass(frozen=True)
class Board:
    name: str  # the file's name in boards/
    case: dict[str, Any]


def shown(value: Any, limit: int = 60) -> str:
    """A value in a message, written as TOML and JSON write it, cut to `limit`."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = repr(value) if math.isfinite(value) else str(value)
    else:
        text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _key(key: str) -> str:
    """A key as a TOML path writes it: bare, or quoted."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _article(name: str) -> str:
    return "an" if name[:1] in tuple("aeiou") else "a"


class _Checker:
    """The problems found so far; each helper returns the value read, or None when it is
    missing or wrong (and says so)."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, path: str, message: str) -> None:
        self.problems.append(f"{path or 'problem.toml'}: {message}")

    def table(self, value: Any, path: str, keys: Mapping[str, bool]) -> dict[str, Any] | None:
        """A table with only `keys`, the required ones present."""
        if not isinstance(value, dict):
            self.fail(path, f"must be a table (got {shown(value)})")
            return None
        for key in value:
            if key not in keys:
                self.fail(path, f"unknown key {key!r} (known: {', '.join(keys)})")
        for key, required in keys.items():
            if required and key not in value:
                self.fail(_at(path, key), "missing (required)")
        return value

    def text(
        self, value: Any, path: str, form: tuple[re.Pattern[str], str] | None = None
    ) -> str | None:
        """A string, of the `form` (a pattern, and how it reads) if given."""
        if not isinstance(value, str):
            self.fail(path, f"must be a string (got {shown(value)})")
        elif form is not None and not form[0].fullmatch(value):
            self.fail(path, f"must be {form[1]} (got {shown(value)})")
        else:
            return value
        return None

    def number(self, value: Any, path: str, low: float, high: float, unit: str) -> float | None:
        """A finite int or float in (low, high]."""
        is_number = type(value) in (int, float) and math.isfinite(value)
        if not is_number or value <= low:
            what = "a positive number" if low == 0 else f"a number above {low:g}"
            self.fail(path, f"must be {what} (got {shown(value)})")
        elif value > high:
            self.fail(path, f"must be at most {high:g}{unit} (got {shown(value)})")
        else:
            return float(value)
        return None

    def integer(self, value: Any, path: str, low: int, high: int) -> int | None:
        if type(value) is not int:
            self.fail(path, f"must be an integer (got {shown(value)})")
        elif not low <= value <= high:
            self.fail(path, f"must be between {low} and {high} (got {shown(value)})")
        else:
            return value
        return None


def parse_manifest(
    text: str, view_kinds: Collection[str] = VIEW_KINDS, *, keep: bool = False
) -> Manifest:
    """The manifest problem.toml's `text` declares; ManifestError listing every problem.
    `view_kinds`: the view kinds the judge offers. `keep`: a built-in package's, whose table
    is kept between processes (toml_table)."""
    doc = toml_table(text.removeprefix("\ufeff"), keep=keep)
    check = _Checker()
    check.table(doc, "", _TOP)
    slug = check.text(doc.get("slug"), "slug", SLUG) if "slug" in doc else None
    title = _title(check, doc["title"]) if "title" in doc else None
    params, returns = _signature(check, doc.get("signature"))
    limits = _limits(check, doc.get("limits", {}))
    random_count, profiles = _plan(check, doc.get("plan"))
    view = _view(check, doc.get("view", {"kind": "json"}), view_kinds)
    samples = _samples(check, doc.get("samples"), params, returns)
    if check.problems:
        raise ManifestError(check.problems)
    assert slug and title and params and returns and limits and random_count is not None
    assert profiles and view and samples is not None
    typed = tuple(Param(name, kind) for name, kind in params.items() if kind is not None)
    return Manifest(slug, title, typed, returns, limits, random_count, profiles, view, samples)


def toml_table(text: str, folder: str | None = None, *, keep: bool = True) -> dict[str, Any]:
    """problem.toml's table, or ManifestError when it is not TOML. With `keep`, kept between
    processes as JSON (judge/problems/kept.py, in `folder`, default its own), by the text's
    digest: tomllib and parsing were about 6 ms of a command line grading. A table JSON does
    not give back alike (a TOML date) is not kept."""
    name = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() + ".toml.json"
    data = kept.read(name, folder) if keep else None
    if data is not None:
        with contextlib.suppress(ValueError):
            doc = json.loads(data)
            if isinstance(doc, dict):
                return doc
    import tomllib  # here: a kept table needs none of it

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError([f"problem.toml: not valid TOML: {exc}"]) from None
    if keep:
        with contextlib.suppress(TypeError, ValueError):
            encoded = json.dumps(doc, allow_nan=False)
            if json.loads(encoded) == doc:
                kept.write(name, encoded.encode(), folder)
    return doc


def read_manifest(
    folder: Path, view_kinds: Collection[str] = VIEW_KINDS, *, keep: bool = False
) -> Manifest:
    """The manifest of the package in `folder` (its problem.toml); `keep` as parse_manifest."""
    data = _read_file(folder / "problem.toml", "problem.toml", MAX_MANIFEST_BYTES)
    return parse_manifest(_decode(data, "problem.toml"), view_kinds, keep=keep)


def _title(check: _Checker, value: Any) -> str | None:
    title = check.text(value, "title")
    if title is None:
        return None
    if (
        not title.strip()
        or len(title) > MAX_TITLE
        or _CONTROL.search(title)
        or "\n" in title
        or "\r" in title
    ):
        check.fail("title", f"must be one line of 1 to {MAX_TITLE} characters (got {shown(title)})")
        return None
    return title


def _signature(
    check: _Checker, value: Any
) -> tuple[dict[str, ValueType | None] | None, ValueType | None]:
    """The parameters (name -> type; None for a type that is wrong, so that samples can still
    be checked for their keys) and the return type."""
    table = check.table(value, "signature", _SIGNATURE) if value is not None else None
    if table is None:
        return None, None
    returns = (
        _value_type(check, table["returns"], "signature.returns") if "returns" in table else None
    )
    listed = table.get("params")
    if listed is None:
        return None, returns
    if not isinstance(listed, list) or not 1 <= len(listed) <= MAX_PARAMS:
        check.fail(
            "signature.params", f"must list 1 to {MAX_PARAMS} parameters (got {shown(listed)})"
        )
        return None, returns
    params: dict[str, ValueType | None] = {}
    for i, entry in enumerate(listed):
        path = f"signature.params[{i}]"
        param = check.table(entry, path, _PARAM)
        if param is None or "name" not in param:
            continue
        check.text(param["name"], f"{path}.name", PARAM_NAME)
        # A name of the wrong form is still the key samples use: kept, to check them by it.
        name = param["name"] if isinstance(param["name"], str) else None
        if name is not None and name in params:
            check.fail(f"{path}.name", f"{name!r} names two parameters")
        elif name is not None:
            params[name] = (
                _value_type(check, param["type"], f"{path}.type") if "type" in param else None
            )
    return params, returns


def _value_type(check: _Checker, value: Any, path: str) -> ValueType | None:
    name = check.text(value, path)
    if name is None:
        return None
    if len(name) > MAX_TYPE_NAME:  # parse_type recurses once per "[]"
        check.fail(path, f"must be a type name of at most {MAX_TYPE_NAME} characters")
        return None
    try:
        return parse_type(name)
    except ValueError as exc:  # its message names the type and the known ones
        check.fail(path, str(exc))
        return None


def _limits(check: _Checker, value: Any) -> Limits | None:
    table = check.table(value, "limits", _LIMITS)
    if table is None:
        return None
    default = DEFAULT_LIMITS
    time_s = check.number(table.get("time_s", default.time_s), "limits.time_s", 0, MAX_TIME_S, " s")
    memory_mb = check.integer(
        table.get("memory_mb", default.memory_mb), "limits.memory_mb", MIN_MEMORY_MB, MAX_MEMORY_MB
    )
    total_s = check.number(
        table.get("total_s", default.total_s), "limits.total_s", 0, MAX_TOTAL_S, " s"
    )
    if time_s is None or memory_mb is None or total_s is None:
        return None
    if total_s < time_s:
        check.fail("limits.total_s", f"must be at least limits.time_s ({time_s:g} s)")
        return None
    return Limits(time_s=time_s, memory_mb=memory_mb, total_s=total_s)


def _plan(check: _Checker, value: Any) -> tuple[int | None, dict[str, float] | None]:
    table = check.table(value, "plan", _PLAN) if value is not None else None
    if table is None:
        return None, None
    random_count = None
    if "random" in table:
        random_count = check.integer(table["random"], "plan.random", 0, MAX_RANDOM)
    weights = table.get("profiles")
    if weights is None:
        return random_count, None
    if not isinstance(weights, dict) or not 1 <= len(weights) <= MAX_PROFILES:
        check.fail("plan.profiles", f"must name 1 to {MAX_PROFILES} profiles with their weights")
        return random_count, None
    profiles: dict[str, float] = {}
    for name, weight in weights.items():
        path = f"plan.profiles.{_key(name)}"
        if not PROFILE_NAME[0].fullmatch(name):
            check.fail(path, f"a profile name must be {PROFILE_NAME[1]}")
        weight = check.number(weight, path, 0, math.inf, "")
        if weight is not None and PROFILE_NAME[0].fullmatch(name):
            profiles[name] = weight
    return random_count, profiles if len(profiles) == len(weights) else None


def _view(check: _Checker, value: Any, kinds: Collection[str]) -> View | None:
    table = check.table(value, "view", _VIEW)
    if table is None or "kind" not in table:
        return None
    kind = check.text(table["kind"], "view.kind")
    if kind is not None and kind not in kinds:
        check.fail("view.kind", f"unknown view kind {kind!r} (known: {', '.join(kinds)})")
        kind = None
    bounds = table.get("bounds", {})
    if not isinstance(bounds, dict) or len(bounds) > MAX_BOUNDS:
        check.fail("view.bounds", f"must be a table of at most {MAX_BOUNDS} integers")
        return None
    wrong = [key for key, bound in bounds.items() if type(bound) is not int]
    for key in wrong:
        check.fail(f"view.bounds.{_key(key)}", f"must be an integer (got {shown(bounds[key])})")
    return View(kind, dict(bounds)) if kind is not None and not wrong else None


def _samples(
    check: _Checker,
    value: Any,
    params: Mapping[str, ValueType | None] | None,
    returns: ValueType | None,
) -> tuple[dict[str, Any], ...] | None:
    """The [[samples]]: each input has exactly the parameters, of their declared types, and
    the answer is of the return type (checked as far as the signature could be read)."""
    if value is None:
        return None
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_SAMPLES:
        check.fail("samples", f"must be 1 to {MAX_SAMPLES} [[samples]] tables (got {shown(value)})")
        return None
    samples = []
    for i, entry in enumerate(value):
        path = f"samples[{i}]"
        sample = check.table(entry, path, _SAMPLE)
        if sample is None:
            continue
        if "input" in sample and params is not None:
            check.problems += case_problems(sample["input"], params, f"{path}.input", ".")
        if "answer" in sample and returns is not None:
            wrong = type_problem(sample["answer"], returns, f"{path}.answer")
            check.problems += [wrong] if wrong else []
        samples.append({"input": sample.get("input"), "answer": sample.get("answer")})
    return tuple(samples)


def case_problems(
    case: Any, params: Mapping[str, ValueType | None], where: str, separator: str
) -> list[str]:
    """What is wrong with a case: keys other than exactly the parameters, values not of their
    declared types (a parameter whose type is None is checked for presence only). Paths are
    `where`, then `separator`, then the parameter (and the index of a wrong item)."""
    if not isinstance(case, dict):
        names = ", ".join(params)
        return [f"{where}: must be an object keyed by the parameters ({names}), got {shown(case)}"]
    problems = [f"{where}: missing parameter {name!r}" for name in params if name not in case]
    problems += [f"{where}: unknown parameter {key!r}" for key in case if key not in params]
    for name, declared in params.items():
        if name in case and declared is not None:
            wrong = type_problem(case[name], declared, f"{where}{separator}{name}")
            problems += [wrong] if wrong else []
    return problems


def type_problem(value: Any, declared: ValueType, path: str) -> str | None:
    """None when `value` is of the declared type, else a message naming the first wrong item
    of a list (`board[1][2]: must be an int (got 1.5)`)."""
    if declared.accepts(value):
        return None
    if isinstance(declared, ListType) and type(value) is list:
        for i, item in enumerate(value):
            wrong = type_problem(item, declared.item, f"{path}[{i}]")
            if wrong:
                return wrong
    return f"{path}: must be {_article(declared.name)} {declared.name} (got {shown(value)})"


def _read_file(path: Path, label: str, limit: int) -> bytes:
    """A regular file's bytes, at most `limit` of them."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ManifestError([f"{label}: must be a file"])
        with open(path, "rb") as file:
            data = file.read(limit + 1)
    except FileNotFoundError:
        raise ManifestError([f"{label}: missing"]) from None
    except OSError as exc:
        raise ManifestError([f"{label}: cannot be read ({exc.strerror})"]) from None
    if len(data) > limit:
        raise ManifestError([f"{label}: over {limit} bytes"])
    return data


def _decode(data: bytes, label: str) -> str:
    """UTF-8 text (a byte order mark, which Windows editors write, is dropped), without NUL
    or terminal escapes."""
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise ManifestError([f"{label}: not valid UTF-8 (at byte {exc.start})"]) from None
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        char = f"U+{ord(bad.group()):04X}"
        raise ManifestError([f"{label}: control character {char} on line {line}"])
    return text


def read_text(path: Path, label: str, limit: int) -> str:
    """A text file of the package: a regular file of at most `limit` bytes of UTF-8, without
    NUL or terminal escapes; ManifestError naming `label` otherwise."""
    return _decode(_read_file(path, label, limit), label)


def read_statement(folder: Path) -> str:
    """statement.md: UTF-8 markdown, not blank, at most MAX_STATEMENT_BYTES."""
    text = _decode(
        _read_file(folder / "statement.md", "statement.md", MAX_STATEMENT_BYTES), "statement.md"
    )
    if not text.strip():
        raise ManifestError(["statement.md: empty"])
    return text


def read_boards(folder: Path, manifest: Manifest) -> list[Board]:
    """The hidden boards: one JSON file per case in boards/ (optional), sorted by name; hidden
    files (a dot first: editors' and Finder's) are left out. ManifestError naming each file
    that is refused and why."""
    where = folder / "boards"
    if not os.path.lexists(where):
        return []
    if not where.is_dir():
        raise ManifestError(["boards: must be a folder"])
    names = sorted(name for name in os.listdir(where) if not name.startswith("."))
    if len(names) > MAX_BOARDS:
        raise ManifestError([f"boards: {len(names)} files, at most {MAX_BOARDS}"])
    params: dict[str, ValueType | None] = dict(manifest.param_types)
    boards: list[Board] = []
    problems: list[str] = []
    for name in names:
        label = f"boards/{name}"
        if not name.endswith(".json"):
            problems.append(f"{label}: not a .json file (boards/ holds one JSON file per case)")
            continue
        try:
            case = strict_json(_decode(_read_file(where / name, label, MAX_BOARD_BYTES), label))
        except ManifestError as exc:
            problems += exc.problems
            continue
        except ValueError as exc:
            problems.append(f"{label}: not valid JSON: {exc}")
            continue
        wrong = case_problems(case, params, label, ": ")
        problems += wrong
        if not wrong:
            boards.append(Board(name, case))
    if problems:
        raise ManifestError(problems)
    return boards


def strict_json(text: str) -> Any:
    """JSON as RFC 8259 has it: no NaN or Infinity, no key twice in an object. ValueError
    otherwise (RecursionError on absurd nesting too)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _unique_keys(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"key {key!r} appears twice in an object")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")

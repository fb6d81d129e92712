"""The problem host: a package's problem.py running in the sandbox as one long-lived process
that answers the judge's calls over a pipe (judge/problems/host_main.py is the program inside
and describes the protocol). Everything it says is decoded strictly here.

    with ProblemHost(sandbox, source, time_s=1.0, memory_mb=256) as host:
        host.defined                                  # frozenset({"validate", "reference", ...})
        host.call("validate", case)                   # None, or raises InvalidCase(message)
        host.call("generate", seed, "opening")        # random.Random(seed) inside
        host.call_many("reference", [[c] for c in cases])   # one round trip; an invalid item
        host.attribute("WORST_CASES")                 # comes back as an InvalidCase in the list

Anything else going wrong is a ProblemError ("problem error: ...", an instructor's matter):
problem.py failed to load or lacks a required function; a call raised, used more CPU than its
budget (`call_cpu_s`: the package's time_s x CALL_TIME_FACTOR), gave no answer within its
wall bound, ran out of memory, printed more than OUTPUT_BYTES, or answered with anything but a
well-formed line of bounded exact JSON for its own request. After a ProblemError the host is
dead: its process is killed and every later call raises at once. MachineBusy (the machine too
busy to time a call fairly) ends it too, and is the machine's fault, not the package's.

Confinement is the sandbox's, as for a Python submission: the interpreter's stdlib and
nothing else of the host's files (no /etc, no judge source), problem.py alone in /box, no
network (sockets other than AF_UNIX refused), and one process (pids=1: no fork, no threads).
The host takes no phase (Sandbox.run's `phase=False`): it holds no student code, so it can
modulate nothing for a student's run to read, while a long-lived process holding a phase
would stop every run of the other phase on the machine, a grading's own hidden tier included.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from collections.abc import Sequence, Set
from pathlib import Path
from typing import Any, NoReturn

from judge.answers import MAX_INT_DIGITS, clean_text
from judge.problems.spec import InvalidCase
from judge.sandbox import Command, MachineBusy, OverlongLine, Process, RunLimits, Sandbox
from judge.sandbox.limits import WallBound

# The contract's names (docs: problem packages); host_main.py lists the same.
FUNCTIONS = (
    "validate",
    "generate",
    "reference",
    "check",
    "small_cases",
    "canonical",
    "shrink",
    "explain",
    "children",
    "write_input",
)
CONSTANTS = ("WORST_CASES", "COMBINE_RULE")
REQUIRED = ("validate", "generate", "reference")
NULL_ALLOWED = frozenset({"validate", "explain"})  # validate's None; explain's optional fields
PROTOCOL = 1

# A call's CPU: the package's time_s (which its reference is held to on the largest cases)
# times this, for the calls the package check does not time (check, explain, children) and
# for noise; its wall bound: that CPU times WALL_FACTOR plus WALL_EXTRA_S, of time charged.
CALL_TIME_FACTOR = 3.0
WALL_FACTOR = 1.5
WALL_EXTRA_S = 1.0
LOAD_CPU_S = 10.0  # importing problem.py (tables precomputed at import count here)
LIFETIME_S = 600.0  # the whole host's CPU and charged wall time (idle time counts)
MIN_WAIT_S = 0.01

# What one line may hold. Values are bounded as answers are (judge/answers.py) for ints, and
# by size otherwise: a batch of small positions' answers, small_cases()'s every position.
MAX_LINE_BYTES = 8 << 20
MAX_VALUES = 500_000  # one value's ints, strs, lists and dicts; a line's, twice that
MAX_DEPTH = 16
MAX_STR_CHARS = 1 << 20
OUTPUT_BYTES = 64 << 10  # stdout + stderr over the host's life: a package must not print
MAX_SOURCE_BYTES = 4 << 20
MESSAGE_CHARS = 1000

HOST_MAIN = Path(__file__).with_name("host_main.py")
_FDS = ("--results-fd", "{results_fd}", "--requests-fd", "{input_fd}")
HOST_ARGV = ("{python}", "-I", "-S", "-B", "/box/host_main.py", *_FDS)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_INT_BITS_SURELY_SHORT = 13_000  # fewer bits: fewer than 3,914 digits, no need to count


class ProblemError(Exception):
    """The problem's own code failed: an instructor's matter, never a student's verdict."""

    def __init__(self, message: str) -> None:
        super().__init__(f"problem error: {message}")
        self.message = message  # without the prefix


class MalformedLine(ValueError):
    """A line of the host that is not a well-formed report of bounded exact JSON."""


def _refuse_float(text: str) -> NoReturn:
    raise MalformedLine(f"a float ({clean_text(text, 40)})")


def _refuse_constant(name: str) -> NoReturn:
    raise MalformedLine(f"{name} (not JSON)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise MalformedLine("an object with a duplicate key")
    return result


def parse_line(line: bytes) -> dict[str, Any]:
    """One line of the host as a JSON object, strictly: UTF-8, no float, NaN or Infinity, no
    duplicate key, an int of at most Python's 4300 digits, and at most 2 * MAX_VALUES values
    (counted on the bytes first, so a line never becomes more objects than that)."""
    if len(line) > MAX_LINE_BYTES:
        raise MalformedLine(f"a line longer than {MAX_LINE_BYTES} bytes")
    if line.count(b"[") + line.count(b"{") + line.count(b",") > 2 * MAX_VALUES:
        raise MalformedLine(f"a line of more than {2 * MAX_VALUES} values")
    try:
        report = json.loads(
            line.decode("utf-8"),
            parse_float=_refuse_float,
            parse_constant=_refuse_constant,
            object_pairs_hook=_unique_keys,
        )
    except MalformedLine:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MalformedLine(f"not JSON ({clean_text(str(exc), 200)})") from None
    if type(report) is not dict:
        raise MalformedLine("not a JSON object")
    return report


def decode_value(value: Any, *, allow_null: bool = False) -> Any:
    """`value` itself once it is proven a bounded value of exact JSON types: bool, int (at
    most MAX_INT_DIGITS digits), str (at most MAX_STR_CHARS, UTF-8 encodable), list, dict
    with str keys, nested at most MAX_DEPTH, at most MAX_VALUES in all; None only with
    `allow_null`. MalformedLine naming the first thing that is not."""
    budget = [MAX_VALUES]

    def walk(item: Any, depth: int) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise MalformedLine(f"a value of more than {MAX_VALUES} items")
        kind = type(item)
        if kind is bool:
            return
        if kind is int:
            if item.bit_length() > _INT_BITS_SURELY_SHORT and _digits(item) > MAX_INT_DIGITS:
                raise MalformedLine(f"an int of more than {MAX_INT_DIGITS} digits")
        elif kind is str:
            _check_str(item)
        elif kind is list or kind is dict:
            if depth >= MAX_DEPTH:
                raise MalformedLine(f"a value nested deeper than {MAX_DEPTH}")
            for key in item if kind is dict else ():
                if type(key) is not str:
                    raise MalformedLine("an object with a key that is not a str")
                _check_str(key)
            for child in item.values() if kind is dict else item:
                walk(child, depth + 1)
        elif item is None:
            if not allow_null:
                raise MalformedLine("null where a value is due")
        else:
            raise MalformedLine(f"a {kind.__name__}, not a JSON value")

    walk(value, 0)
    return value


def _digits(value: int) -> int:
    try:
        return len(str(abs(value)))
    except ValueError:  # beyond Python's own int->str limit
        return MAX_INT_DIGITS + 1


def _check_str(text: str) -> None:
    if len(text) > MAX_STR_CHARS:
        raise MalformedLine(f"a str longer than {MAX_STR_CHARS} characters")
    if not text.isascii() and _SURROGATE.search(text):
        raise MalformedLine("a str with a lone surrogate (not UTF-8)")


def read_source(path: Path) -> bytes:
    """problem.py's bytes (at most MAX_SOURCE_BYTES + 1, so start() can say it is too
    large), read only as a regular file: a package's symlink leads nowhere on the judge's
    machine. ProblemError when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ProblemError(f"the package's problem.py cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ProblemError("the package's problem.py is not a regular file")
    with os.fdopen(fd, "rb") as source:
        return source.read(MAX_SOURCE_BYTES + 1)


class ProblemHost:
    """One package's problem.py answering calls in the sandbox; see the module's doc. One
    caller at a time (a call is a write and a read on one pipe); it holds a sandbox slot for
    as long as it lives."""

    def __init__(
        self,
        sandbox: Sandbox,
        source: bytes,
        *,
        time_s: float = 1.0,
        memory_mb: int = 256,
        load_s: float = LOAD_CPU_S,
        lifetime_s: float = LIFETIME_S,
        required: Sequence[str] = REQUIRED,
    ) -> None:
        self.sandbox = sandbox
        self.source = source
        self.call_cpu_s = time_s * CALL_TIME_FACTOR
        self.memory_mb = memory_mb
        self.load_s = load_s
        self.lifetime_s = lifetime_s
        self.required = tuple(required)
        self.defined: frozenset[str] = frozenset()
        self.output = ""  # what problem.py printed, once the host has ended (cleaned)
        self._proc: Process | None = None
        self._dead: str | None = None  # why the host ended, once it has
        self._next_id = 1
        self._cpu_mark = 0.0  # the host's CPU when its last answer was read
        self.last_cpu_s: float | None = None  # the CPU the last answered call used, if known

    @classmethod
    def for_folder(cls, sandbox: Sandbox, folder: str | Path, **limits: Any) -> ProblemHost:
        """The host of the package in `folder`: only its problem.py goes into the sandbox
        (not the boards, submissions or anything else of the folder)."""
        return cls(sandbox, read_source(Path(folder, "problem.py")), **limits)

    # -- starting and ending ---------------------------------------------------------------
    def __enter__(self) -> ProblemHost:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the host and read its hello: ProblemError when problem.py does not load or
        lacks a required function."""
        if len(self.source) > MAX_SOURCE_BYTES:
            self._dead = "problem.py is too large"
            raise ProblemError(f"problem.py is larger than {MAX_SOURCE_BYTES >> 20} MiB")
        command = Command(
            argv=HOST_ARGV,
            files={"host_main.py": HOST_MAIN.read_bytes(), "problem.py": self.source},
            input_pipe=True,
        )
        limits = RunLimits(
            cpu_s=self.lifetime_s,
            wall_s=self.lifetime_s,
            memory_bytes=self.memory_mb << 20,
            output_bytes=OUTPUT_BYTES,
            result_bytes=1 << 40,  # the lines are bounded one by one; a host lives long
            result_line_bytes=MAX_LINE_BYTES,
            pids=1,
        )
        self._proc = self.sandbox.run(command, limits, phase=False)
        self._hello(self._read_report("loading problem.py", self.load_s))

    def _hello(self, report: dict[str, Any]) -> None:
        if set(report) == {"load_error", "where"}:
            error = clean_text(report["load_error"], MESSAGE_CHARS)
            self._fail(f"problem.py failed to load: {error}{_where(report['where'])}")
        names = report.get("hello")
        if (
            set(report) != {"hello", "protocol"}
            or report["protocol"] != PROTOCOL
            or type(names) is not list
            or not all(type(n) is str and n in (*FUNCTIONS, *CONSTANTS) for n in names)
        ):
            self._fail("loading problem.py: the host did not say which names it defines")
        self.defined = frozenset(names)
        missing = [f"{name}()" for name in self.required if name not in self.defined]
        if missing:
            self._fail(f"problem.py defines no {', '.join(missing)}")

    def close(self) -> None:
        """End the host (it ends of itself once its requests end) and keep what it printed."""
        proc, self._proc = self._proc, None
        if self._dead is None:
            self._dead = "the problem host was closed"
        if proc is not None:
            proc.close_input()
            outcome = proc.finish(grace=1.0)
            self.output = clean_text(outcome.output.decode("utf-8", "replace"), OUTPUT_BYTES)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._dead is None

    # -- calls -----------------------------------------------------------------------------
    def call(self, name: str, *args: Any, cpu_s: float | None = None) -> Any:
        """`name(*args)` in problem.py; raises InvalidCase for validate's ValueError. For
        generate the arguments are (seed, profile): it gets random.Random(seed). `cpu_s`
        replaces the call's budget (small_cases() enumerating every position may need
        more than one call's)."""
        what = f"{name}()"
        budget = self.call_cpu_s if cpu_s is None else cpu_s
        report = self._exchange(self._function(name), {"args": list(args)}, what, budget)
        result = self._item(report, what, name in NULL_ALLOWED, {"id"})
        if isinstance(result, InvalidCase):
            raise result
        return result

    def call_many(
        self, name: str, args_list: Sequence[Sequence[Any]], *, cpu_s: float | None = None
    ) -> list[Any]:
        """`name(*args)` for each of `args_list` in one round trip: the answers in order, an
        InvalidCase in place of each case validate refused. The batch's CPU budget is the
        sum of its calls' (so batching never changes what passes) unless `cpu_s` says less;
        the host's lifetime bounds it either way."""
        if not args_list:
            return []
        what = f"a batch of {len(args_list)} {name}() calls"
        budget = cpu_s if cpu_s is not None else self.call_cpu_s * len(args_list)
        batch = [list(args) for args in args_list]
        report = self._exchange(self._function(name), {"batch": batch}, what, budget)
        items = report.get("batch")
        if set(report) != {"id", "batch"} or type(items) is not list:
            self._fail(f"{what}: a malformed report")
        if len(items) != len(args_list):
            self._fail(f"{what}: {len(items)} answers")
        allow_null = name in NULL_ALLOWED
        return [self._item(item, what, allow_null, set()) for item in items]

    def attribute(self, name: str) -> Any:
        """The value of the constant `name` (WORST_CASES, COMBINE_RULE) problem.py defines."""
        if name not in CONSTANTS or name not in self.defined:
            raise ValueError(f"problem.py defines no constant {name}")
        what = f"reading {name}"
        report = self._exchange({"get": name}, {}, what, self.call_cpu_s)
        result = self._item(report, what, False, {"id"})
        if isinstance(result, InvalidCase):
            self._fail(f"{what}: an invalid-case answer")
        return result

    def _function(self, name: str) -> dict[str, Any]:
        if name not in FUNCTIONS or name not in self.defined:
            raise ValueError(f"problem.py defines no {name}()")
        return {"call": name}

    def _item(self, report: Any, what: str, allow_null: bool, envelope: set[str]) -> Any:
        """One answer: its value, an InvalidCase, or a ProblemError for its error (which
        ends the host)."""
        try:
            return item_value(report, what, allow_null, envelope)
        except ProblemError as exc:
            self._end(exc.message)
            raise

    # -- the exchange ----------------------------------------------------------------------
    def _exchange(
        self, request: dict[str, Any], body: dict[str, Any], what: str, cpu_s: float
    ) -> dict[str, Any]:
        """Send one request and read its report, which must carry the request's id."""
        proc = self._live()
        ident = self._next_id
        self._next_id += 1
        line = json.dumps({"id": ident, **request, **body}, allow_nan=False, separators=(",", ":"))
        proc.write_input(line.encode() + b"\n")
        report = self._read_report(what, cpu_s)
        if report.get("id") != ident or type(report.get("id")) is not int:
            self._fail(f"{what}: answered out of turn (not the report of request {ident})")
        return report

    def _live(self) -> Process:
        if self._dead is not None or self._proc is None:
            raise ProblemError(f"the problem host is not running ({self._dead or 'not started'})")
        return self._proc

    def _read_report(self, what: str, cpu_s: float) -> dict[str, Any]:
        """The next line, within `cpu_s` of CPU (counted from the last answer: work done
        between calls is the next call's) and its wall bound."""
        proc = self._live()
        began = time.monotonic()
        guard = WallBound(cpu_s * WALL_FACTOR + WALL_EXTRA_S)
        wait = cpu_s
        while True:
            try:
                line = proc.read_result(timeout=max(wait, MIN_WAIT_S))
            except TimeoutError:
                wait = self._wait_more(proc, began, guard, what, cpu_s)
                continue
            except OverlongLine:
                self._fail(f"{what}: wrote a line longer than {MAX_LINE_BYTES >> 20} MiB")
            except MachineBusy:
                self._end("the machine was too busy")
                raise
            if line is None:
                self._fail(self._death(what))
            total = proc.cpu_seconds()
            if total is not None:
                used, self._cpu_mark = total - self._cpu_mark, total
                self.last_cpu_s = used
                if used > cpu_s:
                    self._fail(f"{what} used {used:.2f} s of CPU, its budget is {cpu_s:g} s")
            try:
                return parse_line(line)
            except MalformedLine as exc:
                self._fail(f"{what}: wrote a malformed line ({exc})")

    def _wait_more(
        self, proc: Process, began: float, guard: WallBound, what: str, cpu_s: float
    ) -> float:
        """How long to wait for the answer still, or ProblemError once its time is up."""
        total = proc.cpu_seconds()
        cpu = None if total is None else total - self._cpu_mark
        if cpu is not None and cpu > cpu_s:
            self._fail(f"{what} used more than {cpu_s:g} s of CPU (its budget)")
        wall = time.monotonic() - began
        try:
            more = guard.wait_more(wall, proc.cpu_wait_since(began), cpu)
        except MachineBusy:
            self._end("the machine was too busy")
            raise
        if more <= 0:
            self._fail(
                f"{what} gave no answer within {guard.bound_s:g} s "
                f"({cpu or 0.0:.2f} s of CPU, asleep or blocked the rest)"
            )
        return min(more, cpu_s - (cpu or 0.0))

    def _death(self, what: str) -> str:
        """Why the host's process ended before answering."""
        proc = self._proc
        outcome = proc.finish(grace=0.5) if proc is not None else None
        if outcome is None:
            return f"{what}: the problem host ended"
        reasons = {
            "memory": f"ran out of memory (the limit is {self.memory_mb} MB)",
            "output": f"printed more than {OUTPUT_BYTES >> 10} KiB on stdout and stderr",
            "results": "wrote too much on its results channel",
            "cpu": f"used the problem host's whole lifetime ({self.lifetime_s:g} s of CPU)",
            "wall": f"outlived the problem host's lifetime ({self.lifetime_s:g} s)",
        }
        if outcome.limit in reasons:
            return f"{what} {reasons[outcome.limit]}"
        ended = (
            f"was killed by signal {outcome.signal}"
            if outcome.signal is not None
            else f"exited with code {outcome.exit_code}"
        )
        printed = clean_text(outcome.output[-300:].decode("utf-8", "replace"), 300).strip()
        return f"the problem host {ended} during {what}" + (
            f"; it printed: {printed}" if printed else ""
        )

    def _end(self, why: str) -> None:
        """Kill the host and keep why (every later call raises at once)."""
        if self._dead is None:
            self._dead = why
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            outcome = proc.finish(grace=0.0)
            self.output = clean_text(outcome.output.decode("utf-8", "replace"), OUTPUT_BYTES)

    def _fail(self, message: str) -> NoReturn:
        self._end(message)
        raise ProblemError(message)


def item_value(report: Any, what: str, allow_null: bool, envelope: Set[str] = frozenset()) -> Any:
    """One answer of problem.py as host_main.py reports it (its keys beyond `envelope`): its
    value decoded strictly, an InvalidCase for validate's ValueError, or a ProblemError
    naming what went wrong. Shared with judge/problems/code.py's in-process ImportedCode, so
    both hold problem.py to the same rules."""
    if type(report) is not dict:
        raise ProblemError(f"{what}: a malformed report")
    keys = set(report) - envelope
    if keys == {"ok"}:
        try:
            return decode_value(report["ok"], allow_null=allow_null)
        except MalformedLine as exc:
            raise ProblemError(f"{what} answered with {exc}") from None
    if keys == {"invalid"} and type(report["invalid"]) is str:
        return InvalidCase(clean_text(report["invalid"], MESSAGE_CHARS) or "invalid case")
    if keys in ({"error"}, {"error", "where"}) and type(report["error"]) is str:
        error = clean_text(report["error"], MESSAGE_CHARS)
        shown = error if error.startswith("returned ") else f"raised {error}"
        raise ProblemError(f"{what} {shown}{_where(report.get('where'))}")
    raise ProblemError(f"{what}: a malformed report")


def _where(value: Any) -> str:
    text = clean_text(value, 100)
    return f" ({text})" if text else ""

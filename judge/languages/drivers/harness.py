"""The program that runs INSIDE the sandbox: standard library only, copied in alone.

    python3 -I -S -B harness.py --results-fd N --tests-fd T --start K [--output]

It loads /box/solution.py, says it is ready, then reads one test at a time on fd T (a JSON
list of the arguments, one line), calls solution(...) on it and reports, numbering the tests
K, K+1, ... until fd T ends; one compact JSON line (no spaces) per event on fd N:

    {"event": "compile_error", "message": ...}        syntax error, no callable solution
    {"event": "load_error", "error": ..., "message": ..., "traceback": ...}
    {"event": "ready"}
    {"event": "result", "i": 3, "answer": {...}, "cpu": s, "wall": s, "rss_kb": n}
    {"event": "error", "i": 3, "error": "ZeroDivisionError", "message": ..., "traceback": ...}

With --output, each result or error also carries what the call printed: "stdout", "stderr"
(the first OUTPUT_LIMIT characters of each) and "output_cut" (true when more was printed).

A line {"batch": k} (1 < k <= MAX_BATCH, the small tier's positions) heads k tests answered
in ONE reply, their answers in order, the figures the whole batch's:

    {"event": "batch", "i": 3, "n": k, "answers": [{...}, ...], "cpu": s, "wall": s, "rss_kb": n}

or, when a call raised or printed or the reply would be longer than MAX_BATCH_REPLY bytes,
{"event": "batch", "i": 3, "redo": true}, and the harness ends: the judge replays those tests
one at a time in a fresh process (judge/execution/runners/function.py), which reports each
as above.

The judge writes a test only once it has read the report of the one before (only the small
tier's positions, the judge's own, come together, in batches): the solution cannot read
ahead, there is nothing more on fd T while it runs. It reports answers only, never verdicts:
the expected answers are not in here, and a submission can forge anything this process
writes, so the judge outside decides.
"""

import io
import os
import resource
import sys
import time

SOURCE_NAME = "solution.py"


def json_codec():
    """json.dumps and json.loads made of the C code they run (_json), without importing
    json, which imports re and enum: with traceback (see own_traceback) they were 10 ms of
    every start of this program, twice or more per grading. The same calls json makes with
    its default arguments; json itself where _json is missing."""
    try:
        from _json import encode_basestring_ascii, make_encoder, make_scanner
    except ImportError:  # another interpreter
        return _json_module()

    def no_default(value):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    def dumps(obj, separators=(", ", ": ")):
        if type(obj) is str:
            return encode_basestring_ascii(obj)
        item, key = separators
        encoder = make_encoder(
            {}, no_default, encode_basestring_ascii, None, key, item, False, False, True
        )
        return "".join(encoder(obj, 0))

    class Context:  # what make_scanner reads of a json.JSONDecoder
        strict = True
        object_hook = object_pairs_hook = None
        parse_float, parse_int = float, int
        parse_constant = {
            "NaN": float("nan"),
            "Infinity": float("inf"),
            "-Infinity": float("-inf"),
        }.__getitem__

    scan = make_scanner(Context())  # type: ignore[arg-type]

    def loads(data):
        text = (data.decode("utf-8") if isinstance(data, bytes) else data).strip(" \t\n\r")
        try:
            value, end = scan(text, 0)
        except StopIteration:
            raise ValueError("not JSON") from None
        if end != len(text):
            raise ValueError("not one JSON value")
        return value

    try:  # an interpreter whose _json takes other arguments gets json itself
        sample = [1, -2.5, True, None, {"k": "\u00e9\n"}]
        if loads(dumps(sample, (",", ":")).encode()) != sample or dumps("\u00e9") != '"\\u00e9"':
            return _json_module()
    except Exception:
        return _json_module()
    return dumps, loads


def _json_module():
    import json

    return json.dumps, json.loads


# Bound before the submission loads: it may monkeypatch json.
_dumps, _loads = json_codec()


# The value kinds judge/answers.py builds types from: exact ints, bools, strs and exact lists
# of them. A list deeper than MAX_LIST_DEPTH, or with more than MAX_REPORTED_VALUES values or
# taking more than MAX_REPORTED_BYTES on the line, is reported by its repr alone (no type
# accepts that). Every value is charged its whole report, wrapping included, in the compact
# form emit() writes (a character beyond ASCII as its \u escape): the same figure every
# driver charges, so a list is too large in every language or in none, and a report line
# (the answer, two printed streams of OUTPUT_JSON_BUDGET and a few figures) stays well under
# the judge's 128 KiB line limit. A str longer than MAX_STR_CHARS or holding a control
# character is reported by what is wrong with it.
MAX_LIST_DEPTH = 3
MAX_REPORTED_VALUES = 10_000
MAX_REPORTED_BYTES = 64 * 1024
MAX_STR_CHARS = 1000


OUTPUT_LIMIT = 8192  # characters kept per stream per call (the judge outside cuts again)


OUTPUT_JSON_BUDGET = 16 * 1024  # one stream's text once JSON-escaped (an emoji takes 12)

MAX_BATCH = 64  # tests in one batch (BATCH_POSITIONS outside)
MAX_BATCH_REPLY = 32 * 1024  # bytes of a batch reply line (the judge refuses a longer one)


class CappedText(io.TextIOBase):
    """A text stream keeping the first OUTPUT_LIMIT characters written to it, and passing
    everything on to the stream it stands in for: the sandbox's output limit still ends a
    flood (OLE), as without capturing. It answers what code expects of sys.stdout
    (writelines, fileno, buffer for bytes)."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, through):
        super().__init__()
        self.through = through
        self.parts = []
        self.size = 0
        self.cut = False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = OUTPUT_LIMIT - self.size
        if len(text) > room:
            self.cut = True
        kept = text[: max(room, 0)]
        if kept:
            self.parts.append(kept)
            self.size += len(kept)
        return self.through.write(text)

    def flush(self):
        self.through.flush()

    def isatty(self):
        return False

    def writable(self):
        return True

    def fileno(self):
        return self.through.fileno()

    @property
    def buffer(self):
        return _BytesInto(self)

    def getvalue(self):
        return "".join(self.parts)


class _BytesInto:
    """sys.stdout.buffer while capturing: bytes written are kept as text (UTF-8)."""

    def __init__(self, text_stream):
        self.text_stream = text_stream

    def write(self, data):
        self.text_stream.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self):
        self.text_stream.flush()


def fit(text, dumps):
    """The captured text, cut so that its JSON form stays within OUTPUT_JSON_BUDGET (the
    report line is bounded outside); and whether it was cut."""
    size = len(dumps(text))
    if size <= OUTPUT_JSON_BUDGET:
        return text, False
    while size > OUTPUT_JSON_BUDGET:
        text = text[: max(len(text) * OUTPUT_JSON_BUDGET // size - 1, 0)]
        size = len(dumps(text))
    return text, True


class _TooLarge(Exception):
    pass


def encode_answer(value):
    """What `solution` returned, in the kinds the judge's types know: an exact int as digits,
    an exact bool, an exact str, an exact list item by item; anything else as its type name
    and a short repr. It reports, it does not check: which type the answer must have is
    decided outside the sandbox."""
    if type(value) is int:  # the common answer, without the list machinery
        return encode_int(value)
    budget = [MAX_REPORTED_VALUES, MAX_REPORTED_BYTES]

    def charge(size):
        budget[1] -= size
        if budget[1] < 0:
            raise _TooLarge

    def encode(value, depth):
        kind = type(value)
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooLarge
        if kind is list and depth < MAX_LIST_DEPTH:
            items = list.copy(value)  # one step under the GIL: a thread cannot resize it midway
            charge(LIST_WRAPPING + max(len(items) - 1, 0))  # and a comma between items
            return {"type": "list", "items": [encode(item, depth + 1) for item in items]}
        if kind is int:
            report = encode_int(value)
        elif kind is str:
            report = encode_str(value)
        elif kind is bool:
            report = {"type": "bool", "bool": value}
        else:
            report = opaque(value)
        charge(reported_bytes(report))
        return report

    try:
        return encode(value, 0)
    except _TooLarge:
        return {"type": "list", "repr": "<a list too large to report>"}


LIST_WRAPPING = len('{"type":"list","items":[]}')


def compact(obj):
    """JSON as every driver writes it: no spaces, ASCII only."""
    return _dumps(obj, separators=(",", ":"))


def reported_bytes(report):
    """The bytes a value's report (not a list's) takes in compact JSON:
    {"type":"int","int":"12"} is 26. The other drivers charge the same figures."""
    if "int" in report:
        return 23 + len(report["int"])
    if "str" in report:  # a valid str: no control character, so only " and \ are escaped
        text = report["str"]
        size = 23 + len(text) + text.count('"') + text.count("\\")
        if not text.isascii():  # \uXXXX per UTF-16 unit: 6 bytes, 12 beyond the BMP
            size += sum(5 if c <= "\uffff" else 11 for c in text if c > "\x7f")
        return size
    if "bool" in report:
        return 27 if report["bool"] else 28
    return len(compact(report))


def encode_int(value):
    try:
        return {"type": "int", "int": int.__repr__(value)}
    except ValueError:  # beyond the int->str digit limit
        return {"type": "int", "repr": "<an int with more than 4300 digits>"}


def encode_str(value):
    """A str that is valid text (at most MAX_STR_CHARS characters, no control character, no
    lone surrogate) as itself; any other by what is wrong with it."""
    if len(value) > MAX_STR_CHARS:
        why = f"a str of {len(value)} characters (at most {MAX_STR_CHARS})"
    elif any(c < " " or "\x7f" <= c <= "\x9f" or "\ud800" <= c <= "\udfff" for c in value):
        why = f"a str holding a control character ({str.__repr__(value[:40])})"
    else:
        return {"type": "str", "str": value}
    return {"type": "str", "repr": f"<{why}>"}


def opaque(value):
    kind = type(value)
    name = getattr(kind, "__qualname__", "?")
    try:
        text = repr(value)[:200]
    except BaseException:  # a hostile __repr__
        text = "<unprintable>"
    return {"type": name[:100] if isinstance(name, str) else "?", "repr": text}


def own_traceback(exc):
    """The traceback trimmed to the submission's own frames. traceback is imported only
    when a call raised (see json_codec): the submission may have replaced it by then, but
    this text is the submission's to forge anyway, as everything this program writes."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == SOURCE_NAME]
    lines = traceback.format_list(frames[-20:])
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines)[-4000:]


def describe_exception(exc):
    try:
        message = str(exc)[:1000]
    except BaseException:
        message = "<unprintable message>"
    try:
        tb = own_traceback(exc)
    except BaseException:
        tb = ""
    return {"error": type(exc).__name__, "message": message, "traceback": tb}


def _not_loaded(*args):
    raise RuntimeError("solution.py is not loaded")


class Calls:
    """The calls of `solution`, one reported alone or a batch in one reply. The tools are
    bound when it is made, before the submission loads: it may monkeypatch their modules,
    and only the bounds measured outside the sandbox are trusted anyway."""

    def __init__(self, next_test, capture):
        self.next_test, self.capture, self.solution = next_test, capture, _not_loaded
        self.dumps, self.loads = _dumps, _loads
        self.cpu_clock, self.wall_clock = time.process_time, time.perf_counter
        self.getrusage, self.rusage_self = resource.getrusage, resource.RUSAGE_SELF
        self.real_stdout, self.real_stderr = sys.stdout, sys.stderr

    def rss_kb(self):
        return self.getrusage(self.rusage_self).ru_maxrss

    def capturing(self):
        """What the next call prints, kept (with --output) while still written through."""
        printed = (CappedText(self.real_stdout), CappedText(self.real_stderr))
        sys.stdout, sys.stderr = printed
        return printed

    def call(self, args):
        """One call: its report (without "i") and whether it printed anything."""
        printed = self.capturing() if self.capture else None
        cpu0, wall0 = self.cpu_clock(), self.wall_clock()
        try:
            answer = self.solution(*args)
        except BaseException as exc:
            cpu, wall = self.cpu_clock() - cpu0, self.wall_clock() - wall0
            report = {"event": "error", **describe_exception(exc)}
        else:
            cpu, wall = self.cpu_clock() - cpu0, self.wall_clock() - wall0
            report = {"event": "result", "answer": encode_answer(answer)}
        finally:
            sys.stdout, sys.stderr = self.real_stdout, self.real_stderr
        report.update(cpu=cpu, wall=wall, rss_kb=self.rss_kb())
        if printed is None:
            return report, False
        out_text, err_text = printed
        stdout, out_cut = fit(out_text.getvalue(), self.dumps)
        stderr, err_cut = fit(err_text.getvalue(), self.dumps)
        cut = out_text.cut or err_text.cut or out_cut or err_cut
        report.update(stdout=stdout, stderr=stderr, output_cut=cut)
        return report, bool(stdout or stderr or cut)

    def batch(self, count, first):
        """`count` tests in one reply; a "redo" reply when one raised or printed, or the
        reply would be too long: the judge then asks for them one at a time. Lighter than
        call() per test: no figures, no printed text kept (there must be none)."""
        redo = {"event": "batch", "i": first, "redo": True}
        got = []
        cpu0, wall0 = self.cpu_clock(), self.wall_clock()
        for _ in range(count):
            args = self.loads(self.next_test())
            printed = self.capturing() if self.capture else ()
            try:
                got.append(encode_answer(self.solution(*args)))
            except BaseException:
                return redo
            finally:
                sys.stdout, sys.stderr = self.real_stdout, self.real_stderr
            if any(stream.size or stream.cut for stream in printed):
                return redo
        reply = {"event": "batch", "i": first, "n": count, "answers": got}
        reply.update(cpu=self.cpu_clock() - cpu0, wall=self.wall_clock() - wall0)
        reply.update(rss_kb=self.rss_kb())
        return redo if len(compact(reply)) > MAX_BATCH_REPLY else reply


def load_solution(emit):
    """The submission's `solution`, or None once the reason is emitted."""
    try:
        with open(SOURCE_NAME, "rb") as source_file:
            source = source_file.read().decode("utf-8")
        code = compile(source, SOURCE_NAME, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else "unknown line"
        emit({"event": "compile_error", "message": f"SyntaxError at {where}: {exc.msg}"})
        return None
    except (UnicodeDecodeError, ValueError) as exc:
        emit({"event": "compile_error", "message": f"unreadable source: {exc}"})
        return None

    namespace = {"__name__": "solution", "__builtins__": __builtins__}
    try:
        exec(code, namespace)
    except BaseException as exc:
        emit({"event": "load_error", **describe_exception(exc)})
        return None
    solution = namespace.get("solution")
    if not callable(solution):
        found = "is not defined" if solution is None else f"is a {type(solution).__name__}"
        emit({"event": "compile_error", "message": f"no callable solution: `solution` {found}"})
        return None
    return solution


def serve(calls, emit, index):
    """Every test until the tests channel ends, numbered from `index`."""
    while line := calls.next_test():  # empty at the end of the tests
        args = calls.loads(line)
        if type(args) is dict:  # {"batch": k}: the next k tests, answered in one reply
            count = args["batch"]
            if type(count) is not int or not 1 < count <= MAX_BATCH:
                raise ValueError(f"bad batch size {count!r}")
            reply = calls.batch(count, index)
            emit(reply)
            if "redo" in reply:
                return  # the judge replays these tests in a fresh process
            index += count
            continue
        report, _ = calls.call(args)
        emit({"event": report.pop("event"), "i": index, **report})
        index += 1


def main(argv):
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    results_fd = int(argv[argv.index("--results-fd") + 1])
    tests_fd = int(argv[argv.index("--tests-fd") + 1])
    start = int(argv[argv.index("--start") + 1])
    out = os.fdopen(results_fd, "w", encoding="utf-8", buffering=1)
    calls = Calls(os.fdopen(tests_fd, "rb").readline, "--output" in argv)

    def emit(obj):
        out.write(compact(obj) + "\n")
        out.flush()

    solution = load_solution(emit)
    if solution is not None:
        calls.solution = solution
        emit({"event": "ready"})
        serve(calls, emit, start)


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    main(sys.argv)

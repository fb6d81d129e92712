"""A submission attacking the judge through what comes out of the sandbox.

Hidden boards must never reach a process whose output a student sees; anything the process
writes (reports, numbers, texts) is forged, so it must end as the submission's own verdict
(RE, TLE, CE), never as an internal error; CPU counts the whole process tree and the module's
loading. Each test fails on a judge that trusts the harness.
"""

from __future__ import annotations

import dataclasses
import json

from judge import problems
from judge.grading.grade import grade
from judge.verdict import HIDDEN_FIELDS_FOR_STUDENTS, TestKind, Verdict, shown_to_student

NUMBERGAME = problems.get("numbergame")
FOOTHOLDS = problems.get("footholds")
SECRET_BOARD = [-999, 7, -998, 6, -997]
SECRET = json.dumps(SECRET_BOARD)
HIDDEN = [{"id": 5, "input": {"board": SECRET_BOARD}}]

CORRECT_NUMBERGAME = """
def solution(board):
    n = len(board)
    best = [[0] * (n + 1) for _ in range(n + 1)]
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            v = max(board[i] - best[i + 1][j], board[j - 1] - best[i][j - 1])
            if length >= 2:
                v = max(v, -best[i + 2][j], -best[i][j - 2])
            best[i][j] = v
    return best[0][n]
"""

# Reads everything it can at load time and writes it back, after the board it was given,
# through every channel a visible test shows: an exception message on the samples, the repr
# of its answer on random boards.
READ_EVERYTHING = """
import os, sys
seen = []
for root in (".", "/", "/tmp", os.path.dirname(os.path.abspath(sys.argv[0]))):
    try:
        for name in os.listdir(root):
            try:
                with open(os.path.join(root, name), errors="replace") as f:
                    seen.append(f.read(100000))
            except Exception:
                pass
    except Exception:
        pass
seen.append(" ".join(sys.argv))
DUMP = "\\n".join(seen)

class Loud:
    def __repr__(self):
        return DUMP[-150:]

calls = 0
def solution(board):
    global calls
    calls += 1
    if calls <= 2:
        raise ValueError(repr(board) + DUMP)
    return Loud()
"""


def student_view(result) -> str:
    """Everything a student is shown of a result, as text."""
    shown = []
    for test in shown_to_student(result.tests):
        data = test.to_dict()
        if test.kind is TestKind.HIDDEN:
            data = {k: data[k] for k in HIDDEN_FIELDS_FOR_STUDENTS}
        shown.append(data)
    summary = {k: v for k, v in result.to_dict().items() if k != "tests"}
    return repr(summary) + repr(shown)


def test_visible_tests_run_where_no_hidden_input_is(sandbox):
    result = grade(
        NUMBERGAME, READ_EVERYTHING, hidden_cases=HIDDEN, seed=2, random_count=3, sandbox=sandbox
    )
    visible = [t for t in result.tests if t.kind.visible]
    assert visible[0].verdict is Verdict.RE
    # It did show what it was given (a sample), but never the hidden board.
    sample = json.dumps(NUMBERGAME.SAMPLES[1]["input"]["board"])
    assert sample in visible[0].message or sample in visible[1].message
    assert SECRET not in repr([t.to_dict() for t in visible])
    assert SECRET not in student_view(result)


def test_hidden_tests_show_students_only_a_count_and_the_first_failure(sandbox):
    leaky = (
        CORRECT_NUMBERGAME
        + """
_real = solution
def solution(board):
    if board[:2] in ([-999, 7], [1, 2]):
        raise ValueError("LEAKED " + repr(board))
    return _real(board)
"""
    )
    second = {"id": 6, "input": {"board": [1, 2, 3, 4, 5]}}
    third = {"id": 7, "input": {"board": [3, 1]}}
    result = grade(
        NUMBERGAME,
        leaky,
        hidden_cases=[*HIDDEN, second, third],
        seed=2,
        random_count=3,
        sandbox=sandbox,
    )
    hidden = [t for t in result.tests if t.kind is TestKind.HIDDEN]
    assert [t.verdict for t in hidden] == [Verdict.RE, Verdict.RE, Verdict.AC]
    # Instructors see everything about a hidden test...
    assert hidden[0].input == {"board": SECRET_BOARD} and hidden[0].board_id == 5
    assert hidden[0].expected == NUMBERGAME.reference(hidden[0].input)
    assert "LEAKED" in hidden[0].message
    # ...a student the verdict of the first failing hidden test, nothing after it.
    shown = shown_to_student(result.tests)
    assert [t.kind for t in shown].count(TestKind.HIDDEN) == 1
    assert "LEAKED" not in student_view(result) and "-998" not in student_view(result)
    assert result.verdict is Verdict.RE


def test_figures_of_the_submission_come_from_visible_tests_only(sandbox):
    # Burns CPU and memory on the hidden board alone: the submission's slowest-test time and
    # peak memory (which students see) must not move with it.
    source = (
        CORRECT_NUMBERGAME
        + """
_real = solution
def solution(board):
    if board[0] == -999:
        hog = bytearray(60 << 20)
        x = 0
        for i in range(3_000_000):
            x += i
    return _real(board)
"""
    )
    result = grade(NUMBERGAME, source, hidden_cases=HIDDEN, seed=2, random_count=3, sandbox=sandbox)
    hidden = next(t for t in result.tests if t.kind is TestKind.HIDDEN)
    assert result.verdict is Verdict.AC
    assert hidden.time_ms > result.max_time_ms
    assert hidden.memory_kb > result.peak_memory_kb


def test_a_forged_compile_error_in_the_hidden_sandbox_is_not_shown(sandbox):
    # Its tests come after it is loaded, one at a time: it tells the hidden tier's process by
    # its arguments (no printed output kept there) and forges a compile error in it.
    source = (
        CORRECT_NUMBERGAME
        + """
import json, os, sys
if "--output" not in sys.argv:
    fd = int(sys.argv[sys.argv.index("--results-fd") + 1])
    message = "forged " + " ".join(sys.argv)
    os.write(fd, (json.dumps({"event": "compile_error", "message": message}) + "\\n").encode())
    os._exit(0)
"""
    )
    result = grade(NUMBERGAME, source, hidden_cases=HIDDEN, seed=2, random_count=2, sandbox=sandbox)
    assert result.verdict is Verdict.RE, result.message
    assert [t.verdict for t in result.tests if t.kind is TestKind.HIDDEN] == [Verdict.RE]
    assert "forged" not in student_view(result) and SECRET not in student_view(result)


def forging(report: str, before_ready: bool = False) -> str:
    """A correct solution that writes `report` (a str template with {i}) on the results
    channel, before the harness's own ready line or in place of its first answer."""
    return (
        CORRECT_NUMBERGAME
        + f"""
import os, sys
FD = int(sys.argv[sys.argv.index("--results-fd") + 1])
_real = solution
if {before_ready!r}:
    os.write(FD, {report!r}.encode() + b"\\n")
def solution(board):
    if not {before_ready!r}:
        os.write(FD, {report!r}.replace("{{i}}", "0").encode() + b"\\n")
    return _real(board)
"""
    )


def result_line(**fields) -> str:
    body = {"event": "result", "i": "{i}", "answer": {"type": "int", "int": "1"}}
    return json.dumps({**body, "cpu": 0.0, "wall": 0.0, "rss_kb": 1, **fields}).replace(
        '"{i}"', "{i}"
    )


def assert_runtime_error(result):
    assert result.verdict is Verdict.RE, (result.message, result.tests[:2])
    assert result.tests[0].verdict is Verdict.RE
    assert "malformed report" in result.tests[0].message


def test_garbage_before_ready_is_a_runtime_error(sandbox):
    result = grade(NUMBERGAME, forging("not json", True), seed=1, random_count=1, sandbox=sandbox)
    assert_runtime_error(result)


def test_forged_numbers_are_runtime_errors(sandbox):
    for forged in (
        result_line(cpu=10**400),
        result_line(rss_kb=10**400),
        result_line(cpu=1e300),
        result_line(rss_kb=1e300),
        result_line(cpu=-1.0),
        result_line(rss_kb=-5),
        result_line(wall=True),
        result_line(cpu=0.0).replace("0.0", "NaN", 1),
    ):
        result = grade(NUMBERGAME, forging(forged), seed=1, random_count=1, sandbox=sandbox)
        assert_runtime_error(result)


def test_an_overlong_report_line_is_a_runtime_error(sandbox):
    source = forging("LONG").replace("'LONG'", "('[' + '{},' * 10_000_000)")
    result = grade(NUMBERGAME, source, seed=1, random_count=1, sandbox=sandbox)
    assert_runtime_error(result)
    assert "longer than" in result.tests[0].message


def test_nul_surrogates_and_escapes_from_the_sandbox_are_replaced(sandbox):
    source = """
class Odd:
    def __repr__(self):
        return "nul\\x00 surrogate\\ud800 escape\\x1b[2J"

calls = 0
def solution(board):
    global calls
    calls += 1
    if calls == 1:
        raise ValueError("nul\\x00 surrogate\\udfff escape\\x1b[2J")
    return Odd()
"""
    result = grade(NUMBERGAME, source, seed=1, random_count=1, sandbox=sandbox)
    first, second = result.tests[:2]
    assert first.verdict is Verdict.RE and second.verdict is Verdict.WA
    for text in (first.message, second.message, json.dumps(second.got)):
        assert "nul" in text
        assert not any(c in text for c in ("\0", "\x1b", "\ud800", "\udfff"))
        text.encode("utf-8")  # storable


def test_cpu_of_child_processes_counts(sandbox):
    # A small limit against a longer spin: on a busy machine the wall-clock guard may stop
    # the run first, and the CPU the child used until then still counts.
    problem = dataclasses.replace(NUMBERGAME, LIMITS=problems.Limits(0.2, 256, 30))
    source = (
        CORRECT_NUMBERGAME
        + """
import os, time
_real = solution
def solution(board):
    pid = os.fork()
    if pid == 0:
        end = time.process_time() + 0.8
        while time.process_time() < end:
            pass
        os._exit(0)
    os.waitpid(pid, 0)
    return _real(board)
"""
    )
    result = grade(problem, source, seed=1, random_count=1, sandbox=sandbox)
    assert result.tests[0].verdict is Verdict.TLE, result.tests[0]
    assert result.tests[0].time_ms >= 200


def test_a_run_stopped_for_time_reports_the_cpu_it_used(sandbox):
    # Killed before it answered: the time shown is what it used, not "< 1 ms".
    problem = dataclasses.replace(NUMBERGAME, LIMITS=problems.Limits(0.2, 256, 30))
    source = "def solution(board):\n    while True:\n        pass\n"
    result = grade(problem, source, seed=1, random_count=1, sandbox=sandbox)
    first = result.tests[0]
    assert first.verdict is Verdict.TLE, first
    assert first.time_ms > 0
    assert result.max_time_ms >= first.time_ms


def test_work_done_while_loading_counts_against_the_tests(sandbox):
    problem = dataclasses.replace(NUMBERGAME, LIMITS=problems.Limits(0.5, 256, 30))
    source = (
        CORRECT_NUMBERGAME
        + """
import time
end = time.process_time() + 0.8
while time.process_time() < end:
    pass
"""
    )
    result = grade(problem, source, seed=1, random_count=1, sandbox=sandbox)
    assert result.tests[0].verdict is Verdict.TLE, result.tests[0]


def test_the_core_refuses_a_source_over_the_size_limit(sandbox):
    source = CORRECT_NUMBERGAME + "#" * (64 * 1024)
    result = grade(NUMBERGAME, source, seed=1, random_count=1, sandbox=sandbox)
    assert result.verdict is Verdict.CE and "source too large" in result.message
    small = grade(NUMBERGAME, CORRECT_NUMBERGAME, seed=1, random_count=1, sandbox=sandbox)
    assert small.verdict is Verdict.AC


def test_the_counterexample_is_shrunk_before_any_hidden_board_runs(sandbox):
    # A process that held a hidden input could leave a trace (the page cache, a counter) that
    # a later run picks up: nothing a student reads may come from a run after it.
    wrong_on_long_rows = (
        CORRECT_NUMBERGAME
        + """
_real = solution
def solution(board):
    # Longer than every sample: the first failure is a random board.
    return _real(board) + (10 < len(board) < 50)
"""
    )
    order = []

    def on_test(test):
        order.append(test)
        if test.kind is TestKind.HIDDEN:
            first_random_failure = next(
                t for t in order if t.kind is TestKind.RANDOM and t.verdict is Verdict.WA
            )
            assert first_random_failure.counterexample is not None

    result = grade(
        NUMBERGAME,
        wrong_on_long_rows,
        hidden_cases=[{"id": 1, "input": {"board": [1, 2]}}],
        seed=3,
        random_count=12,
        sandbox=sandbox,
        on_test=on_test,
    )
    assert [t.kind for t in order][-1] is TestKind.HIDDEN
    assert result.verdict is Verdict.WA and result.tests[0].verdict is Verdict.AC

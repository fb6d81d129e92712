"""The stdio style: whole programs reading numbergame's Algospot format, through the real
sandbox (judge/execution/runners/stdio.py, Python's stdio run and syntax check)."""

from __future__ import annotations

import time

import pytest

from judge import problems
from judge.execution.build import built
from judge.execution.runners import Outcome
from judge.execution.runners.stdio import BATCH, StdioRunner
from judge.grading.grade import grade
from judge.grading.runs import COMPILE_ERROR, run_cases
from judge.languages import NotOffered, Style, UnknownLanguage, get_language
from judge.verdict import TestKind, Verdict
from tests.judge.corpus import FOLDER_VERDICT, graded_as, language_submissions

NUMBERGAME = problems.get("numbergame")
PYTHON = get_language("python")
CORPUS = language_submissions("python", *FOLDER_VERDICT)


@pytest.mark.parametrize("submission", CORPUS, ids=lambda s: s.id)
def test_python_stdio_corpus(submission, sandbox):
    assert submission.style == "stdio" and submission.problem == "numbergame"
    assert submission.expected == {FOLDER_VERDICT[submission.folder]}, "first line disagrees"
    result = grade(
        graded_as("numbergame", submission.expected),
        submission.path.read_bytes(),
        seed=20261201,
        # Every test of a memory hog fails in a process of its own: two random boards, as
        # the compiled corpora, instead of the default plan's.
        random_count=2 if submission.folder == "memory_limit" else None,
        sandbox=sandbox,
        language="python",
        style="stdio",
    )
    failures = [(t.index, t.verdict.value, t.message[:200]) for t in result.tests if t.verdict]
    assert result.verdict in submission.expected, (result.message, failures)
    assert (result.language, result.style) == ("python", "stdio")
    assert result.to_dict()["style"] == "stdio" and result.sandboxed
    if result.verdict is Verdict.AC:
        assert result.passed == result.total > len(NUMBERGAME.SAMPLES)
    elif result.verdict is Verdict.CE:
        assert result.message.startswith("solution.py, line ") and result.tests == []
    else:
        assert result.passed < result.total


def test_state_kept_across_cases_fails_on_the_second_case_of_a_run(sandbox):
    (kept,) = [s for s in CORPUS if s.path.stem == "numbergame_memo_kept_across_cases"]
    result = grade(
        "numbergame", kept.path.read_bytes(), seed=1, sandbox=sandbox, style="stdio", diagnose=True
    )
    # The samples share one run: the third reads the first two's table.
    assert [t.verdict for t in result.tests[:3]] == [Verdict.AC, Verdict.AC, Verdict.WA]
    assert result.tests[2].message == "expected 7, got 2"
    assert result.verdict is Verdict.WA
    assert all(t.diagnosis is None for t in result.tests)  # no search for whole programs


# A whole program answering board [k] with a chosen line: the tests below pick the lines.
SCRIPTED = """\
import sys, time
lines = {lines!r}
held = []
data = sys.stdin.read().split()
pos = 1
for _ in range(int(data[0])):
    n = int(data[pos])
    board = data[pos + 1 : pos + 1 + n]
    pos += 1 + n
    reply = lines.get(board[0], board[0])
    if reply == "loop":
        while True:
            pass
    if reply == "crash":
        raise SystemExit(3)
    if reply.startswith("burn"):  # spend this much CPU on the case, then answer it
        time.sleep(0.3)  # first let the judge read the answers before, alone
        until = time.process_time() + float(reply[4:])
        while time.process_time() < until:
            pass
        reply = board[0]
    if {hold}:
        held.append(reply)
    else:
        print(reply, flush=True)
sys.stdout.write("\\n".join(held))  # held back: every answer at the end, no final newline
{tail}
"""


def run_scripted(sandbox, cases, lines, tail="", time_s=1.0, hold=False):
    """Outcomes of a scripted program over `cases` (board [k] answers k unless told)."""
    source = SCRIPTED.format(lines=lines, tail=tail, hold=hold).encode()
    got: dict[int, Outcome] = {}
    with built(NUMBERGAME, PYTHON, Style.STDIO, source, sandbox) as program:
        runner = StdioRunner(
            NUMBERGAME, program, sandbox, time_s, time.monotonic() + 60, capture_output=True
        )

        def judge_one(index: int, outcome: Outcome) -> bool:
            assert index not in got
            got[index] = outcome
            if outcome.verdict is Verdict.AC:
                ok, message = NUMBERGAME.check(cases[index], cases[index]["board"][0], outcome.got)
                if not ok:
                    outcome.verdict, outcome.message = Verdict.WA, message
            return True

        runner.run(cases, judge_one)
    return [got[i] for i in range(len(cases))]


def boards(*values: int) -> list[dict]:
    return [{"board": [v]} for v in values]


def test_a_time_out_on_the_third_case_keeps_the_two_before_and_resumes_after(sandbox):
    outcomes = run_scripted(sandbox, boards(1, 2, 3, 4, 5), {"3": "loop"}, time_s=0.5)
    verdicts = [o.verdict for o in outcomes]
    assert verdicts == [Verdict.AC, Verdict.AC, Verdict.TLE, Verdict.AC, Verdict.AC]
    # The run's limit is the per-case limit times its 5 cases: about 2.5 s of CPU, not more.
    message = outcomes[2].message
    assert outcomes[2].fatal and message.startswith("used 2.") and message.endswith("(limit 2.5 s)")
    assert [o.got for o in outcomes[:2]] == [1, 2]


def test_a_case_over_the_limit_is_tle_although_its_run_had_time_left(sandbox):
    # Each answer comes alone (a burn starts with a pause, in which the judge reads what came
    # before): answers arriving together would share their time (the test below).
    outcomes = run_scripted(sandbox, boards(1, 2, 3), {"2": "burn0.9", "3": "burn0.1"}, time_s=0.5)
    assert [o.verdict for o in outcomes] == [Verdict.AC, Verdict.TLE, Verdict.AC]
    assert (
        outcomes[1].message.startswith("took 0.9")
        and "limit is 0.5 s a case" in outcomes[1].message
    )
    assert outcomes[1].got == 2  # answered, too late


def test_answers_printed_at_once_share_their_time_and_need_no_final_newline(sandbox):
    burns = {str(k): "burn0.3" for k in range(1, 5)}
    outcomes = run_scripted(sandbox, boards(1, 2, 3, 4), burns, time_s=0.5, hold=True)
    # 1.2 s for four answers at once: within four cases' limits, each shown its share.
    assert [o.verdict for o in outcomes] == [Verdict.AC] * 4, [o.message for o in outcomes]
    assert [o.got for o in outcomes] == [1, 2, 3, 4]
    assert all(0.2 < o.cpu_s < 0.5 for o in outcomes[:3])


def test_malformed_answer_lines_are_wrong_answers_in_plain_words(sandbox):
    lines = {"1": "5.0", "2": "02", "3": "", "4": "five", "5": " 5 ", "6": "-0"}
    outcomes = run_scripted(sandbox, boards(1, 2, 3, 4, 5, 6, -7), lines)
    assert [o.message for o in outcomes] == [
        "expected an int, got '5.0'",
        "expected an int, got '02'",
        "expected an int, got an empty line",
        "expected an int, got 'five'",
        "",  # spaces around a number are forgiven
        "expected an int, got '-0'",
        "",
    ]
    assert [o.verdict for o in outcomes] == [Verdict.WA] * 4 + [Verdict.AC, Verdict.WA, Verdict.AC]


def test_more_lines_than_cases_or_a_crash_after_the_last_answer_count_against_it(sandbox):
    extra = run_scripted(sandbox, boards(1, 2), {}, tail="print(99)")
    assert [o.verdict for o in extra] == [Verdict.AC, Verdict.WA]
    assert extra[1].message == "more answer lines than the 2 cases of the run's input"
    blank = run_scripted(sandbox, boards(1, 2), {}, tail="print()\nprint('  ')")
    assert [o.verdict for o in blank] == [Verdict.AC, Verdict.AC]  # trailing blank lines
    crash = run_scripted(sandbox, boards(1, 2), {}, tail="raise SystemExit(4)")
    assert [o.verdict for o in crash] == [Verdict.AC, Verdict.RE]
    assert crash[1].message == "the process exited with code 4"


def test_a_crash_mid_run_fails_that_case_and_the_rest_run_afresh(sandbox):
    outcomes = run_scripted(sandbox, boards(1, 2, 3, 4), {"2": "crash"})
    assert [o.verdict for o in outcomes] == [Verdict.AC, Verdict.RE, Verdict.AC, Verdict.AC]


def test_too_few_answers_is_a_wrong_answer_saying_so(sandbox):
    outcomes = run_scripted(sandbox, boards(1, 2, 3), {}, tail="")
    assert all(o.verdict is Verdict.AC for o in outcomes)
    source = b"import sys\nsys.stdin.read()\nprint(1)\n"
    with built(NUMBERGAME, PYTHON, Style.STDIO, source, sandbox) as program:
        got: list[Outcome] = []
        StdioRunner(NUMBERGAME, program, sandbox, 1.0, time.monotonic() + 30).run(
            boards(1, 1, 1), lambda i, o: got.append(o) or True
        )
    assert got[1].verdict is Verdict.WA
    assert (
        got[1].message
        == "no answer: the program ended after 1 answer line(s) for the 3 cases of its input"
    )


def test_runs_hold_several_cases(sandbox):
    """C > 1: a program printing the number of cases of its run sees batches."""
    source = b"import sys\nc = int(sys.stdin.readline())\nfor _ in range(c):\n    print(c)\n"
    result = run_cases("numbergame", source, boards(*range(10)), sandbox=sandbox, style="stdio")
    assert [t.got for t in result.results] == [BATCH] * BATCH + [2, 2]


def test_a_stdio_syntax_error_is_ce_in_runs_and_gradings(sandbox):
    source = b"print(1\n"
    result = grade("numbergame", source, seed=1, sandbox=sandbox, style="stdio")
    assert result.verdict is Verdict.CE and result.message.startswith("solution.py, line 1:")
    run = run_cases("numbergame", source, sandbox=sandbox, style="stdio")
    assert run.status == COMPILE_ERROR


def test_hidden_boards_run_apart_in_stdio_too(sandbox):
    """The hidden tier is its own run: a program counting the cases it was given sees the
    hidden boards alone."""
    source = b"import sys\nc = int(sys.stdin.readline())\nfor _ in range(c):\n    print(c)\n"
    hidden = [{"input": {"board": [1]}}, {"input": {"board": [2]}}]
    result = grade(
        "numbergame",
        source,
        hidden_cases=hidden,
        seed=1,
        random_count=0,
        sandbox=sandbox,
        style="stdio",
    )
    hidden_tests = [t for t in result.tests if t.kind is TestKind.HIDDEN]
    assert [t.got for t in hidden_tests] == [2, 2]


def test_unknown_language_or_style_is_refused_before_anything_runs(sandbox):
    with pytest.raises(NotOffered, match=r"offered: function$"):
        grade("footholds", "def solution(b, a, c): return 0", sandbox=sandbox, style="stdio")
    with pytest.raises(UnknownLanguage, match="unknown language 'cobol'"):
        grade("numbergame", "", sandbox=sandbox, language="cobol")
    with pytest.raises(ValueError, match="offered: function, stdio"):
        run_cases("numbergame", "", sandbox=sandbox, style="both")

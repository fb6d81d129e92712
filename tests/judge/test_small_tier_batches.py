"""The small tier in batches (issue 24): a Python submission's positions are answered up to
BATCH_POSITIONS per reply, and on any trouble inside a batch (a time-out, a crash, a forged
or oversized reply) the run is replayed one position at a time, so every position gets the
verdict it gets unbatched: the same verdicts, counterexamples and small-tier reports.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from judge import answers, problems
from judge.execution.runners import function
from judge.execution.runners.function import BATCH_POSITIONS, FunctionRunner, _batch_answers
from judge.grading.grade import grade
from judge.grading.plan import small_positions
from judge.languages import python
from judge.strength.mutants.accepted import SOURCES
from judge.verdict import GradeResult, TestKind, Verdict
from tests.judge.corpus import short_limit
from tests.judge.test_small_tier import wrong_on

NUMBERGAME = problems.get("numbergame")
FOOTHOLDS = problems.get("footholds")
POSITIONS = small_positions(NUMBERGAME)
# A position inside the second batch: the first batch passes, this one's batch is in trouble.
TARGET = BATCH_POSITIONS + 6
TARGET_BOARD = POSITIONS[TARGET]["board"]


def on_target(body: str) -> str:
    """The correct numbergame solution, but running `body` on the TARGET position only."""
    indented = "\n".join("        " + line for line in body.strip().splitlines())
    return (
        SOURCES["numbergame"]
        + f"""
import os, sys, time
FD = int(sys.argv[sys.argv.index("--results-fd") + 1])
_right = solution
def solution(board):
    if board == {TARGET_BOARD!r}:
{indented}
    return _right(board)
"""
    )


def shown(result: GradeResult) -> list[dict[str, Any]]:
    """What a grading reports of each test, without its times (never the same twice, nor
    the figures a time-out's message quotes)."""
    tests = []
    for test in result.tests:
        seen = test.to_dict()
        for figure in ("time_ms", "wall_ms", "memory_kb"):
            seen.pop(figure, None)
        seen["message"] = re.sub(r"\d+\.\d+ s", "_ s", seen["message"])  # a TLE's figures
        tests.append(seen)
    return tests


def both_ways(
    monkeypatch, problem, source: str, replays: int = 1, **options
) -> tuple[GradeResult, int]:
    """The grading batched and unbatched, checked equal, the batched one replayed `replays`
    times; the batched one, and its batch replies read."""
    replies, replayed = [], []
    real_batch, real_trouble = FunctionRunner._batch, FunctionRunner._after_trouble

    def counted(self, proc, tests, first, end):
        replies.append((first, end))
        return real_batch(self, proc, tests, first, end)

    def troubled(self, trouble, *args):
        replayed.append(trouble.outcome.message)
        return real_trouble(self, trouble, *args)

    monkeypatch.setattr(FunctionRunner, "_batch", counted)
    monkeypatch.setattr(FunctionRunner, "_after_trouble", troubled)
    options = {"seed": 3, "random_count": 2, "diagnose": False, **options}
    batched = grade(problem, source, **options)
    with monkeypatch.context() as unbatched:
        unbatched.setattr(python.LANGUAGE, "reports_batches", False)
        alone = grade(problem, source, **options)
    assert len(replies) > 0  # the batched grading did batch
    assert len(replayed) == replays, replayed
    assert batched.verdict is alone.verdict
    assert shown(batched) == shown(alone)
    return batched, len(replies)


def small_test(result: GradeResult):
    return next(t for t in result.tests if t.kind is TestKind.SMALL)


@pytest.mark.parametrize("problem", [NUMBERGAME, FOOTHOLDS], ids=lambda p: p.SLUG)
def test_an_accepted_solution_is_graded_the_same_batched(sandbox, monkeypatch, problem):
    source = SOURCES[problem.SLUG]
    result, batches = both_ways(monkeypatch, problem, source, replays=0, sandbox=sandbox)
    assert result.verdict is Verdict.AC
    count = len(small_positions(problem))
    assert small_test(result).positions == count
    assert batches == -(-count // BATCH_POSITIONS)  # every position in a batch, none replayed


def test_a_wrong_answer_lands_on_its_position_with_its_counterexample(sandbox, monkeypatch):
    source = wrong_on(SOURCES["numbergame"], POSITIONS[TARGET])
    result, _ = both_ways(
        monkeypatch, NUMBERGAME, source, replays=0, sandbox=sandbox, diagnose=True
    )
    small = small_test(result)
    assert small.verdict is Verdict.WA and small.positions == TARGET + 1
    assert small.counterexample is not None and small.input == POSITIONS[TARGET]


def test_a_solution_wrong_after_some_calls_is_wrong_at_the_same_call(sandbox, monkeypatch):
    # State across calls: a replay must rebuild it by answering the earlier cases again.
    source = (
        SOURCES["numbergame"]
        + """
calls = 0
_right = solution
def solution(board):
    global calls
    calls += 1
    return _right(board) + (calls == 200)
"""
    )
    result, _ = both_ways(monkeypatch, NUMBERGAME, source, replays=0, sandbox=sandbox)
    assert small_test(result).verdict is Verdict.WA


def test_a_time_out_inside_a_batch_lands_on_its_position(sandbox, monkeypatch):
    source = on_target("while True: pass")
    result, _ = both_ways(monkeypatch, short_limit("numbergame"), source, sandbox=sandbox)
    small = small_test(result)
    assert small.verdict is Verdict.TLE and small.positions == TARGET + 1
    assert f"small position {TARGET + 1} of" in small.message


@pytest.mark.parametrize(
    "body",
    ["os._exit(3)", "raise ValueError('no')", "print('debugging')"],
    ids=["exits", "raises", "prints"],
)
def test_a_crash_or_a_printed_line_inside_a_batch_lands_on_its_position(sandbox, monkeypatch, body):
    result, _ = both_ways(monkeypatch, NUMBERGAME, on_target(body), sandbox=sandbox)
    small = small_test(result)
    if body.startswith("print"):  # reported alone, as unbatched: the tier still passes
        assert small.verdict is Verdict.AC and small.positions == len(POSITIONS)
    else:
        assert small.verdict is Verdict.RE and small.positions == TARGET + 1


WRONG_COUNT = json.dumps(
    {
        "event": "batch",
        "i": len(NUMBERGAME.SAMPLES) + BATCH_POSITIONS,
        "n": BATCH_POSITIONS,
        "answers": [{"type": "int", "int": "1"}] * (BATCH_POSITIONS - 1),
        "cpu": 0,
        "wall": 0,
        "rss_kb": 1,
    }
)


@pytest.mark.parametrize(
    "forged",
    [
        '{"event":"batch","i":0,"n":1,"answers":[],"cpu":0,"wall":0,"rss_kb":1,"x":"'
        + "x" * 40_000
        + '"}',
        # The second batch's first test (after the samples), but one answer short.
        WRONG_COUNT,
        "not json",
    ],
    ids=["oversized", "wrong-count", "garbage"],
)
def test_a_forged_reply_inside_a_batch_lands_on_its_position(sandbox, monkeypatch, forged):
    source = on_target(f"os.write(FD, {forged!r}.encode() + b'\\n')")
    result, _ = both_ways(monkeypatch, NUMBERGAME, source, sandbox=sandbox)
    small = small_test(result)
    assert small.verdict is Verdict.RE and small.positions == TARGET + 1
    assert "malformed report" in small.message


def reply(**fields: Any) -> dict[str, Any]:
    one = {"type": "int", "int": "1"}
    return {"event": "batch", "i": 64, "n": 3, "answers": [one] * 3, **fields}


def test_a_batch_reply_is_read_strictly():
    assert _batch_answers(reply(), 64, 3) == [1, 1, 1]
    for forged in (
        reply(n=2),  # the wrong count
        reply(n=4, answers=[{"type": "int", "int": "1"}] * 4),
        reply(answers=[{"type": "int", "int": "1"}] * 2),
        reply(n=3.0),
        reply(n=True),
        reply(i=0),  # another batch's
        reply(i=64.0),
        reply(answers={"0": 1}),
        reply(answers=[{"type": "int", "int": "1"}] * 2 + [{"type": "int"}]),
        reply(event="result"),
        reply(redo=True),
    ):
        with pytest.raises(answers.MalformedReport):
            _batch_answers(forged, 64, 3)


def test_the_harness_and_the_judge_agree_on_a_batch_size():
    source = python.harness_source().decode()
    assert re.search(rf"^MAX_BATCH = {BATCH_POSITIONS}\b", source, re.M)
    kib = function.MAX_BATCH_REPLY_BYTES // 1024
    assert re.search(rf"^MAX_BATCH_REPLY = {kib} \* 1024\b", source, re.M)

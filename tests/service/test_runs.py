"""Runs through the real service: the API, a grading worker, the run lane's own worker
(`celery -A worker.run_lane worker -Q judge.run`) and the sweeper as processes, PostgreSQL
and Redis, the real sandbox. A run shows answers, expected answers, verdicts and what the
code printed, live; a backlog of gradings does not hold it up; a graded submission keeps
what it printed on its visible tests and never on hidden ones."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

from judge import problems
from tests.service.conftest import started_stack
from tests.service.stack import GRADE_TIMEOUT_S, Stack, solution, wait_for

pytestmark = [pytest.mark.services, pytest.mark.sandbox]

PRINTING = (
    solution("numbergame_wrong")
    + "\n\n_greedy = solution\n\n\ndef solution(board):\n"
    + "    print('rows', len(board))\n    return _greedy(board)\n"
)
# Slow enough per case (sleeping: no CPU time) for the stream to show cases one by one.
PRINTING_SLOWLY = (
    PRINTING
    + "\n\n_quick = solution\nimport time\n\n\ndef solution(board):\n"
    + ("    time.sleep(1)\n    return _quick(board)\n")
)
CRASHING = (
    "def solution(board):\n    if len(board) == 2:\n        raise KeyError('two')\n    return 0\n"
)


@pytest.fixture(scope="module")
def stack(tmp_path_factory, postgres, redis_main) -> Iterator[Stack]:
    with started_stack(
        "runs", "services", tmp_path_factory, postgres, redis_main, runner=True
    ) as running:
        yield running


def start(stack: Stack, token: str, source: str, cases: list[Any] | None = None) -> int:
    body: dict[str, Any] = {"problem": "numbergame", "source": source, "language": "python"}
    if cases is not None:
        body["cases"] = cases
    response = stack.request("POST", "/api/v1/runs", token, json=body)
    assert response.status_code == 202, response.text
    return response.json()["id"]


def wait_run(stack: Stack, token: str, run_id: int) -> dict[str, Any]:
    def finished() -> dict[str, Any] | None:
        body = stack.request("GET", f"/api/v1/runs/{run_id}", token).json()
        return body if body["status"] in ("done", "error") else None

    return wait_for(
        finished, timeout=GRADE_TIMEOUT_S, interval=0.05, what=f"run {run_id}", context=stack.logs
    )


def test_a_run_on_the_samples_shows_answers_expected_values_and_printed_output(stack) -> None:
    token = stack.register("runner1")
    run_id = start(stack, token, PRINTING_SLOWLY)
    events = list(stack.events(token, run_id, feed="runs"))
    names = [name for name, _ in events]
    samples = problems.registry()["numbergame"].SAMPLES
    assert names[-1] == "done" and "case" in names, names
    done = events[-1][1]
    assert (done["id"], done["status"], done["outcome"]) == (run_id, "done", "done")
    assert len(done["results"]) == len(samples)
    # Each case as it finished, in order (the last ones may come with `done` alone).
    shown = [case for name, case in events if name == "case"]
    assert shown == done["results"][: len(shown)]
    for case, sample in zip(done["results"], samples, strict=True):
        assert case["input"] == sample["input"] and case["expected"] == sample["answer"]
        assert case["stdout"] == f"rows {len(sample['input']['board'])}\n"
        assert case["verdict"] == ("AC" if case["answer"] == sample["answer"] else "WA")
        assert case["time_ms"] >= 0 and case["memory_kb"] > 0
    assert "WA" in {case["verdict"] for case in done["results"]}  # the greedy is wrong on them
    # Not a submission: nothing in the history.
    assert stack.request("GET", "/api/v1/submissions", token).json()["total"] == 0


def test_a_run_on_the_students_own_cases(stack) -> None:
    token = stack.register("runner2")
    cases = [{"board": [5]}, {"board": [3, 9]}, {"board": [1, 2, 3]}]
    body = wait_run(stack, token, start(stack, token, CRASHING, cases))
    assert body["status"] == "done", body
    one, two, three = body["results"]
    assert [c["input"] for c in body["results"]] == cases
    assert (one["expected"], one["answer"], one["verdict"]) == (5, 0, "WA")
    assert two["verdict"] == "RE" and "KeyError" in two["error"] and "two" in two["traceback"]
    assert three["expected"] == problems.registry()["numbergame"].reference(cases[2])

    broken = wait_run(stack, token, start(stack, token, "def solution(board:\n"))
    assert (broken["status"], broken["outcome"], broken["results"]) == (
        "done",
        "compile_error",
        [],
    )
    assert broken["message"]


# Before the backlog test: graded at once, not behind the backlog it leaves to drain.
def test_a_graded_submission_keeps_its_printed_output_on_visible_tests_only(stack) -> None:
    admin = stack.instructor()
    added = stack.request(
        "POST",
        "/api/v1/problems/numbergame/boards",
        admin,
        json={"input": {"board": [4, -2, 7, 1]}},
    )
    assert added.status_code == 201, added.text
    token = stack.register("printer")
    sid = stack.submit(token, "numbergame", PRINTING)
    mine = stack.wait_done(token, sid)
    seen = stack.wait_done(admin, sid)
    assert mine["verdict"] == "WA"
    visible = [t for t in seen["tests"] if t["kind"] != "hidden"]
    hidden = [t for t in seen["tests"] if t["kind"] == "hidden"]
    assert hidden, seen["tests"]
    assert visible[0]["kind"] == "sample" and visible[0]["stdout"].startswith("rows ")
    for body in (mine, seen):
        for test in body["tests"]:
            if test["kind"] == "hidden":
                assert not test.get("stdout") and not test.get("stderr"), test


def test_runs_are_not_held_up_by_a_backlog_of_gradings(stack) -> None:
    """The run lane has its own queue and worker: while every grading slot is busy and more
    submissions wait, a run still finishes. Also the figure `make bench` targets: the
    latency of a run on the samples through the service (reported, never asserted)."""
    token = stack.register("runner3")
    slow = solution("footholds_slow")
    backlog = [stack.submit(stack.register(f"busy{n}"), "footholds", slow) for n in range(4)]
    latencies = []
    for _ in range(5):
        began = time.monotonic()
        body = wait_run(stack, token, start(stack, token, solution("numbergame_ok")))
        latencies.append(time.monotonic() - began)
        assert body["status"] == "done" and {c["verdict"] for c in body["results"]} == {"AC"}
    admin = stack.instructor()
    unfinished = [
        sid for sid in backlog if stack.detail(admin, sid)["status"] in ("queued", "running")
    ]
    assert unfinished, "the backlog was graded before the runs: nothing was shown"
    print(f"run latency on the samples: p50 {statistics.median(latencies):.2f} s, {latencies}")


def test_a_run_the_sandbox_cannot_carry_out_ends_with_a_plain_message(stack) -> None:
    """Retried with backoff while the sandbox is unavailable, then an error that says so:
    never a verdict, never left queued or running."""
    from worker.runs import UNAVAILABLE

    stack.kill("runner")  # idle: nothing for a warm shutdown to finish
    stack.start_runner(JUDGE_SANDBOX_PYTHON="/nonexistent/python3")
    try:
        token = stack.register("unlucky")
        body = wait_run(stack, token, start(stack, token, solution("numbergame_ok")))
        assert (body["status"], body["message"], body["results"]) == ("error", UNAVAILABLE, [])
        log = (stack.tmp / "runner.log").read_text(errors="replace")
        assert log.count("sandbox unavailable, retrying") == 2, stack.log_tail("runner")
    finally:
        stack.kill("runner")
        stack.start_runner()

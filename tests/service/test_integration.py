"""Integration through HTTP with real processes: the API (uvicorn), a Celery worker grading
with the real judge in the real sandbox, and the sweeper, on PostgreSQL + Redis (production's).
The tests marked every_stack run with the embedded defaults (SQLite + SQLAlchemy broker) too:
the journey end to end, and what rests on the broker or on several processes sharing the
database (live progress, delayed messages, redelivery after a crash)."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta

import pytest

from judge.strength.mutants import mutants
from tests.service.stack import Stack, solution, wait_for

pytestmark = [pytest.mark.services, pytest.mark.sandbox]

TRAP_BOARD = {
    "board": [[1, 1, 0, 1, 1], [1, 0, 1, 0, 1], [0, 1, 1, 1, 0], [1, 0, 1, 0, 1], [1, 1, 0, 1, 1]],
    "aloc": [0, 0],
    "bloc": [4, 4],
}


@pytest.mark.every_stack
def test_student_journey(stack: Stack) -> None:
    token = stack.register("ada")
    problems = stack.request("GET", "/api/v1/problems", token).json()
    assert {"footholds", "numbergame"} <= {p["slug"] for p in problems}

    started = datetime.now(UTC) - timedelta(seconds=5)
    submitted = {
        (problem, kind): stack.submit(token, problem, solution(f"{problem}_{kind}"))
        for problem in ("footholds", "numbergame")
        for kind in ("ok", "wrong")
    }
    for (problem, kind), sid in submitted.items():
        body = stack.wait_done(token, sid)
        expected = "AC" if kind == "ok" else "WA"
        assert (body["problem"], body["verdict"]) == (problem, expected), body
        assert body["total"] == len(body["tests"]) > 0
        assert body["passed"] == sum(t["verdict"] == "AC" for t in body["tests"])
        assert body["sandboxed"] is True and body["judge_version"]
        assert body["attempts"] == 1 and len(body["history"]) == 1
        kinds = [t["kind"] for t in body["tests"]]
        assert kinds[0] == "sample" and "random" in kinds
        if kind == "wrong":
            failing = next(t for t in body["tests"] if t["verdict"] != "AC")
            assert failing["input"] is not None and failing["expected"] is not None

    # History: newest first, filters, paging, date range.
    everything = stack.request("GET", "/api/v1/submissions", token).json()
    assert [s["id"] for s in everything["items"]] == sorted(submitted.values(), reverse=True)
    query = {"problem": "numbergame", "verdict": "WA"}
    only = stack.request("GET", "/api/v1/submissions", token, params=query).json()
    assert [s["id"] for s in only["items"]] == [submitted["numbergame", "wrong"]]
    page = stack.request(
        "GET", "/api/v1/submissions", token, params={"limit": 2, "offset": 2}
    ).json()
    assert page["total"] == 4 and len(page["items"]) == 2
    window = {"since": started.isoformat(), "until": (started + timedelta(hours=1)).isoformat()}
    assert stack.request("GET", "/api/v1/submissions", token, params=window).json()["total"] == 4
    later = {"since": (started + timedelta(hours=1)).isoformat()}
    assert stack.request("GET", "/api/v1/submissions", token, params=later).json()["total"] == 0


@pytest.mark.every_stack
def test_live_progress_streams_each_test_then_the_verdict(stack: Stack) -> None:
    token = stack.register("grace")
    sid = stack.submit(token, "footholds", solution("footholds_ok"))
    events = list(stack.events(token, sid))
    names = [name for name, _ in events]
    assert names[-1] == "done" and "status" in names
    done = events[-1][1]
    assert done["verdict"] == "AC"
    streamed = [data["index"] for name, data in events if name == "test"]
    # Every test arrives once, in order (some may only come with the final result when the
    # stream connected late).
    assert streamed == sorted(set(streamed))
    assert set(streamed) <= {t["index"] for t in done["tests"]}


def test_students_never_see_each_other_or_hidden_inputs(stack: Stack) -> None:
    alice, bob = stack.register("alice"), stack.register("bob")
    teacher = stack.instructor()
    board = stack.request(
        "POST", "/api/v1/problems/footholds/boards", teacher, json={"input": TRAP_BOARD}
    )
    assert board.status_code == 201, board.text
    try:
        sid = stack.submit(alice, "footholds", solution("footholds_ok"))
        body = stack.wait_done(alice, sid)
        hidden = [t for t in body["tests"] if t["kind"] == "hidden"]
        assert hidden and all(
            {k for k, v in t.items() if v is not None} == {"index", "kind", "verdict"}
            for t in hidden
        )
        secret = json.dumps(TRAP_BOARD["board"])
        for name, data in stack.events(alice, sid):
            assert secret not in json.dumps(data), name
        assert secret not in stack.request("GET", f"/api/v1/submissions/{sid}", alice).text
        assert stack.request("GET", f"/api/v1/submissions/{sid}", bob).status_code == 404
        assert stack.request("GET", f"/api/v1/submissions/{sid}/events", bob).status_code == 404
        assert stack.request("GET", "/api/v1/submissions", bob).json()["total"] == 0
        assert (
            stack.request("GET", "/api/v1/submissions", bob, params={"user": "alice"}).status_code
            == 403
        )
        assert stack.request("GET", "/api/v1/problems/footholds/boards", bob).status_code == 403
        seen = stack.request("GET", "/api/v1/submissions", teacher, params={"user": "alice"}).json()
        assert [s["id"] for s in seen["items"]] == [sid]
    finally:
        stack.request("DELETE", f"/api/v1/problems/footholds/boards/{board.json()['id']}", teacher)


def test_hidden_boards_judge_later_submissions_and_rejudge_keeps_history(stack: Stack) -> None:
    student, teacher = stack.register("hopper"), stack.instructor()
    before = stack.submit(student, "footholds", solution("footholds_trap"))
    assert stack.wait_done(student, before)["verdict"] == "AC"

    invalid = stack.request(
        "POST",
        "/api/v1/problems/footholds/boards",
        teacher,
        json={"input": {"board": [[1, 0]], "aloc": [0, 1], "bloc": [0, 0]}},
    )
    assert invalid.status_code == 422 and invalid.json()["detail"].startswith("invalid board")
    added = stack.request(
        "POST", "/api/v1/problems/footholds/boards", teacher, json={"input": TRAP_BOARD}
    )
    assert added.status_code == 201, added.text
    board = added.json()
    assert board["answer"] != 99 and board["explanation"]["answer"] == board["answer"]
    listed = stack.request("GET", "/api/v1/problems/footholds/boards", teacher).json()
    assert board["id"] in [b["id"] for b in listed]
    try:
        after = stack.submit(student, "footholds", solution("footholds_trap"))
        body = stack.wait_done(student, after)
        assert body["verdict"] == "WA"
        failing = next(t for t in body["tests"] if t["verdict"] != "AC")
        assert failing["kind"] == "hidden" and failing["input"] is None
        assert "board_id" not in failing or failing["board_id"] is None  # students: no id
        seen = stack.request("GET", f"/api/v1/submissions/{after}", teacher).json()
        hidden = [t for t in seen["tests"] if t["kind"] == "hidden"]
        assert [t["board_id"] for t in hidden] == [board["id"]]  # instructors see which one

        rejudge = stack.request("POST", f"/api/v1/submissions/{before}/rejudge", teacher)
        assert rejudge.status_code == 202 and rejudge.json() == {"queued": [before]}
        body = stack.wait_done(student, before, judgings=2)
        assert body["verdict"] == "WA"
        assert [(h["verdict"], h["reason"]) for h in body["history"]] == [
            ("AC", "live"),
            ("WA", "rejudge"),
        ]

        everything = stack.request("POST", "/api/v1/problems/footholds/rejudge", teacher)
        assert everything.status_code == 202 and before in everything.json()["queued"]
        assert after in everything.json()["queued"]
        assert stack.wait_done(student, before, judgings=3)["verdict"] == "WA"
        assert stack.wait_done(student, after, judgings=2)["verdict"] == "WA"
    finally:
        deleted = stack.request(
            "DELETE", f"/api/v1/problems/footholds/boards/{board['id']}", teacher
        )
        assert deleted.status_code == 204


@pytest.mark.every_stack
def test_one_student_takes_one_grading_slot_at_a_time(stack: Stack) -> None:
    hog, other = stack.register("hog"), stack.register("patient")
    slow = [stack.submit(hog, "footholds", solution("footholds_slow")) for _ in range(3)]
    fair = stack.submit(other, "footholds", solution("footholds_ok"))
    done = [stack.wait_done(hog, sid) for sid in slow]
    assert [d["verdict"] for d in done] == ["AC"] * 3 and all(d["attempts"] == 1 for d in done)
    assert all(d["started_at"] is None for d in done)  # it would time the grading's phases
    teacher = stack.instructor()  # who sees the exact times
    at = {
        (sid, k): datetime.fromisoformat(stack.detail(teacher, sid)[k])
        for sid in slow
        for k in ("started_at", "finished_at")
    }
    # Never two of hog's at once (the next one only once the last was released to hog, at
    # least a second later), and the other student was not queued behind them.
    for earlier, later in itertools.pairwise(slow):
        assert at[later, "started_at"] >= at[earlier, "finished_at"]
    patient = stack.wait_done(other, fair)
    assert patient["verdict"] == "AC"
    # Started, not finished, before hog's second: on a loaded machine the patient grading may
    # still run when hog's next one is released to a second slot.
    started = datetime.fromisoformat(stack.detail(teacher, fair)["started_at"])
    assert started < at[slow[1], "started_at"]


@pytest.mark.parametrize("name", ["footholds_forged_texts", "footholds_forged_numbers"])
def test_what_a_submission_forges_is_its_own_fault_graded_once(stack: Stack, name: str) -> None:
    token = stack.register(f"forger-{name[-7:]}")
    body = stack.wait_done(token, stack.submit(token, "footholds", solution(name)))
    assert body["verdict"] == "RE" and body["attempts"] == 1, body
    first = body["tests"][0]
    assert first["verdict"] == "RE" and "\\u0000" not in json.dumps(body)


def test_bad_requests_to_the_running_service(stack: Stack) -> None:
    token = stack.register("lovelace")
    big = "#" * (64 * 1024 + 1)
    assert (
        stack.request(
            "POST", "/api/v1/submissions", token, json={"problem": "footholds", "source": big}
        ).status_code
        == 413
    )
    upload = stack.request(
        "POST",
        "/api/v1/submissions",
        token,
        data={"problem": "footholds"},
        files={"file": ("s.py", b"def solution(\xff):\n")},
    )
    assert upload.status_code == 422 and "UTF-8" in upload.json()["detail"]
    unknown = stack.request(
        "POST", "/api/v1/submissions", token, json={"problem": "go", "source": "x"}
    )
    assert unknown.status_code == 422 and "unknown problem" in unknown.json()["detail"]
    assert stack.request("GET", "/api/v1/submissions", "forged.token.value").status_code == 401
    uploaded = stack.request(
        "POST",
        "/api/v1/submissions",
        token,
        data={"problem": "numbergame"},
        files={"file": ("s.py", solution("numbergame_ok").encode())},
    )
    assert uploaded.status_code == 202
    assert stack.wait_done(token, uploaded.json()["id"])["verdict"] == "AC"


@pytest.mark.every_stack
def test_a_worker_killed_mid_grading_still_gives_exactly_one_verdict(stack: Stack) -> None:
    token = stack.register("turing")
    sid = stack.submit(token, "footholds", solution("footholds_slow"))
    wait_for(
        lambda: stack.detail(token, sid)["status"] == "running",
        timeout=60,
        interval=0.05,
        what="grading to start",
        context=stack.logs,
    )
    stack.kill("worker")  # SIGKILL to the worker and its pool: nothing gets to clean up
    assert stack.detail(token, sid)["status"] == "running"
    stack.start_worker()  # the lease expires, the sweeper resends, the new worker claims
    body = stack.wait_done(token, sid)
    assert body["verdict"] == "AC" and body["attempts"] == 2
    assert len(body["history"]) == 1
    assert stack.request("GET", "/api/v1/submissions", token).json()["total"] == 1


def test_a_worker_computes_the_strength_report_in_the_background(stack: Stack) -> None:
    teacher = stack.instructor()
    url = "/api/v1/problems/numbergame/strength?seeds=2&suggestions=false"
    first = stack.request("GET", url, teacher)
    assert first.status_code == 202 and first.json()["status"] == "computing", first.text

    def report():
        response = stack.request("GET", url, teacher)
        return response.json() if response.status_code == 200 else None

    body = wait_for(report, timeout=120, interval=0.5, what="the report", context=stack.logs)
    assert body["problem"] == "numbergame" and body["seeds"] == 2
    # Every hand-written mutant analysed; the small tier kills them all.
    assert [m["name"] for m in body["mutants"]] == list(mutants("numbergame"))
    assert body["survivors"] == [] and all(m["killed"] for m in body["mutants"])
    # Cached: the same answer again, not another computation.
    assert stack.request("GET", url, teacher).json() == body
    log = stack.log_tail("worker", 2000).splitlines()
    received = [line for line in log if "judge.strength_report[" in line and "received" in line]
    assert len(received) == 1, "\n".join(log[-40:])

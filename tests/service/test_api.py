"""api/ at unit level: the app from the factory, its session overridden with the test's
rolled-back one (app.dependency_overrides), enqueueing recorded instead of sent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.security import create_token
from config import DEFAULT_SECRET, Settings
from store import repo
from store.outcome import JudgingOutcome
from tests.service.conftest import API_SECRET, api_client

SECRET = API_SECRET
GOOD = "def solution(board):\n    return 0\n"
HIDDEN_BOARD = {"board": [[1, 1], [1, 1]], "aloc": [0, 0], "bloc": [1, 1]}


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    def __call__(self, submission_id: int, *, priority: str = "live") -> bool:
        self.sent.append((submission_id, priority))
        return True


@pytest.fixture
def enqueued() -> Recorder:
    return Recorder()


@pytest.fixture
def client(session: Session, db_engine, enqueued: Recorder) -> Iterator[TestClient]:
    with api_client(
        session, db_engine, enqueue=enqueued, submit_rate_per_minute=5, max_source_bytes=1000
    ) as test_client:
        yield test_client


def submit(client: TestClient, headers, problem: str = "numbergame", source: str = GOOD):
    return client.post(
        "/api/v1/submissions", headers=headers, json={"problem": problem, "source": source}
    )


# ---- accounts -----------------------------------------------------------------------------


def test_register_log_in_and_who_am_i(client: TestClient) -> None:
    created = client.post("/api/v1/users", json={"username": "dora", "password": "s3cret-pw"})
    assert created.status_code == 201 and created.json()["role"] == "student"
    again = client.post("/api/v1/users", json={"username": "dora", "password": "other-pw1"})
    assert again.status_code == 409
    bad = client.post("/api/v1/token", data={"username": "dora", "password": "wrong-pw"})
    assert bad.status_code == 401
    token = client.post("/api/v1/token", data={"username": "dora", "password": "s3cret-pw"})
    assert token.status_code == 200 and token.json()["token_type"] == "bearer"
    me = client.get(
        "/api/v1/users/me", headers={"Authorization": f"Bearer {token.json()['access_token']}"}
    )
    assert me.json()["username"] == "dora"


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer not-a-jwt"},
        {"Authorization": "Basic YWxpY2U6eA=="},
        {
            "Authorization": "Bearer "
            + create_token(user_id=1, secret="another-secret" * 3, minutes=5)
        },
        {"Authorization": "Bearer " + create_token(user_id=1, secret=SECRET, minutes=-1)},
    ],
)
def test_requests_without_a_valid_token_are_401(client: TestClient, headers) -> None:
    for method, path in [
        ("GET", "/api/v1/submissions"),
        ("GET", "/api/v1/problems/footholds/plan"),
        ("POST", "/api/v1/submissions"),
        ("GET", "/api/v1/submissions/1"),
    ]:
        response = client.request(method, path, headers=headers)
        assert response.status_code == 401, (method, path, response.text)
        assert response.headers["www-authenticate"] == "Bearer"


def test_weak_registrations_are_422(client: TestClient) -> None:
    for body in [
        {"username": "x", "password": "long-enough"},
        {"username": "ok_name", "password": "short"},
        {"username": "bad name!", "password": "long-enough"},
    ]:
        assert client.post("/api/v1/users", json=body).status_code == 422


# ---- problems and boards ------------------------------------------------------------------


def test_problems_are_listed_with_statement_samples_and_limits(client, alice) -> None:
    listed = {p["slug"]: p for p in client.get("/api/v1/problems", headers=alice).json()}
    assert {"footholds", "numbergame"} <= set(listed)
    assert listed["numbergame"]["view"] == {
        "kind": "number-row",
        "bounds": {"max_length": 50, "max_abs": 1000},
    }
    problem = client.get("/api/v1/problems/footholds", headers=alice).json()
    assert problem["statement"] and problem["samples"] and problem["limits"]["time_s"] > 0
    assert problem["view"] == {"kind": "grid-two-pieces", "bounds": {"max_side": 5}}
    assert problem["param_types"] == {"board": "int[][]", "aloc": "int[]", "bloc": "int[]"}
    assert problem["answer_type"] == "int"
    assert client.get("/api/v1/problems/nope", headers=alice).status_code == 404


def test_the_problem_list_names_every_language_and_both_styles(client) -> None:
    # Not "Write a Python function": four languages, a function or a whole program.
    text = client.get("/problems").text
    assert "Python function" not in text
    assert "Python, C++, Java or Kotlin" in text and "whole program" in text


def test_problems_and_their_statements_are_public_and_submitting_is_not(client, alice) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-jwt"}):
        listed = client.get("/api/v1/problems", headers=headers)
        assert listed.status_code == 200 and "footholds" in {p["slug"] for p in listed.json()}
        problem = client.get("/api/v1/problems/footholds", headers=headers).json()
        assert problem["params"] == ["board", "aloc", "bloc"] and problem["samples"]
        stats = client.get("/api/v1/stats/problems", headers=headers)
        assert stats.status_code == 200 and {s["mine"] for s in stats.json()} == {None}
    submit(client, alice)
    mine = client.get("/api/v1/stats/problems", headers=alice).json()
    assert {s["slug"]: s["mine"] for s in mine}["numbergame"] == "tried"
    anonymous = client.post("/api/v1/submissions", json={"problem": "footholds", "source": GOOD})
    assert anonymous.status_code == 401
    assert client.get("/api/v1/problems/footholds/boards").status_code == 401


def test_instructors_manage_hidden_boards(client, teacher, alice) -> None:
    url = "/api/v1/problems/footholds/boards"
    assert client.post(url, headers=alice, json={"input": HIDDEN_BOARD}).status_code == 403
    assert client.get(url, headers=alice).status_code == 403
    invalid = client.post(
        url, headers=teacher, json={"input": {"board": [[1, 1]], "aloc": [0, 5], "bloc": [0, 0]}}
    )
    assert invalid.status_code == 422 and "invalid board" in invalid.json()["detail"]
    created = client.post(url, headers=teacher, json={"input": HIDDEN_BOARD})
    assert created.status_code == 201, created.text
    board = created.json()
    assert board["answer"] == board["explanation"]["answer"]
    assert board["explanation"]["moves"] and board["author"] == "teacher"
    assert [b["id"] for b in client.get(url, headers=teacher).json()] == [board["id"]]
    assert client.delete(f"{url}/{board['id']}", headers=alice).status_code == 403
    assert client.delete(f"{url}/{board['id']}", headers=teacher).status_code == 204
    assert client.delete(f"{url}/{board['id']}", headers=teacher).status_code == 404
    assert client.get("/api/v1/problems/nope/boards", headers=teacher).status_code == 404


# ---- submitting ---------------------------------------------------------------------------


def test_json_and_file_submissions_are_queued_and_enqueued(client, alice, enqueued) -> None:
    first = submit(client, alice)
    assert first.status_code == 202 and first.json()["status"] == "queued"
    upload = client.post(
        "/api/v1/submissions",
        headers=alice,
        data={"problem": "footholds"},
        files={"file": ("solution.py", GOOD.encode(), "text/x-python")},
    )
    assert upload.status_code == 202, upload.text
    assert enqueued.sent == [(first.json()["id"], "live"), (upload.json()["id"], "live")]
    assert upload.headers["location"] == f"/api/v1/submissions/{upload.json()['id']}"


def test_a_queued_submission_says_where_it_waits(client, alice, bob, session) -> None:
    ahead = submit(client, bob).json()["id"]
    mine = submit(client, alice).json()["id"]
    assert client.get(f"/api/v1/submissions/{mine}", headers=alice).json()["queue_position"] == 2
    assert repo.claim(session=session, submission_id=ahead, lease_s=60)
    detail = client.get(f"/api/v1/submissions/{mine}", headers=alice).json()
    assert detail["queue_position"] == 1
    claimed = client.get(f"/api/v1/submissions/{ahead}", headers=bob).json()
    assert (claimed["status"], claimed["queue_position"]) == ("running", None)


@pytest.mark.parametrize(
    ("kwargs", "status", "words"),
    [
        ({"json": {"problem": "numbergame", "source": "x" * 1001}}, 413, "larger than 1000"),
        (
            {"data": {"problem": "numbergame"}, "files": {"file": ("a.py", b"#" * 1001)}},
            413,
            "larger",
        ),
        (
            {"data": {"problem": "numbergame"}, "files": {"file": ("a.py", b"\xff\xfe\x00")}},
            422,
            "UTF-8",
        ),
        (
            {
                "content": b'{"problem": "numbergame", "source": "\\ud800"}',
                "headers": {"content-type": "application/json"},
            },
            422,
            "UTF-8",
        ),
        ({"json": {"problem": "numbergame", "source": "x = 1\x00"}}, 422, "NUL"),
        ({"json": {"problem": "chess", "source": GOOD}}, 422, "unknown problem"),
        ({"json": {"problem": "numbergame"}}, 422, ""),
        ({"content": b"not json", "headers": {"content-type": "application/json"}}, 422, ""),
        ({"data": {"problem": "numbergame"}}, 422, "file"),
        ({"content": b"hello", "headers": {"content-type": "text/plain"}}, 415, ""),
    ],
)
def test_bad_submissions_get_clear_errors(client, alice, enqueued, kwargs, status, words) -> None:
    kwargs = dict(kwargs)  # the parameters are shared by both database backends
    headers = dict(alice, **kwargs.pop("headers", {}))
    response = client.post("/api/v1/submissions", headers=headers, **kwargs)
    assert response.status_code == status, response.text
    assert words in str(response.json()["detail"])
    assert enqueued.sent == []


def test_too_many_submissions_per_minute_get_429_with_retry_after(client, alice, bob) -> None:
    for _ in range(5):
        assert submit(client, alice).status_code == 202
    limited = submit(client, alice)
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert submit(client, bob).status_code == 202  # per user


# ---- reading results: privacy -------------------------------------------------------------


def finish_with_hidden_test(session: Session, submission_id: int, verdict: str = "WA") -> None:
    claim = repo.claim(session=session, submission_id=submission_id, lease_s=60)
    assert repo.finish(
        session=session,
        claim_=claim,
        release_quantum_s=0,  # released at once (the quantum: test_release.py)
        outcome=JudgingOutcome(
            verdict=verdict,
            passed=1,
            total=2,
            judge_version="t",
            message="Traceback: internal details" if verdict == "IE" else "",
            tests=[
                {
                    "index": 0,
                    "kind": "sample",
                    "verdict": "AC",
                    "time_ms": 1.0,
                    "input": {"board": [1]},
                    "expected": 1,
                    "got": 1,
                    "message": "",
                },
                {
                    "index": 1,
                    "kind": "hidden",
                    "verdict": "WA",
                    "time_ms": 2.0,
                    "message": "Wrong answer on a hidden test",
                    "memory_kb": 5,
                    "input": {"board": [7, 7]},
                    "expected": 0,
                    "got": 14,
                },
                {
                    "index": 2,
                    "kind": "hidden",
                    "verdict": "AC",
                    "time_ms": 2.0,
                    "input": {"board": [7]},
                    "expected": 7,
                    "got": 7,
                },
            ],
        ),
    )


def test_students_see_only_their_own_work_and_never_hidden_details(
    client,
    session,
    alice,
    bob,
    teacher,
) -> None:
    mine = submit(client, alice).json()["id"]
    finish_with_hidden_test(session, mine)
    detail = client.get(f"/api/v1/submissions/{mine}", headers=alice).json()
    assert detail["source"] == GOOD and detail["verdict"] == "WA"
    # The hidden tests up to the first failing one, each with its verdict alone.
    sample, hidden = detail["tests"]
    assert sample["input"] == {"board": [1]} and sample["expected"] == 1
    assert {k for k, v in hidden.items() if v is not None} == {"index", "kind", "verdict"}
    # Another student: no detail, no events, nothing in the history, no filtering by user.
    assert client.get(f"/api/v1/submissions/{mine}", headers=bob).status_code == 404
    assert client.get(f"/api/v1/submissions/{mine}/events", headers=bob).status_code == 404
    assert client.get("/api/v1/submissions", headers=bob).json()["total"] == 0
    assert client.get("/api/v1/submissions?user=alice", headers=bob).status_code == 403
    # Instructors see everything, including what the hidden test said.
    seen = client.get(f"/api/v1/submissions/{mine}", headers=teacher).json()
    assert seen["tests"][1]["message"] == "Wrong answer on a hidden test"
    assert (seen["tests"][1]["input"], seen["tests"][1]["got"]) == ({"board": [7, 7]}, 14)
    assert [t["verdict"] for t in seen["tests"]] == ["AC", "WA", "AC"]
    everyone = client.get("/api/v1/submissions?user=alice", headers=teacher).json()
    assert [s["id"] for s in everyone["items"]] == [mine]


def test_internal_error_details_are_for_instructors_only(client, session, alice, teacher) -> None:
    sid = submit(client, alice).json()["id"]
    finish_with_hidden_test(session, sid, verdict="IE")
    assert "Traceback" not in client.get(f"/api/v1/submissions/{sid}", headers=alice).text
    assert "Traceback" in client.get(f"/api/v1/submissions/{sid}", headers=teacher).text


def test_held_submissions_are_listed_for_instructors_with_their_reason(
    client, session, alice, teacher
) -> None:
    sid = submit(client, alice).json()["id"]
    claim = repo.claim(session=session, submission_id=sid, lease_s=60)
    assert repo.release(session=session, claim_=claim, failure="OperationalError: deadlock")
    claim = repo.claim(session=session, submission_id=sid, lease_s=60)
    assert repo.hold(session=session, claim_=claim, interrupted=2)
    held = client.get("/api/v1/submissions/held", headers=teacher).json()
    assert [(h["id"], h["user"], h["attempts"]) for h in held] == [(sid, "alice", 2)]
    assert "interrupted 2 times" in held[0]["hold_reason"]
    assert "OperationalError: deadlock" in held[0]["hold_reason"]
    assert client.get("/api/v1/submissions/held", headers=alice).status_code == 403
    mine = client.get(f"/api/v1/submissions/{sid}", headers=alice).json()
    assert (mine["status"], mine["verdict"], mine["hold_reason"]) == ("held", None, None)
    assert client.post(f"/api/v1/submissions/{sid}/rejudge", headers=teacher).status_code == 202
    assert client.get("/api/v1/submissions/held", headers=teacher).json() == []


def test_history_filters_and_pages_newest_first(client, session, alice) -> None:
    ids = [
        submit(client, alice, problem).json()["id"]
        for problem in ("numbergame", "footholds", "numbergame")
    ]
    finish_with_hidden_test(session, ids[0])
    page = client.get("/api/v1/submissions", headers=alice).json()
    assert [s["id"] for s in page["items"]] == ids[::-1] and page["total"] == 3
    by_problem = client.get("/api/v1/submissions?problem=numbergame", headers=alice).json()
    assert [s["id"] for s in by_problem["items"]] == [ids[2], ids[0]]
    by_verdict = client.get("/api/v1/submissions?verdict=WA", headers=alice).json()
    assert [s["id"] for s in by_verdict["items"]] == [ids[0]]
    paged = client.get("/api/v1/submissions?limit=1&offset=1", headers=alice).json()
    assert [s["id"] for s in paged["items"]] == [ids[1]] and paged["total"] == 3
    assert (
        client.get("/api/v1/submissions?since=2999-01-01T00:00:00Z", headers=alice).json()["total"]
        == 0
    )
    assert client.get("/api/v1/submissions?until=2999-01-01", headers=alice).json()["total"] == 3
    for bad in [
        "verdict=NOPE",
        "limit=0",
        "limit=100000",
        "since=yesterday",
        "since=9999-12-31T23:59:59-05:00",
        "problem=%00",
    ]:
        assert client.get(f"/api/v1/submissions?{bad}", headers=alice).status_code == 422, bad


def test_history_cursor_pages_back_and_forth(client, alice) -> None:
    ids = [submit(client, alice, "numbergame").json()["id"] for _ in range(3)]
    url = "/api/v1/submissions?limit=2"
    first = client.get(url, headers=alice).json()
    assert [s["id"] for s in first["items"]] == [ids[2], ids[1]]
    assert first["prev_cursor"] is None and first["total"] == 3 and first["total_exact"]
    assert "source" not in first["items"][0]
    second = client.get(f"{url}&cursor={first['next_cursor']}", headers=alice).json()
    assert [s["id"] for s in second["items"]] == [ids[0]] and second["next_cursor"] is None
    back = client.get(f"{url}&cursor={second['prev_cursor']}", headers=alice).json()
    assert [s["id"] for s in back["items"]] == [ids[2], ids[1]] and back["prev_cursor"] is None
    for bad in ["x", "o.1.0", "o.1.99999999999", "n.-5.1", "o." + "9" * 18 + ".1", "o.1.1%00"]:
        response = client.get(f"{url}&cursor={bad}", headers=alice)
        assert response.status_code == 422, bad
    assert client.get(f"{url}&offset=1&cursor=o.1.1", headers=alice).status_code == 422


def test_rejudge_is_for_instructors_and_uses_the_low_priority_queue(
    client,
    session,
    alice,
    teacher,
    enqueued,
) -> None:
    sid = submit(client, alice, "footholds").json()["id"]
    finish_with_hidden_test(session, sid)
    assert client.post(f"/api/v1/submissions/{sid}/rejudge", headers=alice).status_code == 403
    response = client.post(f"/api/v1/submissions/{sid}/rejudge", headers=teacher)
    assert response.status_code == 202 and response.json() == {"queued": [sid]}
    assert enqueued.sent[-1] == (sid, "rejudge")
    detail = client.get(f"/api/v1/submissions/{sid}", headers=alice).json()
    assert detail["status"] == "queued" and [h["verdict"] for h in detail["history"]] == ["WA"]
    # The history says why each judging ran: the queue's name, and a label for people.
    assert [(h["reason"], h["reason_label"]) for h in detail["history"]] == [("live", "submitted")]
    everything = client.post("/api/v1/problems/footholds/rejudge", headers=teacher)
    assert everything.json() == {"queued": [sid]}
    assert client.post("/api/v1/submissions/999999/rejudge", headers=teacher).status_code == 404


def test_health_needs_no_auth(client) -> None:
    assert client.get("/healthz/api").json() == {"status": "ok", "database": "ok"}
    # No worker runs beside this app: nobody grades, and /healthz says so.
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["database"], body["delayed"]) == ("no grading worker", "ok", True)
    assert set(body["lanes"]) == {"grading", "run", "hidden", "sweeper"}
    assert not any(lane["alive"] for lane in body["lanes"].values())
    assert client.get("/docs").status_code == 200


def test_production_refuses_the_default_secret() -> None:
    with pytest.raises(ValueError, match="JUDGE_SECRET_KEY"):
        Settings(environment="production", secret_key=DEFAULT_SECRET)
    assert Settings(environment="production", secret_key="s" * 40).secret_key == "s" * 40


def test_students_see_hidden_tests_only_once_the_judging_is_done(
    client, session, alice, teacher
) -> None:
    sid = submit(client, alice).json()["id"]
    claim = repo.claim(session=session, submission_id=sid, lease_s=60)
    sample = {"index": 0, "kind": "sample", "verdict": "AC", "time_ms": 1.0, "input": {"b": 1}}
    hidden = {"index": 1, "kind": "hidden", "verdict": "AC", "time_ms": 9.0, "input": {"b": 2}}
    for test in (sample, hidden):
        assert repo.record_test(session=session, claim_=claim, test=test, lease_s=60)
    # While it runs, the arrival of each hidden result would time it: students do not see it.
    running = client.get(f"/api/v1/submissions/{sid}", headers=alice).json()
    assert running["status"] == "running" and [t["kind"] for t in running["tests"]] == ["sample"]
    seen = client.get(f"/api/v1/submissions/{sid}", headers=teacher).json()
    assert [t["kind"] for t in seen["tests"]] == ["sample", "hidden"]
    result = JudgingOutcome(verdict="AC", passed=2, total=2, tests=[sample, hidden])
    assert repo.finish(session=session, claim_=claim, outcome=result, release_quantum_s=0)
    done = client.get(f"/api/v1/submissions/{sid}", headers=alice).json()
    assert [(t["kind"], t["time_ms"]) for t in done["tests"]] == [("sample", 1.0), ("hidden", None)]


def test_statistics_follow_each_verdict(client, session, alice, bob, teacher) -> None:
    def footholds(headers) -> dict:
        rows = client.get("/api/v1/stats/problems", headers=headers).json()
        return next(r for r in rows if r["slug"] == "footholds")

    first = submit(client, alice, "footholds").json()["id"]
    assert footholds(alice)["submissions"] == 0 and footholds(alice)["mine"] == "tried"
    finish_with_hidden_test(session, first, verdict="AC")
    assert (footholds(alice)["accepted"], footholds(alice)["mine"]) == (1, "solved")
    assert footholds(bob)["mine"] is None and footholds(bob)["solvers"] == 1
    second = submit(client, bob, "footholds").json()["id"]
    finish_with_hidden_test(session, second, verdict="WA")
    assert footholds(bob) | {"acceptance": None} == {
        "slug": "footholds",
        "title": footholds(bob)["title"],
        "submissions": 2,
        "accepted": 1,
        "acceptance": None,
        "solvers": 1,
        "mine": "tried",
    }
    detail = client.get("/api/v1/problems/footholds/stats?days=3", headers=teacher).json()
    assert (detail["submissions"], detail["users"], detail["solvers"]) == (2, 2, 1)
    # Summed over the window, not read off its last day: midnight (UTC) may fall in between.
    days = detail["days"]
    assert (sum(d["total"] for d in days), sum(d["accepted"] for d in days)) == (2, 1)
    assert {v["verdict"]: v["count"] for v in detail["verdicts"]}["WA"] == 1

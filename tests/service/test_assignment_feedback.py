"""An assignment's feedback policy, read through every student API: "all" shows a
judging as for any problem; "visible" holds the hidden results back until the student's
own due time (an extension's too); "received" shows nothing but "received" until then.
Instructors always see everything. On SQLite and PostgreSQL, in a rolled-back transaction;
times relative to now, nothing sleeps."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from store import repo
from store.models import Role, Status, Submission, utcnow
from store.models import TestRow as ResultRow  # not "Test*": pytest would collect it
from tests.service.conftest import api_client
from tests.service.conftest import make_account as account
from tests.service.test_assignments_api import DAY, HOUR


@pytest.fixture
def client(session: Session, db_engine) -> Iterator[TestClient]:
    with api_client(session, db_engine) as c:
        yield c


@pytest.fixture
def setup(session: Session, client: TestClient) -> Iterator[dict]:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    ann, ann_h = account(session, "ann")
    now = utcnow()
    sub = _judged(session, ann.id, now - HOUR)
    yield {"teacher": teacher, "ann": ann, "ann_h": ann_h, "sub": sub, "now": now}


def _judged(session: Session, user_id: int, at) -> int:
    """A footholds submission: the sample passed, a hidden board failed (WA, 1 of 2)."""
    sub = repo.create_submission(
        session=session, user_id=user_id, problem="footholds", source="x", seed=1
    )
    sub.created_at = at
    sub.status, sub.verdict, sub.passed, sub.total = Status.DONE, "WA", 1, 2
    sub.finished_at = sub.released_at = at + timedelta(seconds=2)
    sub.shown_passed, sub.shown_total = 1, 2
    sub.visible_verdict, sub.visible_passed, sub.visible_total = "AC", 1, 1
    sub.message = "wrong answer on a hidden board"
    for index, (kind, verdict) in enumerate([("sample", "AC"), ("hidden", "WA")]):
        session.add(
            ResultRow(
                submission_id=sub.id,
                lease_token=sub.lease_token,
                index=index,
                kind=kind,
                verdict=verdict,
                input={"board": [[1]]} if kind == "sample" else None,
            )
        )
    session.commit()
    return sub.id


def _assignment(client, teacher, now, feedback: str, due) -> int:
    made = client.post(
        "/api/v1/assignments",
        json={
            "title": "Week 1",
            "release_at": (now - 2 * DAY).isoformat(),
            "due_at": due.isoformat(),
            "feedback": feedback,
            "problems": [{"problem": "footholds", "points": 10}],
        },
        headers=teacher,
    )
    assert made.status_code == 201, made.text
    return made.json()["id"]


def _reads(client, headers, sub_id) -> dict:
    detail = client.get(f"/api/v1/submissions/{sub_id}", headers=headers).json()
    listed = client.get("/api/v1/submissions", headers=headers).json()["items"][0]
    wa = client.get("/api/v1/submissions?verdict=WA", headers=headers).json()["total"]
    return {"detail": detail, "listed": listed, "wa_found": wa}


def test_all_shows_the_judging_whole(client, setup):
    _assignment(client, setup["teacher"], setup["now"], "all", setup["now"] + DAY)
    seen = _reads(client, setup["ann_h"], setup["sub"])
    assert seen["detail"]["verdict"] == "WA" and seen["wa_found"] == 1
    assert [t["kind"] for t in seen["detail"]["tests"]] == ["sample", "hidden"]


def test_visible_holds_the_hidden_results_until_the_students_due_time(client, setup):
    now, teacher = setup["now"], setup["teacher"]
    aid = _assignment(client, teacher, now, "visible", now + DAY)
    seen = _reads(client, setup["ann_h"], setup["sub"])
    detail = seen["detail"]
    assert (detail["verdict"], detail["passed"], detail["total"]) == ("AC", 1, 1)
    assert detail["hidden_pending"] and detail["hidden_release_at"] is not None
    assert [t["kind"] for t in detail["tests"]] == ["sample"]
    assert [(j["verdict"], j["passed"]) for j in detail["history"]] in ([], [("AC", 1)])
    assert seen["listed"]["verdict"] == "AC" and seen["wa_found"] == 0
    # The instructor sees it whole meanwhile.
    whole = client.get(f"/api/v1/submissions/{setup['sub']}", headers=teacher).json()
    assert whole["verdict"] == "WA" and len(whole["tests"]) == 2
    # Due for everyone now, but ann has an extension: still held for her.
    body = client.get(f"/api/v1/assignments/{aid}", headers=teacher).json()
    body["due_at"] = (now - HOUR / 2).isoformat()
    assert client.put(f"/api/v1/assignments/{aid}", json=body, headers=teacher).status_code == 200
    client.put(
        f"/api/v1/assignments/{aid}/extensions/ann",
        json={"due_at": (now + DAY).isoformat(), "reason": "ill"},
        headers=teacher,
    )
    assert _reads(client, setup["ann_h"], setup["sub"])["detail"]["verdict"] == "AC"
    client.delete(f"/api/v1/assignments/{aid}/extensions/ann", headers=teacher)
    after = _reads(client, setup["ann_h"], setup["sub"])
    assert after["detail"]["verdict"] == "WA" and after["wa_found"] == 1
    assert not after["detail"]["hidden_pending"]


def test_received_shows_nothing_but_received_until_the_due_time(client, setup):
    now, teacher, ann = setup["now"], setup["teacher"], setup["ann_h"]
    aid = _assignment(client, teacher, now, "received", now + DAY)
    seen = _reads(client, ann, setup["sub"])
    detail = seen["detail"]
    assert detail["status"] == "received"
    for field in (
        "verdict",
        "passed",
        "total",
        "max_time_ms",
        "peak_memory_kb",
        "message",
        "finished_at",
        "judge_version",
        "sandboxed",
        "queue_position",
    ):
        assert detail[field] is None, field
    assert detail["tests"] == [] and detail["history"] == [] and not detail["delayed"]
    assert seen["listed"]["status"] == "received" and seen["listed"]["verdict"] is None
    assert seen["wa_found"] == 0
    assert client.get("/api/v1/submissions?verdict=AC", headers=ann).json()["total"] == 0
    explained = client.get(f"/api/v1/submissions/{setup['sub']}/tests/0/explanation", headers=ann)
    assert explained.status_code == 404
    stream = client.get(f"/api/v1/submissions/{setup['sub']}/events", headers=ann)
    assert stream.status_code == 403 and "after your due time" in stream.json()["detail"]
    assert (
        client.get(f"/api/v1/submissions/{setup['sub']}", headers=teacher).json()["verdict"] == "WA"
    )
    # Past the due time: whole.
    body = client.get(f"/api/v1/assignments/{aid}", headers=teacher).json()
    body["due_at"] = (now - HOUR / 2).isoformat()
    client.put(f"/api/v1/assignments/{aid}", json=body, headers=teacher)
    assert _reads(client, ann, setup["sub"])["detail"]["verdict"] == "WA"


def test_an_unreleased_assignment_holds_nothing(client, setup):
    now, teacher = setup["now"], setup["teacher"]
    made = client.post(
        "/api/v1/assignments",
        json={
            "title": "Later",
            "release_at": (now + DAY).isoformat(),
            "due_at": (now + 2 * DAY).isoformat(),
            "feedback": "received",
            "problems": [{"problem": "footholds", "points": 10}],
        },
        headers=teacher,
    )
    assert made.status_code == 201
    assert _reads(client, setup["ann_h"], setup["sub"])["detail"]["verdict"] == "WA"


def test_received_keeps_the_statistics_from_counting_it_until_the_last_due_time(
    client, setup, session
):
    """The problem list's counts and the student's own "solved" would tell a received-only
    result: not counted until every student's due time (an extension's included)."""
    now, teacher, ann = setup["now"], setup["teacher"], setup["ann_h"]
    accepted = _judged(session, setup["ann"].id, now - HOUR / 2)
    session.get(Submission, accepted).verdict = "AC"
    session.commit()

    def footholds(headers):
        stats = client.get("/api/v1/stats/problems", headers=headers).json()
        return next(s for s in stats if s["slug"] == "footholds")

    assert footholds(ann)["mine"] == "solved" and footholds(ann)["submissions"] == 2
    aid = _assignment(client, teacher, now, "received", now + DAY)
    assert footholds(ann)["mine"] == "tried"
    assert (footholds(ann)["submissions"], footholds(ann)["accepted"]) == (0, 0)
    # Due for everyone, but one student (not ann) still has a day: still not counted.
    account(session, "bea")
    body = client.get(f"/api/v1/assignments/{aid}", headers=teacher).json()
    body["due_at"] = (now - HOUR / 4).isoformat()
    client.put(f"/api/v1/assignments/{aid}", json=body, headers=teacher)
    client.put(
        f"/api/v1/assignments/{aid}/extensions/bea",
        json={"due_at": (now + DAY).isoformat()},
        headers=teacher,
    )
    assert footholds(ann)["mine"] == "solved"  # her own due time has passed
    assert footholds(ann)["submissions"] == 0
    client.delete(f"/api/v1/assignments/{aid}/extensions/bea", headers=teacher)
    assert (footholds(ann)["submissions"], footholds(ann)["accepted"]) == (2, 1)

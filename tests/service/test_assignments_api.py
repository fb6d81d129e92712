"""Assignments over HTTP, on SQLite and PostgreSQL, each test inside a rolled-back
transaction: instructors create, edit and delete them, grant extensions, read the
gradebook (JSON, Canvas and Moodle CSV) and override scores; students see the released
ones with their own deadline and scores; the attempt limit refuses with 409 and a
submission past the cutoff is practice. Times are set relative to now: nothing sleeps."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from store import repo
from store.models import Role, Status, User, utcnow
from store.models import TestRow as ResultRow  # not "Test*": pytest would collect it
from tests.service.conftest import api_client
from tests.service.conftest import make_account as account

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def client(session: Session, db_engine) -> Iterator[TestClient]:
    with api_client(session, db_engine, raise_server_exceptions=False) as c:
        yield c


def graded(
    session: Session,
    user: User,
    problem: str,
    verdict: str | None,
    at: datetime,
    tests: dict[str, tuple[int, int]] | None = None,
) -> int:
    """A submission made at `at`, graded with `verdict` (None: still queued), with test
    rows per kind: (passed, total)."""
    sub = repo.create_submission(
        session=session, user_id=user.id, problem=problem, source="x", seed=1
    )
    sub.created_at = at
    if verdict is not None:
        sub.status, sub.verdict, sub.passed, sub.total = Status.DONE, verdict, 1, 1
        sub.finished_at = sub.released_at = at + timedelta(seconds=2)
        index = 0
        for kind, (passed, total) in (tests or {}).items():
            for i in range(total):
                session.add(
                    ResultRow(
                        submission_id=sub.id,
                        lease_token=sub.lease_token,
                        index=index,
                        kind=kind,
                        verdict="AC" if i < passed else "WA",
                    )
                )
                index += 1
    session.commit()
    return sub.id


def body(now: datetime, **kw) -> dict:
    base = {
        "title": "Week 1",
        "release_at": (now - 5 * DAY).isoformat(),
        "due_at": (now - 2 * DAY).isoformat(),
        "late_rule": "per_day",
        "late_until": (now + DAY).isoformat(),
        "late_percent": 25,
        "problems": [
            {"problem": "footholds", "points": 10},
            {
                "problem": "numbergame",
                "points": 20,
                "scoring": "tests",
                "weights": {"sample": 1, "hidden": 1},
            },
        ],
    }
    return base | kw


@pytest.fixture
def course(session: Session) -> dict:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    ann, ann_h = account(session, "ann")
    bob, bob_h = account(session, "bob")
    _, cid_h = account(session, "cid")
    return {
        "teacher": teacher,
        "ann": ann,
        "ann_h": ann_h,
        "bob": bob,
        "bob_h": bob_h,
        "cid_h": cid_h,
    }


def test_instructors_create_edit_and_delete_students_see_only_released(client, course):
    now = utcnow()
    teacher, ann = course["teacher"], course["ann_h"]
    assert client.post("/api/v1/assignments", json=body(now), headers=ann).status_code == 403
    made = client.post("/api/v1/assignments", json=body(now), headers=teacher)
    assert made.status_code == 201, made.text
    a = made.json()
    assert a["points"] == 30 and [p["problem"] for p in a["problems"]] == [
        "footholds",
        "numbergame",
    ]
    later = client.post(
        "/api/v1/assignments",
        json=body(
            now,
            title="Week 2",
            release_at=(now + DAY).isoformat(),
            due_at=(now + 3 * DAY).isoformat(),
            late_rule="none",
        ),
        headers=teacher,
    ).json()
    assert later["late_until"] is None and later["late_percent"] is None
    assert [x["title"] for x in client.get("/api/v1/assignments", headers=ann).json()] == ["Week 1"]
    assert client.get(f"/api/v1/assignments/{later['id']}", headers=ann).status_code == 404
    assert len(client.get("/api/v1/assignments", headers=teacher).json()) == 2

    edited = client.put(
        f"/api/v1/assignments/{a['id']}", json=body(now, title="Week one"), headers=teacher
    )
    assert edited.status_code == 200 and edited.json()["title"] == "Week one"
    assert client.delete(f"/api/v1/assignments/{later['id']}", headers=teacher).status_code == 204
    assert client.get(f"/api/v1/assignments/{later['id']}", headers=teacher).status_code == 404


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"problems": [{"problem": "nosuch", "points": 1}]}, "unknown problem"),
        ({"late_percent": None}, "per_day needs late_percent"),
        ({"late_until": None}, "late_until after the due time"),
        ({"problems": [{"problem": "footholds", "points": 1}] * 2}, "named twice"),
        ({"due_at": "2000-01-01T00:00:00Z"}, "before the release"),
    ],
)
def test_an_inconsistent_assignment_is_refused(client, course, change, says):
    got = client.post(
        "/api/v1/assignments", json=body(utcnow(), **change), headers=course["teacher"]
    )
    assert got.status_code == 422 and says in got.text


def test_gradebook_late_rule_extension_override_and_a_students_own_view(client, course, session):
    now = utcnow()
    teacher = course["teacher"]
    a = client.post("/api/v1/assignments", json=body(now), headers=teacher).json()
    due = datetime.fromisoformat(a["due_at"])
    ann, bob = course["ann"], course["bob"]
    graded(session, ann, "footholds", "AC", due - HOUR)  # on time: 10
    graded(
        session,
        ann,
        "numbergame",
        "WA",
        due + HOUR,  # 1 day late: 75% of 50%
        {"sample": (2, 2), "small": (0, 1), "hidden": (0, 3)},
    )
    graded(session, bob, "footholds", "AC", due + DAY + HOUR)  # 2 days late: 50% ...
    granted = client.put(
        f"/api/v1/assignments/{a['id']}/extensions/bob",
        json={"due_at": (due + 2 * DAY).isoformat(), "reason": "was ill"},
        headers=teacher,
    )
    assert granted.status_code == 200, granted.text  # ... but on time for bob
    assert granted.json()["granted_by"] == "teacher"
    # The late window keeps its length (3 days) after bob's own due time.
    assert datetime.fromisoformat(granted.json()["cutoff"]) == due + 5 * DAY
    book = client.get(f"/api/v1/assignments/{a['id']}/gradebook", headers=teacher).json()
    rows = {r["user"]: r for r in book["rows"]}
    assert list(rows) == ["ann", "bob", "cid"]
    assert [c["score"] for c in rows["ann"]["cells"]] == [10, 7.5]
    assert rows["ann"]["total"] == 17.5
    assert rows["ann"]["cells"][1]["reason"].endswith("1 day late: 50% of the tests x 75%")
    assert rows["bob"]["extended"] and rows["bob"]["cells"][0]["score"] == 10
    assert "on time" in rows["bob"]["cells"][0]["reason"]
    assert rows["cid"]["total"] == 0
    assert rows["cid"]["cells"][0]["reason"] == "no submission that counts"

    over = client.put(
        f"/api/v1/assignments/{a['id']}/scores/cid/footholds",
        json={"score": 4, "comment": "solved on paper"},
        headers=teacher,
    )
    assert over.status_code == 200 and over.json()["total"] == 4
    assert over.json()["cells"][0]["reason"] == "set to 4 by teacher: solved on paper"
    assert (
        client.put(
            f"/api/v1/assignments/{a['id']}/scores/cid/footholds",
            json={"score": 4},
            headers=course["cid_h"],
        ).status_code
        == 403
    )

    mine = client.get("/api/v1/assignments/mine", headers=course["bob_h"]).json()
    assert len(mine) == 1 and mine[0]["extended"] and mine[0]["total"] == 10
    assert mine[0]["due_at"].startswith((due + 2 * DAY).isoformat()[:16])
    theirs = client.get("/api/v1/assignments/mine", headers=course["cid_h"]).json()
    assert theirs[0]["total"] == 4 and theirs[0]["open"]

    canvas = list(
        csv.reader(io.StringIO(client.get("/api/v1/gradebook.canvas.csv", headers=teacher).text))
    )
    column = f"Week 1 ({a['id']})"
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column]
    assert canvas[1] == ["Points Possible", "", "", "", "", "30"]
    assert canvas[2:] == [
        ["ann", "", "", "ann", "", "17.5"],
        ["bob", "", "", "bob", "", "10"],
        ["cid", "", "", "cid", "", "4"],
    ]
    moodle = list(
        csv.reader(io.StringIO(client.get("/api/v1/gradebook.moodle.csv", headers=teacher).text))
    )
    assert moodle == [["Username", column], ["ann", "17.5"], ["bob", "10"], ["cid", "4"]]
    assert client.get("/api/v1/gradebook.moodle.csv", headers=course["ann_h"]).status_code == 403
    assert client.get("/api/v1/progress.csv", headers=teacher).text.startswith(
        "username,disabled,solved"
    )


def submit(client, headers, problem="footholds"):
    return client.post(
        "/api/v1/submissions",
        json={"problem": problem, "source": "def solution(board, aloc, bloc):\n    return 0\n"},
        headers=headers,
    )


def test_the_attempt_limit_refuses_while_open_and_practice_after_the_cutoff(
    client, course, session
):
    now = utcnow()
    teacher = course["teacher"]
    limited = body(
        now,
        due_at=(now + DAY).isoformat(),
        late_until=(now + 2 * DAY).isoformat(),
        problems=[{"problem": "footholds", "points": 10, "max_attempts": 2}],
    )
    a = client.post("/api/v1/assignments", json=limited, headers=teacher).json()
    ann = course["ann_h"]
    first = submit(client, ann)
    assert first.status_code == 202 and not first.json()["practice"]
    graded(session, course["ann"], "footholds", "WA", now - HOUR)
    refused = submit(client, ann)
    assert refused.status_code == 409
    assert "all 2 attempts at footholds for 'Week 1'" in refused.json()["detail"]
    # Closed for everyone: submitting is practice, and says so.
    closed = body(
        now,
        due_at=(now - 2 * DAY).isoformat(),
        late_until=(now - DAY).isoformat(),
        problems=[{"problem": "footholds", "points": 10, "max_attempts": 2}],
    )
    client.put(f"/api/v1/assignments/{a['id']}", json=closed, headers=teacher)
    late = submit(client, ann)
    assert late.status_code == 202 and late.json()["practice"]
    assert "counts for nothing" in late.json()["practice_note"]
    shown = client.get(f"/api/v1/submissions/{late.json()['id']}", headers=ann).json()
    assert shown["practice"] and "Week 1" in shown["practice_note"]
    # The deadline moved back: the first one, made after it, is practice now too.
    earlier = client.get(f"/api/v1/submissions/{first.json()['id']}", headers=ann).json()
    assert earlier["practice"]
    # An extension opens it again for bob only, with his own count of attempts.
    client.put(
        f"/api/v1/assignments/{a['id']}/extensions/bob",
        json={"due_at": (now + DAY).isoformat()},
        headers=teacher,
    )
    assert not submit(client, course["bob_h"]).json()["practice"]
    # Instructors are never limited.
    assert submit(client, teacher).status_code == 202


def test_only_the_first_attempts_count_in_the_gradebook(client, course, session):
    now = utcnow()
    teacher = course["teacher"]
    a = client.post(
        "/api/v1/assignments",
        json=body(now, problems=[{"problem": "footholds", "points": 10, "max_attempts": 1}]),
        headers=teacher,
    ).json()
    due = datetime.fromisoformat(a["due_at"])
    graded(session, course["ann"], "footholds", "WA", due - 2 * HOUR)
    graded(session, course["ann"], "footholds", "AC", due - HOUR)
    book = client.get(f"/api/v1/assignments/{a['id']}/gradebook", headers=teacher).json()
    cell = book["rows"][0]["cells"][0]
    assert cell["score"] == 0 and cell["attempts"] == 1
    assert cell["reason"].endswith("(only the first 1 attempts count)")


def test_an_assignment_page_takes_a_number_the_database_can_hold(client) -> None:
    """The pages are served to anyone (their scripts ask the API, which checks the role);
    the path's id is checked first."""
    edit = client.get("/instructor/assignments/3")
    assert edit.status_code == 200 and "<title>Assignment 3" in edit.text
    assert client.get("/instructor/assignments/3/gradebook").status_code == 200
    for wrong in ("x", "0", str(2**31), "-1"):
        for path in (
            f"/instructor/assignments/{wrong}",
            f"/instructor/assignments/{wrong}/gradebook",
        ):
            answer = client.get(path)
            assert answer.status_code == 404 and "That is not an assignment number." in answer.text

"""The similarity endpoints over HTTP, on SQLite and PostgreSQL, each test rolled back: the
pairs of a problem and of an assignment with clusters, a pair side by side with its
fragments and who was first, the reviewed mark, the CSV, and instructors only."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from store.models import Assignment, AssignmentProblem
from tests.service.conftest import api_client
from tests.service.test_similarity_store import COPY, MEMO, TABLE, submit
from worker.similarity import index_submission


@pytest.fixture
def client(session: Session, db_engine) -> Iterator[TestClient]:
    with api_client(session, db_engine, enqueue=lambda *a, **k: True) as test_client:
        yield test_client


@pytest.fixture
def copied(session: Session) -> dict[str, int]:
    """ann wrote it, bob and dan copied it, cat wrote her own."""
    ids = {name: submit(session, name, source) for name, source in
           [("ann", MEMO), ("cat", TABLE), ("bob", COPY), ("dan", MEMO)]}  # fmt: skip
    for submission_id in ids.values():
        index_submission(session, submission_id)
    return ids


def test_a_problems_pairs_highest_first_with_a_cluster(client, teacher, copied) -> None:
    body = client.get("/api/v1/similarity/pairs?problem=numbergame", headers=teacher).json()
    assert body["threshold"] == 0.8
    top = body["pairs"][0]
    assert (top["user_a"], top["user_b"]) == ("ann", "dan")
    assert {frozenset((p["user_a"], p["user_b"])) for p in body["pairs"]} == {
        frozenset(x) for x in [("ann", "dan"), ("ann", "bob"), ("bob", "dan")]
    }
    assert body["clusters"] == [["ann", "bob", "dan"]]
    assert all(p["first"] == "ann" for p in body["pairs"] if "ann" in (p["user_a"], p["user_b"]))


def test_a_pair_side_by_side_with_its_fragments(client, teacher, copied) -> None:
    pairs = client.get("/api/v1/similarity/pairs?problem=numbergame", headers=teacher).json()
    pair = next(p for p in pairs["pairs"] if {p["user_a"], p["user_b"]} == {"ann", "bob"})
    detail = client.get(f"/api/v1/similarity/pairs/{pair['id']}", headers=teacher).json()
    assert (detail["source_a"], detail["source_b"]) == (MEMO, COPY)
    assert detail["language"] == "python" and detail["fragments"]
    start, end = detail["fragments"][0]["a"]
    assert 0 <= start < end <= len(MEMO)
    assert client.get("/api/v1/similarity/pairs/999999", headers=teacher).status_code == 404


def test_the_reviewed_mark_hides_a_pair_when_asked(client, teacher, copied) -> None:
    url = "/api/v1/similarity/pairs?problem=numbergame"
    first = client.get(url, headers=teacher).json()["pairs"][0]
    marked = client.put(
        f"/api/v1/similarity/pairs/{first['id']}/review", json={"reviewed": True}, headers=teacher
    )
    assert marked.status_code == 200 and marked.json()["reviewed"] is True
    left = client.get(url + "&reviewed=false", headers=teacher).json()["pairs"]
    assert first["id"] not in [p["id"] for p in left] and len(left) == 2
    unmarked = client.put(
        f"/api/v1/similarity/pairs/{first['id']}/review", json={"reviewed": False}, headers=teacher
    )
    assert unmarked.json()["reviewed"] is False


def test_the_csv_and_an_assignments_pairs(client, teacher, copied, session: Session) -> None:
    now = datetime.now(UTC)
    assignment = Assignment(
        title="Week 1", release_at=now, due_at=now + timedelta(days=1), late_rule="none",
        counts="best", feedback="full",
    )  # fmt: skip
    assignment.problems = [AssignmentProblem(position=0, problem="numbergame", points=1.0)]
    session.add(assignment)
    session.commit()
    response = client.get(
        f"/api/v1/similarity/pairs.csv?assignment={assignment.id}&threshold=0.5", headers=teacher
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0][:3] == ["problem", "score", "user_a"] and len(rows) == 4
    assert (
        client.get("/api/v1/similarity/pairs?assignment=999999", headers=teacher).status_code == 404
    )
    assert client.get("/api/v1/similarity/pairs", headers=teacher).status_code == 422


def test_students_are_refused(client, alice, copied) -> None:
    for url in ("/api/v1/similarity/pairs?problem=numbergame", "/api/v1/similarity/pairs/1",
                "/api/v1/similarity/pairs.csv?problem=numbergame"):  # fmt: skip
        assert client.get(url, headers=alice).status_code == 403
    assert client.put("/api/v1/similarity/pairs/1/review", json={"reviewed": True},
                      headers=alice).status_code == 403  # fmt: skip
    assert client.get("/api/v1/similarity/pairs?problem=numbergame").status_code == 401


def test_the_pages_are_served(client, copied) -> None:
    # (the pages ask the API as the logged-in instructor; the browser tests drive them)
    assert "Code similarity" in client.get("/instructor/similarity").text
    assert 'id="side-a"' in client.get("/instructor/similarity/1").text
    assert client.get("/instructor/similarity/x").status_code == 404

"""The instructors' course view over HTTP, on SQLite and PostgreSQL, each test inside a
rolled-back transaction (as in test_api.py): the progress table (JSON and CSV), the
submission list as CSV, and managing accounts (list, create from a CSV, new password,
disable)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from api.accounts import upsert_user
from judge import problems
from store import repo
from store.models import Role, Status, User
from store.models import TestRow as ResultRow  # not "Test*": pytest would collect it
from tests.service.conftest import TEST_PASSWORDS, api_client
from tests.service.conftest import make_account as account

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def client(session: Session, db_engine) -> Iterator[TestClient]:
    with api_client(session, db_engine, raise_server_exceptions=False) as c:
        yield c


def graded(
    session: Session, user: User, problem: str, verdict: str | None, minutes: int, passed=1
) -> None:
    """A submission made `minutes` after T0, graded with `verdict` (None: still queued)."""
    sub = repo.create_submission(
        session=session, user_id=user.id, problem=problem, source="x", seed=1
    )
    sub.created_at = T0 + timedelta(minutes=minutes)
    if verdict is not None:
        sub.status, sub.verdict, sub.passed, sub.total = Status.DONE, verdict, passed, 10
        sub.finished_at = sub.created_at + timedelta(seconds=2)
    session.commit()


@pytest.fixture
def course(session: Session) -> dict[str, dict]:
    """An instructor and three students: ann solved footholds at her second try (a WA
    first, then AC, then a WA again) and tried numbergame (RE, then one waiting); bob has a
    TLE and a CE; cid never submitted."""
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    ann, ann_h = account(session, "ann")
    bob, bob_h = account(session, "bob")
    _, cid_h = account(session, "cid")
    graded(session, ann, "footholds", "WA", 1)
    graded(session, ann, "footholds", "AC", 5)
    graded(session, ann, "footholds", "WA", 9)
    graded(session, ann, "numbergame", "RE", 2)
    graded(session, ann, "numbergame", None, 3)
    graded(session, bob, "footholds", "CE", 4)
    graded(session, bob, "footholds", "TLE", 6)
    return {"teacher": teacher, "ann": ann_h, "bob": bob_h, "cid": cid_h}


def test_progress_has_one_row_per_student_with_best_verdict_attempts_and_first_ac(
    client, course
) -> None:
    body = client.get("/api/v1/progress", headers=course["teacher"]).json()
    assert body["problems"] == sorted(problems.registry())
    rows = {row["user"]: row for row in body["students"]}
    assert list(rows) == ["ann", "bob", "cid"]  # by name; the instructor is not a student
    ann = rows["ann"]["problems"]
    assert ann["footholds"]["verdict"] == "AC"
    assert ann["footholds"]["attempts"] == 3
    assert ann["footholds"]["first_ac"].startswith("2026-11-02T09:05:00")
    assert ann["numbergame"] == {"attempts": 2, "verdict": "RE", "first_ac": None}
    assert rows["ann"]["solved"] == 1
    assert rows["bob"]["problems"]["footholds"]["verdict"] == "TLE"  # TLE ranks above CE
    assert rows["bob"]["solved"] == 0
    assert rows["cid"]["problems"] == {}


def test_progress_csv_is_the_same_table(client, course) -> None:
    response = client.get("/api/v1/progress.csv", headers=course["teacher"])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    by_name = {row["username"]: row for row in rows}
    assert sorted(by_name) == ["ann", "bob", "cid"]
    assert by_name["ann"]["footholds verdict"] == "AC"
    assert by_name["ann"]["footholds attempts"] == "3"
    assert by_name["ann"]["footholds first AC"].startswith("2026-11-02T09:05:00")
    assert by_name["ann"]["solved"] == "1"
    assert by_name["cid"]["numbergame attempts"] == "0"
    assert by_name["cid"]["numbergame verdict"] == ""


def test_progress_is_for_instructors_only(client, course) -> None:
    for path in ("/api/v1/progress", "/api/v1/progress.csv", "/api/v1/submissions.csv"):
        assert client.get(path, headers=course["ann"]).status_code == 403
        assert client.get(path).status_code == 401


def test_submission_list_csv_has_every_matching_row(client, course) -> None:
    response = client.get("/api/v1/submissions.csv", headers=course["teacher"])
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == 7
    assert [r["created_at"] for r in rows] == sorted((r["created_at"] for r in rows), reverse=True)
    filtered = client.get(
        "/api/v1/submissions.csv?user=bob&problem=footholds", headers=course["teacher"]
    )
    rows = list(csv.DictReader(io.StringIO(filtered.text)))
    assert [(r["username"], r["verdict"]) for r in rows] == [("bob", "TLE"), ("bob", "CE")]
    # A compile error ran no test: no pass count, total, time or memory, not zeros.
    ce = rows[1]
    assert [ce[k] for k in ("passed", "total", "max_time_ms", "peak_memory_kb")] == [""] * 4
    assert (rows[0]["passed"], rows[0]["total"]) == ("1", "10")


def test_submission_list_csv_reads_past_one_page(client, course, session, monkeypatch) -> None:
    from api.routers import progress

    monkeypatch.setattr(progress, "EXPORT_PAGE", 2)  # 7 rows: four pages
    rows = list(
        csv.DictReader(
            io.StringIO(client.get("/api/v1/submissions.csv", headers=course["teacher"]).text)
        )
    )
    assert len({r["id"] for r in rows}) == 7


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(client, session) -> None:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    account(session, "-2+3")
    rows = list(
        csv.DictReader(io.StringIO(client.get("/api/v1/progress.csv", headers=teacher).text))
    )
    assert [r["username"] for r in rows] == ["'-2+3"]


# ---- accounts -----------------------------------------------------------------------------


def test_instructor_creates_students_from_a_csv_and_they_log_in(client, session) -> None:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    text = "username,email\nst.one,a@example.org\n\nst-two,b@example.org\nst_three\n"
    response = client.post("/api/v1/users/batch", json={"csv": text}, headers=teacher)
    assert response.status_code == 201, response.text
    created = response.json()
    assert [c["username"] for c in created] == ["st.one", "st-two", "st_three"]
    assert all(c["role"] == "student" and len(c["password"]) >= 12 for c in created)
    for c in created:
        login = client.post(
            "/api/v1/token", data={"username": c["username"], "password": c["password"]}
        )
        assert login.status_code == 200
    listed = client.get("/api/v1/users?search=ST", headers=teacher).json()
    # (the order of punctuation is the database collation's)
    assert sorted(u["username"] for u in listed["items"]) == ["st-two", "st.one", "st_three"]
    assert listed["more"] is False


def test_a_batch_is_all_or_nothing(client, session) -> None:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    account(session, "taken")
    response = client.post(
        "/api/v1/users/batch", json={"usernames": ["fresh", "taken"]}, headers=teacher
    )
    assert response.status_code == 409
    assert "taken" in response.json()["detail"]
    assert repo.get_user_by_name(session=session, username="fresh") is None
    bad = client.post(
        "/api/v1/users/batch", json={"usernames": ["ok-name", "no spaces"]}, headers=teacher
    )
    assert bad.status_code == 422 and "no spaces" in bad.json()["detail"]
    twice = client.post("/api/v1/users/batch", json={"csv": "dup\ndup\n"}, headers=teacher)
    assert twice.status_code == 422 and "dup" in twice.json()["detail"]


def test_one_instructor_account_is_created_with_its_role(client, session) -> None:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    created = client.post(
        "/api/v1/users/batch",
        json={"usernames": ["helper"], "role": "instructor"},
        headers=teacher,
    ).json()
    assert created[0]["role"] == "instructor"
    roles = client.get("/api/v1/users?role=instructor", headers=teacher).json()["items"]
    assert {u["username"] for u in roles} == {"helper", "teacher"}


def test_search_takes_wildcards_literally(client, session) -> None:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    account(session, "a_b")
    account(session, "axb")
    names = [
        u["username"]
        for u in client.get("/api/v1/users?search=a_", headers=teacher).json()["items"]
    ]
    assert names == ["a_b"]


def test_a_new_password_replaces_the_old_one_and_ends_its_sessions(client, session) -> None:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    student, _ = account(session, "forgetful")
    old_password = {"username": "forgetful", "password": "password-forgetful"}  # make_account's
    login = client.post("/api/v1/token", data=old_password)
    before = {"Authorization": f"Bearer {login.json()['access_token']}"}
    assert client.get("/api/v1/users/me", headers=before).status_code == 200
    response = client.post(f"/api/v1/users/{student.id}/password", headers=teacher)
    assert response.status_code == 200
    password = response.json()["password"]
    old = client.post("/api/v1/token", data=old_password)
    assert old.status_code == 401
    # A session opened with the old password (someone who had it) ends with it.
    assert client.get("/api/v1/users/me", headers=before).status_code == 401
    new = client.post("/api/v1/token", data={"username": "forgetful", "password": password})
    assert new.status_code == 200
    after = {"Authorization": f"Bearer {new.json()['access_token']}"}
    assert client.get("/api/v1/users/me", headers=after).json()["username"] == "forgetful"
    # The teacher's own session is untouched.
    assert client.get("/api/v1/users/me", headers=teacher).status_code == 200


def test_a_disabled_account_cannot_log_in_submit_or_use_its_token(client, session) -> None:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    student, token = account(session, "leaver")
    change = client.patch(f"/api/v1/users/{student.id}", json={"disabled": True}, headers=teacher)
    assert change.status_code == 200 and change.json()["disabled"] is True
    assert client.get("/api/v1/users/me", headers=token).status_code == 401
    submit = client.post(
        "/api/v1/submissions",
        json={"problem": "numbergame", "source": "def solution(board):\n    return 0\n"},
        headers=token,
    )
    assert submit.status_code == 401
    login = client.post("/api/v1/token", data={"username": "leaver", "password": "password-leaver"})
    assert login.status_code == 403 and "disabled" in login.json()["detail"]
    wrong = client.post("/api/v1/token", data={"username": "leaver", "password": "wrong-pw"})
    assert wrong.status_code == 401  # nothing said about the account without its password
    client.patch(f"/api/v1/users/{student.id}", json={"disabled": False}, headers=teacher)
    # Enabled again: a fresh login works, the tokens from before (a stolen one) stay dead.
    assert client.get("/api/v1/users/me", headers=token).status_code == 401
    login = client.post("/api/v1/token", data={"username": "leaver", "password": "password-leaver"})
    fresh = {"Authorization": f"Bearer {login.json()['access_token']}"}
    assert client.get("/api/v1/users/me", headers=fresh).status_code == 200


def test_resetting_a_password_from_the_command_line_ends_its_sessions(client, session) -> None:
    _, token = account(session, "admin", Role.INSTRUCTOR)
    assert client.get("/api/v1/users/me", headers=token).status_code == 200
    upsert_user(
        session=session,
        passwords=TEST_PASSWORDS,
        username="admin",
        password="same-name-new-pw",
        role=Role.INSTRUCTOR,
    )
    assert client.get("/api/v1/users/me", headers=token).status_code == 401


def test_instructors_cannot_disable_themselves_and_students_manage_nobody(client, session) -> None:
    me, teacher = account(session, "teacher", Role.INSTRUCTOR)
    other, student = account(session, "pupil")
    assert (
        client.patch(f"/api/v1/users/{me.id}", json={"disabled": True}, headers=teacher).status_code
        == 409
    )
    assert client.get("/api/v1/users", headers=student).status_code == 403
    assert client.post(f"/api/v1/users/{other.id}/password", headers=student).status_code == 403
    assert (
        client.post("/api/v1/users/batch", json={"usernames": ["x1x"]}, headers=student).status_code
        == 403
    )
    assert client.post("/api/v1/users/999999/password", headers=teacher).status_code == 404


# ---- hidden boards: failures, labels and notes ------------------------------------------------

BOARD = {"board": [3, 1, 2]}


def hidden_row(session: Session, user: User, board_id: int, verdict: str) -> None:
    sub = repo.create_submission(
        session=session, user_id=user.id, problem="numbergame", source="x", seed=1
    )
    session.add(
        ResultRow(
            submission_id=sub.id,
            lease_token=sub.lease_token,
            index=0,
            kind="hidden",
            verdict=verdict,
            board_id=board_id,
        )
    )
    session.commit()


def test_each_hidden_board_says_how_many_submissions_fail_it(client, session) -> None:
    teacher_user, teacher = account(session, "teacher", Role.INSTRUCTOR)
    ann, _ = account(session, "ann")
    bob, _ = account(session, "bob")
    strong = repo.add_board(
        session=session, problem="numbergame", case=BOARD, answer=0, author_id=teacher_user.id
    )
    weak = repo.add_board(
        session=session, problem="numbergame", case=BOARD, answer=0, author_id=teacher_user.id
    )
    unused = repo.add_board(
        session=session, problem="numbergame", case=BOARD, answer=0, author_id=teacher_user.id
    )
    session.commit()
    for who, verdict in ((ann, "WA"), (ann, "TLE"), (bob, "WA"), (bob, "AC")):
        hidden_row(session, who, strong.id, verdict)
    for who, verdict in ((ann, "AC"), (bob, "AC"), (bob, "SKIPPED")):
        hidden_row(session, who, weak.id, verdict)
    response = client.get("/api/v1/problems/numbergame/boards/report", headers=teacher)
    assert response.status_code == 200
    report = {b["id"]: b for b in response.json()}
    assert (report[strong.id]["judged"], report[strong.id]["failing"]) == (4, 3)
    assert report[strong.id]["failing_students"] == 2
    assert (report[weak.id]["judged"], report[weak.id]["failing"]) == (3, 0)
    assert (report[unused.id]["judged"], report[unused.id]["failing"]) == (0, 0)
    assert client.get("/api/v1/problems/footholds/boards/report", headers=teacher).json() == []


def test_a_board_gets_a_label_and_a_note(client, session) -> None:
    teacher_user, teacher = account(session, "teacher", Role.INSTRUCTOR)
    _, student = account(session, "pupil")
    board = repo.add_board(
        session=session, problem="numbergame", case=BOARD, answer=0, author_id=teacher_user.id
    )
    session.commit()
    path = f"/api/v1/problems/numbergame/boards/{board.id}"
    body = {"label": "  ends equal\u0007 ", "note": "catches greedy\ntakes"}
    changed = client.patch(path, json=body, headers=teacher)
    assert changed.status_code == 200
    assert changed.json()["label"] == "ends equal"  # trimmed, the bell character gone
    assert changed.json()["note"] == "catches greedy\ntakes"
    listed = client.get("/api/v1/problems/numbergame/boards/report", headers=teacher).json()
    assert listed[0]["label"] == "ends equal"
    cleared = client.patch(path, json={"label": "", "note": None}, headers=teacher).json()
    assert cleared["label"] is None and cleared["note"] is None
    assert client.patch(path, json={"label": "x" * 81}, headers=teacher).status_code == 422
    assert client.patch(path, json={"label": "x"}, headers=student).status_code == 403
    other = f"/api/v1/problems/footholds/boards/{board.id}"
    assert client.patch(other, json={"label": "x"}, headers=teacher).status_code == 404

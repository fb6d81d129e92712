"""The gradebook kept per assignment (store/repo/gradebook.py): read again unchanged, it is
not computed again; after each kind of change that may change a credit (a submission made,
a verdict, a rejudge, an extension granted or revoked, an override, an edit) the cached body
is exactly what a fresh computation gives, never the stale one. Over HTTP, on SQLite and
PostgreSQL, each test inside a rolled-back transaction."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from api.routers import assignments as api_assignments
from store import repo
from store.models import Assignment, CreditChange, Role, User, utcnow
from store.outcome import JudgingOutcome
from store.repo import assignments as repo_assignments
from store.repo import credit_versions
from store.repo import gradebook as repo_gradebook
from tests.service.conftest import api_client
from tests.service.conftest import make_account as account

DAY = timedelta(days=1)


@pytest.fixture
def client(session: Session, db_engine) -> Iterator[TestClient]:
    repo_gradebook.forget_cached()
    with api_client(session, db_engine) as c:
        yield c
    repo_gradebook.forget_cached()


@pytest.fixture
def queried(monkeypatch) -> dict[str, list]:
    """The attempts queries made: "full", one entry per gradebook computed in full (a cache
    miss); "rows", the students of each one brought up to date by rows."""
    calls: dict[str, list] = {"full": [], "rows": []}
    real = repo_assignments.attempts

    def counted(**kw):
        if kw.get("user_ids") is not None:
            calls["rows"].append(set(kw["user_ids"]))
        elif kw.get("user_id") is None:
            calls["full"].append(kw["assignment"].id)
        return real(**kw)

    monkeypatch.setattr(repo_assignments, "attempts", counted)
    return calls


@pytest.fixture
def computed(queried) -> list[int]:
    """One entry per gradebook computed in full (a cache miss)."""
    return queried["full"]


@pytest.fixture
def encoded(monkeypatch) -> list[str]:
    """The username of each gradebook row encoded (api/routers/assignments.py)."""
    rows: list[str] = []
    real = api_assignments.row_public

    def counted(row):
        rows.append(row.username)
        return real(row)

    monkeypatch.setattr(api_assignments, "row_public", counted)
    return rows


def assignment_body(points: int = 10) -> dict:
    now = utcnow()
    return {
        "title": "Week 1",
        "release_at": (now - 5 * DAY).isoformat(),
        "due_at": (now + DAY).isoformat(),
        "late_rule": "per_day",
        "late_until": (now + 3 * DAY).isoformat(),
        "late_percent": 25,
        "problems": [
            {"problem": "footholds", "points": points},
            {
                "problem": "numbergame",
                "points": 20,
                "scoring": "tests",
                "weights": {"sample": 1, "hidden": 1},
            },
        ],
    }


def outcome(verdict: str, kinds: dict[str, tuple[int, int]]) -> JudgingOutcome:
    tests = []
    for kind, (passed, total) in kinds.items():
        for i in range(total):
            verdict_i = "AC" if i < passed else "WA"
            tests.append({"index": len(tests), "kind": kind, "verdict": verdict_i})
    passed = sum(p for p, _ in kinds.values())
    return JudgingOutcome(verdict, passed, len(tests), tests, judge_version="test")


def submit(session: Session, user: User, problem: str) -> int:
    sub = repo.create_submission(
        session=session, user_id=user.id, problem=problem, source="x", seed=1
    )
    session.commit()
    return sub.id


def judge(session: Session, sid: int, result: JudgingOutcome) -> None:
    claim = repo.claim(session=session, submission_id=sid, lease_s=60)
    assert claim is not None
    assert repo.finish(session=session, claim_=claim, outcome=result)


@pytest.fixture
def course(session: Session, client: TestClient) -> dict:
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    ann, _ = account(session, "ann")
    bob, _ = account(session, "bob")
    made = client.post("/api/v1/assignments", json=assignment_body(), headers=teacher)
    assert made.status_code == 201, made.text
    first = submit(session, ann, "numbergame")
    judge(session, first, outcome("WA", {"sample": (1, 2), "hidden": (0, 2)}))
    return {"teacher": teacher, "ann": ann, "bob": bob, "id": made.json()["id"]}


def read(client: TestClient, course: dict, path: str = "") -> dict:
    got = client.get(
        f"/api/v1/assignments/{course['id']}/gradebook{path}", headers=course["teacher"]
    )
    assert got.status_code == 200, got.text
    return got.json()


def fresh(client: TestClient, course: dict) -> dict:
    repo_gradebook.forget_cached()
    return read(client, course)


def cell(book: dict, user: str, problem: str) -> dict:
    row = next(r for r in book["rows"] if r["user"] == user)
    return next(c for c in row["cells"] if c["problem"] == problem)


def test_a_gradebook_read_again_unchanged_is_not_computed_again(client, course, computed):
    first = read(client, course)
    assert read(client, course) == first
    assert computed == [course["id"]]
    assert cell(first, "ann", "numbergame")["score"] == 5.0  # 50% of the samples, none hidden
    assert fresh(client, course) == first  # the same body as computed afresh
    canvas = client.get("/api/v1/gradebook.canvas.csv", headers=course["teacher"])
    assert canvas.status_code == 200 and "ann" in canvas.text
    assert computed == [course["id"]] * 2  # the CSV read the one cached just now


def _new_submission(session, client, course) -> None:
    submit(session, course["ann"], "footholds")


def _verdict(session, client, course) -> None:
    sid = submit(session, course["bob"], "footholds")  # ann's last is not released yet
    read(client, course)  # cached while it waits
    judge(session, sid, outcome("AC", {"sample": (2, 2)}))


def _rejudge(session, client, course) -> None:
    repo.rejudge(session=session, problem="numbergame")
    session.commit()


def _extension(session, client, course) -> None:
    far = (utcnow() - 4 * DAY).isoformat()  # ann's own due time, long past, no late window
    got = client.put(
        f"/api/v1/assignments/{course['id']}/extensions/ann",
        json={"due_at": far, "late_until": far, "reason": "test"},
        headers=course["teacher"],
    )
    assert got.status_code == 200, got.text


def _extension_revoked(session, client, course) -> None:
    _extension(session, client, course)
    assert cell(read(client, course), "ann", "numbergame")["score"] == 0  # cached with it
    got = client.delete(
        f"/api/v1/assignments/{course['id']}/extensions/ann", headers=course["teacher"]
    )
    assert got.status_code == 204


def _override(session, client, course) -> None:
    got = client.put(
        f"/api/v1/assignments/{course['id']}/scores/bob/footholds",
        json={"score": 7, "comment": "on paper"},
        headers=course["teacher"],
    )
    assert got.status_code == 200, got.text


def _edit(session, client, course) -> None:
    body = assignment_body(points=40)
    got = client.put(f"/api/v1/assignments/{course['id']}", json=body, headers=course["teacher"])
    assert got.status_code == 200, got.text


CHANGES: dict[str, tuple[Callable[..., None], Callable[[dict], object]]] = {
    "a submission made": (_new_submission, lambda b: cell(b, "ann", "footholds")["pending"]),
    "a verdict": (_verdict, lambda b: cell(b, "bob", "footholds")["score"]),
    "a rejudge": (_rejudge, lambda b: cell(b, "ann", "numbergame")["pending"]),
    "an extension": (_extension, lambda b: cell(b, "ann", "numbergame")["score"]),
    "an extension revoked": (_extension_revoked, lambda b: cell(b, "ann", "numbergame")["score"]),
    "an override": (_override, lambda b: cell(b, "bob", "footholds")["score"]),
    "an edit": (_edit, lambda b: cell(b, "ann", "footholds")["points"]),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_each_change_that_may_change_a_credit_is_served_at_once(client, course, session, change):
    act, what = CHANGES[change]
    before = read(client, course)
    act(session, client, course)
    served = read(client, course)
    assert served == fresh(client, course)  # never the stale body
    if change == "an extension revoked":
        assert what(served) == what(before)  # back to the assignment's own due time
    else:
        assert what(served) != what(before)


def test_a_change_to_another_problem_keeps_the_cache(client, course, session, computed):
    read(client, course)
    submit(session, course["ann"], "nosuch")  # in no assignment
    read(client, course)
    assert computed == [course["id"]]


def test_the_roster_changes_are_served_at_once_and_nothing_else_renders_again(
    client, course, session, encoded
):
    """The encoded body is kept with the roster it lists: a student added or disabled is
    served at once, with only their row encoded; read again unchanged, nothing is encoded
    again."""
    first = read(client, course)
    assert read(client, course) == first and encoded == ["ann", "bob"]
    account(session, "carl")
    with_carl = read(client, course)
    assert [r["user"] for r in with_carl["rows"]] == ["ann", "bob", "carl"]
    course["bob"].disabled = True
    session.commit()
    assert next(r for r in read(client, course)["rows"] if r["user"] == "bob")["disabled"]
    assert encoded == ["ann", "bob", "carl", "bob"]


# ---- brought up to date by rows ------------------------------------------------------------


def _one_rejudged(session, client, course) -> None:
    sid = submit(session, course["bob"], "numbergame")
    judge(session, sid, outcome("AC", {"sample": (2, 2), "hidden": (2, 2)}))
    read(client, course)
    repo.rejudge(session=session, submission_ids=[sid])
    session.commit()


# A change to one student's credit -> whose rows are computed again (each read after it).
ONE_STUDENT: dict[str, tuple[Callable[..., None], str]] = {
    "a submission made": (_new_submission, "ann"),
    "a verdict": (_verdict, "bob"),
    "a submission rejudged": (_one_rejudged, "bob"),
    "an extension": (_extension, "ann"),
    "an extension revoked": (_extension_revoked, "ann"),
    "an override": (_override, "bob"),
}


def raw(client: TestClient, course: dict) -> bytes:
    got = client.get(f"/api/v1/assignments/{course['id']}/gradebook", headers=course["teacher"])
    assert got.status_code == 200, got.text
    return got.content


def encoded_afresh(session: Session, course: dict) -> bytes:
    """The body as GradebookPublic encodes it in one piece, from a fresh computation."""
    repo_gradebook.forget_cached()
    assignment = session.get(Assignment, course["id"])
    assert assignment is not None
    session.refresh(assignment)
    rows = repo_gradebook.gradebook(session=session, assignment=assignment)
    return api_assignments.gradebook_json(assignment, rows)


@pytest.mark.parametrize("change", list(ONE_STUDENT))
def test_a_change_to_one_students_credit_recomputes_and_encodes_their_row_only(
    client, course, session, queried, encoded, change
):
    act, student = ONE_STUDENT[change]
    read(client, course)
    assert queried == {"full": [course["id"]], "rows": []}
    del encoded[:]
    act(session, client, course)
    served = raw(client, course)
    assert queried["full"] == [course["id"]]  # never computed in full again
    assert queried["rows"] and all(users == {course[student].id} for users in queried["rows"])
    assert set(encoded) == {student}
    assert served == encoded_afresh(session, course)  # byte for byte


@pytest.mark.parametrize("change", ["an edit", "a rejudge"])
def test_a_change_to_anyones_credit_computes_it_all(client, course, session, queried, change):
    """An edit, a problem-wide rejudge: anyone's credit, the whole table again."""
    read(client, course)
    CHANGES[change][0](session, client, course)
    served = raw(client, course)
    assert queried == {"full": [course["id"]] * 2, "rows": []}
    assert served == encoded_afresh(session, course)


def test_a_gap_in_the_change_log_computes_it_all(client, course, session, queried):
    """Rows pruned, or a bump without its row (made before the log existed): in full."""
    read(client, course)
    submit(session, course["ann"], "footholds")
    session.execute(delete(CreditChange).where(CreditChange.assignment_id == course["id"]))
    session.commit()
    read(client, course)
    assert queried == {"full": [course["id"]] * 2, "rows": []}
    session.execute(
        update(Assignment)
        .where(Assignment.id == course["id"])
        .values(credit_version=Assignment.credit_version + 1)
    )
    session.commit()
    assert raw(client, course) == encoded_afresh(session, course)
    assert queried["full"] == [course["id"]] * 4  # the read, then the fresh one
    assert queried["rows"] == []


def test_more_students_changed_than_the_share_computes_it_all(
    client, course, session, queried, monkeypatch
):
    monkeypatch.setattr(repo_gradebook, "INCREMENTAL_MIN", 0)  # 10% of 1 row: none
    read(client, course)
    submit(session, course["bob"], "footholds")
    assert raw(client, course) == encoded_afresh(session, course)
    assert queried["rows"] == [] and queried["full"] == [course["id"]] * 3


def test_changes_in_a_row_are_brought_up_to_date_together(client, course, session, queried):
    read(client, course)
    bob = submit(session, course["bob"], "footholds")
    judge(session, bob, outcome("AC", {"sample": (2, 2)}))
    _override(session, client, course)  # bob's
    _extension(session, client, course)  # ann's
    served = raw(client, course)
    assert queried["rows"] == [{course["ann"].id, course["bob"].id}]
    assert served == encoded_afresh(session, course)


def test_a_change_made_while_one_is_read_is_served_by_the_next_read(
    client, course, session, queried, monkeypatch
):
    """A bump committed after the read took its version (here: while it reads the changes)
    is not taken as read: the table is kept for the version read, and the next read brings
    the new change in."""
    read(client, course)
    submit(session, course["ann"], "footholds")
    real = repo_gradebook.credit_versions.changed_since
    racing = [True]

    def changed_since(**kw):
        if racing:
            racing.clear()
            submit(session, course["bob"], "footholds")  # committed meanwhile
        return real(**kw)

    monkeypatch.setattr(repo_gradebook.credit_versions, "changed_since", changed_since)
    first = read(client, course)
    assert queried["rows"][0] == {course["ann"].id}
    assert raw(client, course) == encoded_afresh(session, course)  # bob's pending now
    assert cell(first, "ann", "footholds")["pending"]
    assert queried["rows"] == [{course["ann"].id}, {course["bob"].id}]


def test_the_body_assembled_by_rows_is_the_one_encoded_in_one_piece(client, course, session):
    """Escapes, an override's comment and author, extended deadlines: the rows joined are
    GradebookPublic's JSON byte for byte."""
    read(client, course)
    got = client.put(
        f"/api/v1/assignments/{course['id']}/scores/ann/footholds",
        json={"score": 2.5, "comment": 'on "paper" \\ naïve — 日本 \n line'},
        headers=course["teacher"],
    )
    assert got.status_code == 200, got.text
    _extension(session, client, course)
    account(session, "zoe")
    assert raw(client, course) == encoded_afresh(session, course)


# ---- the change log -----------------------------------------------------------------------


def changes(session: Session, assignment_id: int) -> list[tuple[int, int | None]]:
    rows = session.execute(
        select(CreditChange.version, CreditChange.user_id)
        .where(CreditChange.assignment_id == assignment_id)
        .order_by(CreditChange.version, CreditChange.user_id)
    )
    return [(v, u) for v, u in rows]


def test_each_bump_logs_its_version_and_whose_credit_it_may_change(session, course, monkeypatch):
    aid, ann, bob = course["id"], course["ann"].id, course["bob"].id
    version = credit_versions.current(session=session, assignment_id=aid)
    logged = changes(session, aid)
    assert logged[-1] == (version, ann)  # the course's verdict on ann's submission
    credit_versions.bump(session=session, assignment_id=aid, user_id=bob)
    credit_versions.bump_for_problems(session=session, problems=["footholds"], user_ids=[ann, bob])
    credit_versions.bump_for_problems(session=session, problems=["nosuch"], user_ids=[ann])
    monkeypatch.setattr(credit_versions, "MAX_USERS", 1)
    credit_versions.bump_for_problems(session=session, problems=["footholds"], user_ids=[ann, bob])
    credit_versions.bump(session=session, assignment_id=aid, user_id=None)
    session.commit()
    assert changes(session, aid)[len(logged) :] == [
        (version + 1, bob),
        (version + 2, ann),
        (version + 2, bob),
        (version + 3, None),  # too many students: anyone's
        (version + 4, None),
    ]
    assert credit_versions.current(session=session, assignment_id=aid) == version + 4
    assert credit_versions.changed_since(
        session=session, assignment_id=aid, since=version, upto=version + 2
    ) == {ann, bob}
    assert (
        credit_versions.changed_since(
            session=session, assignment_id=aid, since=version, upto=version + 3
        )
        is None
    )


def test_old_changes_are_pruned_and_a_version_before_them_computes_it_all(
    client, session, course, queried, monkeypatch
):
    monkeypatch.setattr(credit_versions, "KEEP_VERSIONS", 4)
    monkeypatch.setattr(credit_versions, "PRUNE_EVERY", 2)
    aid, bob = course["id"], course["bob"].id
    read(client, course)
    for _ in range(7):
        credit_versions.bump(session=session, assignment_id=aid, user_id=bob)
    session.commit()
    version = credit_versions.current(session=session, assignment_id=aid)
    kept = [v for v, _ in changes(session, aid)]
    last_pruned = version - version % 2
    assert kept == list(range(last_pruned - 3, version + 1))
    assert raw(client, course) == encoded_afresh(session, course)
    assert queried["rows"] == []  # the cached version's successors were pruned: in full
    read(client, course)
    credit_versions.bump(session=session, assignment_id=aid, user_id=bob)
    session.commit()
    read(client, course)
    assert queried["rows"] == [{bob}]

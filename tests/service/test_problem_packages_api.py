"""Uploading problem packages, API side at unit level: the app on a rolled-back session, the
checks recorded instead of sent, their outcome stored through the repository as a worker
would (tests/service/test_problem_packages.py runs the real worker)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge.problems.archive import MAX_ARCHIVE_BYTES
from store.models import Priority, ProblemVersion, Status, Submission, utcnow
from store.repo import problem_packages
from store.repo import rejudge_previews as previews
from tests.service.conftest import api_client
from tests.service.packages import package_zip, symlink_zip, unique_slug

GOOD = "def solution(board):\n    return 0\n"
PASSED = {"ok": True, "checks": [{"name": "samples", "ok": True, "message": "3 samples"}]}
FAILED = {
    "ok": False,
    "checks": [
        {"name": "files", "ok": True, "message": "5 files"},
        {"name": "samples", "ok": False, "message": "sample 2: the reference answers 0, not 1"},
    ],
}


@pytest.fixture
def checks() -> list[int]:
    return []


@pytest.fixture
def client(session: Session, db_engine, checks: list[int]) -> Iterator[TestClient]:
    with api_client(
        session,
        db_engine,
        enqueue=lambda *args, **kwargs: True,
        enqueue_check=lambda version_id: checks.append(version_id) is None,
    ) as test_client:
        yield test_client


def upload(client: TestClient, headers, data: bytes, slug: str | None = None):
    files = {"file": ("package.zip", data, "application/zip")}
    if slug is None:
        return client.post("/api/v1/problems", headers=headers, files=files)
    return client.put(f"/api/v1/problems/{slug}", headers=headers, files=files)


def checked(session: Session, version_id: int, report: dict) -> None:
    assert problem_packages.finish_check(
        session=session, version_id=version_id, passed=report["ok"], report=report
    )


def versions(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(ProblemVersion)) or 0


def test_upload_check_publish_then_students_see_it(client, session, checks, teacher, alice):
    slug = unique_slug()
    sent = upload(client, teacher, package_zip(slug))
    assert sent.status_code == 202, sent.text
    version = sent.json()
    assert version["slug"] == slug and version["number"] == 1
    assert version["status"] == "checking" and version["published"] is False
    assert version["title"] == "Tic-tac-toe" and version["uploaded_by"] == "teacher"
    assert len(version["digest"]) == 64
    assert sent.headers["location"] == f"/api/v1/problems/{slug}/versions/{version['id']}"
    assert checks == [version["id"]]

    # Not published yet: students see nothing of it.
    assert client.get(f"/api/v1/problems/{slug}", headers=alice).status_code == 404
    publish = f"/api/v1/problems/{slug}/versions/{version['id']}/publish"
    early = client.post(publish, headers=teacher)
    assert early.status_code == 409 and "still being checked" in early.json()["detail"]

    checked(session, version["id"], PASSED)
    shown = client.get(sent.headers["location"], headers=teacher).json()
    assert shown["status"] == "passed" and shown["report"] == PASSED
    published = client.post(publish, headers=teacher)
    assert published.status_code == 200, published.text
    body = published.json()
    assert body["state"] == "published" and body["builtin"] is False
    assert body["published_version"]["id"] == version["id"]

    listed = {p["slug"]: p for p in client.get("/api/v1/problems").json()}
    assert listed[slug]["title"] == "Tic-tac-toe" and listed[slug]["limits"]["time_s"] == 1.0
    page = client.get(f"/api/v1/problems/{slug}").json()
    assert page["params"] == ["board"] and page["param_types"] == {"board": "int[][]"}
    assert page["answer_type"] == "int" and len(page["samples"]) == 3
    assert page["statement"] and page["statement_html"]
    assert page["styles"] == ["function", "stdio"]
    assert client.get(f"/problems/{slug}").status_code == 200  # the problem page

    submitted = client.post(
        "/api/v1/submissions", headers=alice, json={"problem": slug, "source": GOOD}
    )
    assert submitted.status_code == 202, submitted.text
    # A run's case is checked against the signature here (validate() runs in the worker).
    bad_case = client.post(
        "/api/v1/runs",
        headers=alice,
        json={"problem": slug, "source": GOOD, "cases": [{"board": "x"}]},
    )
    assert bad_case.status_code == 422 and "board" in bad_case.json()["detail"]
    # Its hidden boards are its package's.
    board = client.post(
        f"/api/v1/problems/{slug}/boards",
        headers=teacher,
        json={"input": {"board": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}},
    )
    assert board.status_code == 409 and "boards/ folder" in board.json()["detail"]

    items = client.get("/api/v1/problems/manage", headers=teacher).json()["items"]
    managed = {p["slug"]: p for p in items}
    assert managed["numbergame"]["builtin"] is True
    assert managed[slug]["latest_version"]["id"] == version["id"]

    # Hidden: gone for students; retired: seen, no new submissions or runs.
    hide = client.patch(f"/api/v1/problems/{slug}", headers=teacher, json={"state": "hidden"})
    assert hide.status_code == 200 and hide.json()["state"] == "hidden"
    assert client.get(f"/api/v1/problems/{slug}").status_code == 404
    assert slug not in {p["slug"] for p in client.get("/api/v1/problems").json()}
    hidden_submit = client.post(
        "/api/v1/submissions", headers=alice, json={"problem": slug, "source": GOOD}
    )
    assert hidden_submit.status_code == 422
    client.patch(f"/api/v1/problems/{slug}", headers=teacher, json={"state": "retired"})
    assert client.get(f"/api/v1/problems/{slug}").status_code == 200
    retired = client.post(
        "/api/v1/submissions", headers=alice, json={"problem": slug, "source": GOOD}
    )
    assert retired.status_code == 409 and retired.json()["detail"] == "this problem is retired"
    run = client.post("/api/v1/runs", headers=alice, json={"problem": slug, "source": GOOD})
    assert run.status_code == 409


def test_versions_same_content_and_another_slug(client, session, checks, teacher):
    slug = unique_slug()
    first = upload(client, teacher, package_zip(slug)).json()
    again = upload(client, teacher, package_zip(slug))
    assert again.status_code == 409 and f"PUT /api/v1/problems/{slug}" in again.json()["detail"]
    same = upload(client, teacher, package_zip(slug), slug=slug)
    assert same.status_code == 200 and same.json()["id"] == first["id"]
    other = upload(client, teacher, package_zip(unique_slug()), slug=slug)
    assert other.status_code == 422 and "slug" in other.json()["detail"]
    second = upload(client, teacher, package_zip(slug, edit=_new_statement), slug=slug)
    assert second.status_code == 202, second.text
    assert second.json()["number"] == 2
    assert checks == [first["id"], second.json()["id"]]
    listed = client.get(f"/api/v1/problems/{slug}/versions", headers=teacher).json()["items"]
    assert [v["number"] for v in listed] == [2, 1]
    assert all(v["report"] is None for v in listed)

    checked(session, first["id"], FAILED)
    refused = client.post(
        f"/api/v1/problems/{slug}/versions/{first['id']}/publish", headers=teacher
    )
    assert refused.status_code == 409
    assert "samples: sample 2" in refused.json()["detail"]
    state = client.patch(f"/api/v1/problems/{slug}", headers=teacher, json={"state": "published"})
    assert state.status_code == 409  # nothing published yet
    unknown = upload(client, teacher, package_zip("nosuch_problem"), slug="nosuch_problem")
    assert unknown.status_code == 404


def _new_statement(name: str, data: bytes) -> bytes:
    return b"# Tic-tac-toe\n\nNew words.\n" if name == "statement.md" else data


def test_refusals(client, session, checks, teacher, alice):
    before = versions(session)
    slug = unique_slug()
    assert upload(client, alice, package_zip(slug)).status_code == 403
    dotdot = upload(client, teacher, package_zip(slug, extra={"../evil.py": b"x"}))
    assert dotdot.status_code == 422 and ".." in dotdot.json()["detail"]
    link = upload(client, teacher, symlink_zip(slug))
    assert link.status_code == 422 and "link" in link.json()["detail"]
    assert upload(client, teacher, b"not a zip").status_code == 422

    def bad_limits(name: str, data: bytes) -> bytes:
        return data.replace(b"time_s = 1.0", b'time_s = "1s"') if name == "problem.toml" else data

    manifest = upload(client, teacher, package_zip(slug, edit=bad_limits))
    assert manifest.status_code == 422 and "limits.time_s" in manifest.json()["detail"]

    def long_budget(name: str, data: bytes) -> bytes:
        return data.replace(b"total_s = 60", b"total_s = 600") if name == "problem.toml" else data

    budget = upload(client, teacher, package_zip(slug, edit=long_budget))
    assert budget.status_code == 422 and "limits.total_s: at most" in budget.json()["detail"]
    builtin = upload(client, teacher, package_zip("numbergame"))
    assert builtin.status_code == 409 and "built-in" in builtin.json()["detail"]
    put_builtin = upload(client, teacher, package_zip("numbergame"), slug="numbergame")
    assert put_builtin.status_code == 409
    assert "built-in problems change with the product" in put_builtin.json()["detail"]
    assert versions(session) == before and checks == []
    assert client.get("/api/v1/problems/manage", headers=alice).status_code == 403


def test_stale_checks_are_sent_again_then_failed(session, teacher) -> None:
    """The sweeper's side: a check left `checking` is sent again, then fails."""
    from store.repo.users import get_user_by_name

    user = get_user_by_name(session=session, username="teacher")
    slug = unique_slug()
    problem_packages.create_problem(session=session, slug=slug, user_id=user.id if user else None)
    version = problem_packages.add_version(
        session=session, slug=slug, digest="0" * 64, archive=b"zip", manifest={}, user_id=None
    )
    session.commit()
    assert problem_packages.stale_checks(session=session, older_than_s=3600, max_sends=2) == []
    assert problem_packages.stale_checks(session=session, older_than_s=0, max_sends=2) == [
        version.id
    ]
    assert problem_packages.stale_checks(session=session, older_than_s=0, max_sends=2) == []
    session.refresh(version)
    assert version.status == "failed" and "did not finish" in version.report["checks"][0]["message"]


def test_a_zip_over_a_mebibyte_is_read_and_one_over_the_limit_is_413(client, teacher):
    """The app's body limit is the sources'; an upload's route allows a whole package."""
    slug = unique_slug()
    big = package_zip(slug, extra={f"{slug}/data.bin": os.urandom(2 << 20)})
    assert len(big) > 2 << 20
    assert upload(client, teacher, big).status_code == 202
    over = upload(client, teacher, b"PK" + b"\0" * MAX_ARCHIVE_BYTES)
    assert over.status_code == 413


def test_a_rejudge_preview_is_keyed_by_the_submissions_and_publishing_applies_it(
    session, db_engine, teacher, alice, bob
):
    """API side of the preview: the worker's steps stored through the repository as it would
    (tests/service/test_problem_rejudge.py runs the real worker)."""
    sent: list[str] = []
    graded: list[tuple[int, str]] = []
    with api_client(
        session,
        db_engine,
        enqueue=lambda sid, priority: graded.append((sid, priority)) is None,
        request_preview=lambda key: sent.append(key) is None,
    ) as client:
        slug = unique_slug()
        first = upload(client, teacher, package_zip(slug)).json()
        base = f"/api/v1/problems/{slug}/versions"
        early = client.post(f"{base}/{first['id']}/preview", headers=teacher)
        assert early.status_code == 409 and "still being checked" in early.json()["detail"]
        checked(session, first["id"], PASSED)
        # No submissions: ready at once, nothing sent.
        empty = client.post(f"{base}/{first['id']}/preview", headers=teacher)
        assert empty.status_code == 200 and empty.json()["total"] == 0 and sent == []
        assert client.post(f"{base}/{first['id']}/publish", headers=teacher).status_code == 200

        ids = []
        for user in (alice, bob):
            posted = client.post(
                "/api/v1/submissions", headers=user, json={"problem": slug, "source": GOOD}
            )
            ids.append(posted.json()["id"])
        for sid, verdict in zip(ids, ("AC", "WA"), strict=True):
            row = session.get(Submission, sid)
            row.status, row.verdict, row.passed, row.total = Status.DONE, verdict, 3, 3
        session.commit()
        now = utcnow()
        week = client.post(
            "/api/v1/assignments",
            headers=teacher,
            json={
                "title": "Week 1",
                "release_at": (now - timedelta(days=1)).isoformat(),
                "due_at": (now + timedelta(days=1)).isoformat(),
                "problems": [{"problem": slug, "points": 10}],
            },
        )
        assert week.status_code == 201, week.text

        second = upload(client, teacher, package_zip(slug, edit=_restated), slug).json()
        checked(session, second["id"], PASSED)
        preview = f"{base}/{second['id']}/preview"
        missing = client.get(preview, headers=teacher)
        assert missing.status_code == 404 and "POST" in missing.json()["detail"]
        started = client.post(preview, headers=teacher)
        assert started.status_code == 202 and started.headers["location"] == preview
        body = started.json()
        assert (body["status"], body["done"], body["total"]) == ("computing", 0, 2)
        assert len(sent) == 1
        assert client.post(preview, headers=teacher).status_code == 202 and len(sent) == 1
        publish = f"{base}/{second['id']}/publish"
        refused = client.post(publish, headers=teacher, json={"rejudge": True})
        assert refused.status_code == 409 and "preview" in refused.json()["detail"]

        # The worker's steps: bob's submission now passes.
        for _ in ids:
            step = previews.next_step(session=session, key=sent[0])
            assert step is not None and step.version_id == second["id"]
            previews.record(
                session=session,
                key=sent[0],
                submission_id=step.submission_id,
                verdict="AC",
                passed=3,
                total=3,
            )
        assert previews.next_step(session=session, key=sent[0]) is None  # ready now
        ready = client.get(preview, headers=teacher).json()
        assert (ready["status"], ready["done"], ready["changed"]) == ("ready", 2, 1)
        change = ready["changes"][0]
        assert change["submission_id"] == ids[1] and change["user"] == "bob"
        assert (change["old_verdict"], change["new_verdict"], change["changed"]) == (
            "WA",
            "AC",
            True,
        )
        scores = [(c["student"], c["old"], c["new"]) for c in ready["score_changes"]]
        assert scores == [("bob", 0, 10)]

        applied = client.post(publish, headers=teacher, json={"rejudge": True})
        assert applied.status_code == 200, applied.text
        assert applied.json()["rejudged"] == [ids[1]]
        assert applied.json()["published_version"]["id"] == second["id"]
        assert graded[-1] == (ids[1], Priority.REJUDGE)
        session.expire_all()
        assert session.get(Submission, ids[1]).status == Status.QUEUED
        assert session.get(Submission, ids[0]).verdict == "AC"
        kept = client.get(f"/api/v1/assignments/{week.json()['id']}/regrades", headers=teacher)
        assert [(r["student"], r["old_score"], r["new_score"]) for r in kept.json()["items"]] == [
            ("bob", 0, 10)
        ]
        # The set changed (a rejudge bumps its token): that preview is no longer the one.
        assert client.get(preview, headers=teacher).status_code == 404
        wrong = client.post(publish, headers=teacher, json={"rejudge": "yes please"})
        assert wrong.status_code == 422


def _restated(name: str, data: bytes) -> bytes:
    return data + b"\n" if name == "statement.md" else data

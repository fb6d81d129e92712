"""The regrade of issue 22, on SQLite and PostgreSQL: an assignment with a late rule and an
extension; students submit before the due time, late, inside their extension and after the
cutoff; an instructor adds a hidden board one accepted solution fails. The rejudge preview
(graded in-process by the worker's step, through the real sandbox) shows exactly the scores
that change and none that do not; applying it rejudges only the submissions whose verdict
changes and keeps the old scores in the assignment's history."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from config import Settings
from store import repo
from store.models import Priority, Role, Status, Submission, User, utcnow
from store.repo import assignments as repo_assignments
from store.repo import rejudge_previews as previews
from tests.service.conftest import api_client
from tests.service.conftest import make_account as account
from tests.service.stack import solution
from tests.service.test_integration import TRAP_BOARD
from worker import rejudge_preview
from worker.runtime import Runtime

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


class InSession(Runtime):
    """The worker's runtime on the test's session (its commits are savepoints the test's
    transaction rolls back) and the tests' sandbox and build cache."""

    def __init__(self, settings: Settings, session: Session, sandbox, build_cache) -> None:
        super().__init__(settings)
        self._test_session = session
        self.sandbox = sandbox
        self.build_cache = build_cache

    @contextmanager
    def session(self) -> Iterator[Session]:
        yield self._test_session


def submitted(session: Session, user: User, source: str, at: datetime) -> int:
    """A submission made at `at`, accepted (as it was graded before the board)."""
    sub = repo.create_submission(
        session=session, user_id=user.id, problem="footholds", source=source, seed=7
    )
    sub.created_at = at
    sub.status, sub.verdict, sub.passed, sub.total = Status.DONE, "AC", 10, 10
    sub.finished_at = sub.released_at = at + timedelta(seconds=2)
    session.commit()
    return sub.id


def test_a_hidden_board_regrade_previews_exactly_the_changed_scores_then_applies_them(
    session, db_engine, sandbox, build_cache, tmp_path
):
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    students = {name: account(session, name)[0] for name in ("ann", "ben", "cat", "dan", "eve")}
    sent: list[str] = []
    queued: list[tuple[int, str]] = []
    with api_client(
        session,
        db_engine,
        enqueue=lambda sid, priority: queued.append((sid, priority)) is None,
        request_preview=lambda key: sent.append(key) is None,
    ) as client:
        now = utcnow()
        due = now - 3 * DAY
        made = client.post(
            "/api/v1/assignments",
            headers=teacher,
            json={
                "title": "Week 1",
                "release_at": (now - 10 * DAY).isoformat(),
                "due_at": due.isoformat(),
                "late_rule": "per_day",
                "late_until": (due + 2 * DAY).isoformat(),
                "late_percent": 20,
                "problems": [{"problem": "footholds", "points": 10}],
            },
        )
        assert made.status_code == 201, made.text
        assignment = made.json()["id"]
        granted = client.put(
            f"/api/v1/assignments/{assignment}/extensions/cat",
            json={"due_at": (due + DAY).isoformat(), "reason": "was ill"},
            headers=teacher,
        )
        assert granted.status_code == 200, granted.text

        trap, ok = solution("footholds_trap"), solution("footholds_ok")
        ids = {
            "ann": submitted(session, students["ann"], trap, due - HOUR),  # on time: 10
            "ben": submitted(session, students["ben"], trap, due + HOUR),  # a day late: 8
            "cat": submitted(session, students["cat"], trap, due + 20 * HOUR),  # extended: 10
            "dan": submitted(session, students["dan"], ok, due - HOUR),  # passes the board
            "eve": submitted(session, students["eve"], trap, due + 2 * DAY + HOUR),  # practice
        }
        book = client.get(f"/api/v1/assignments/{assignment}/gradebook", headers=teacher).json()
        before = {r["user"]: r["total"] for r in book["rows"]}
        assert before == {"ann": 10, "ben": 8, "cat": 10, "dan": 10, "eve": 0}

        board = client.post(
            "/api/v1/problems/footholds/boards", headers=teacher, json={"input": TRAP_BOARD}
        )
        assert board.status_code == 201, board.text
        preview = "/api/v1/problems/footholds/rejudge/preview"
        assert client.get(preview, headers=teacher).status_code == 404
        started = client.post(preview, headers=teacher)
        assert started.status_code == 202 and started.headers["location"] == preview
        key = started.json()["key"]
        assert sent == [key] and started.json()["total"] == 5
        early = client.post(
            "/api/v1/problems/footholds/rejudge", headers=teacher, json={"preview": key}
        )
        assert early.status_code == 409 and "computing" in early.json()["detail"]

        runtime = InSession(
            Settings(data_dir=tmp_path, secret_key="k" * 40), session, sandbox, build_cache
        )
        clock = time.monotonic()
        while rejudge_preview.step(runtime, key) == "next":
            pass
        print(f"preview of 5 submissions: {time.monotonic() - clock:.1f} s")

        body = client.get(preview, headers=teacher).json()
        assert (body["status"], body["done"], body["changed"]) == ("ready", 5, 4), body
        # Per kind, as a score by tests reads them: the trap fails its one hidden board.
        results = previews.find(session=session, key=key).report["results"]
        assert results[str(ids["ann"])]["kinds"]["hidden"] == [0, 1]
        assert results[str(ids["dan"])]["kinds"]["hidden"] == [1, 1]
        verdicts = {c["user"]: (c["old_verdict"], c["new_verdict"]) for c in body["changes"]}
        assert verdicts["dan"] == ("AC", "AC") and verdicts["eve"] == ("AC", "WA")
        scores = {
            c["student"]: (c["old"], c["new"], c["old_total"], c["new_total"])
            for c in body["score_changes"]
        }
        # Exactly these: dan still passes, eve's was practice (after her cutoff).
        assert scores == {
            "ann": (10, 0, 10, 0),
            "ben": (8, 0, 8, 0),
            "cat": (10, 0, 10, 0),
        }
        assert all(c["assignment_id"] == assignment for c in body["score_changes"])

        applied = client.post(
            "/api/v1/problems/footholds/rejudge", headers=teacher, json={"preview": key}
        )
        assert applied.status_code == 202, applied.text
        changed = sorted(ids[name] for name in ("ann", "ben", "cat", "eve"))
        assert sorted(applied.json()["queued"]) == changed
        assert sorted(queued) == [(sid, Priority.REJUDGE) for sid in changed]
        session.expire_all()
        assert session.get(Submission, ids["dan"]).status == Status.DONE
        assert session.get(Submission, ids["ann"]).status == Status.QUEUED
        again = client.post(
            "/api/v1/problems/footholds/rejudge", headers=teacher, json={"preview": key}
        )
        assert again.status_code == 409 and "as they are now" in again.json()["detail"]

        history = client.get(f"/api/v1/assignments/{assignment}/regrades", headers=teacher)
        assert history.status_code == 200
        kept = {
            h["student"]: (h["old_score"], h["new_score"], h["applied_by"], h["preview_key"])
            for h in history.json()["items"]
        }
        assert kept == {
            "ann": (10, 0, "teacher", key),
            "ben": (8, 0, "teacher", key),
            "cat": (10, 0, "teacher", key),
        }
        ann = account(session, "ann2")[1]
        assert (
            client.get(f"/api/v1/assignments/{assignment}/regrades", headers=ann).status_code == 403
        )


def test_a_preview_grades_every_submission_that_can_count_up_to_its_bound(session, monkeypatch):
    """Not only each student's latest: every one made inside an assignment's window (its
    release up to the latest cutoff, an extension's included); none outside it but the
    latest; the newest kept when the bound cuts, and the cut said."""
    teacher, _ = account(session, "teacher", Role.INSTRUCTOR)
    ann, bob = account(session, "ann")[0], account(session, "bob")[0]
    now = utcnow()
    due = now - 3 * DAY
    assignment = repo_assignments.create_assignment(
        session=session,
        fields={"title": "Week 1", "release_at": due - 5 * DAY, "due_at": due},
        problems=[repo_assignments.ProblemSpec("footholds", 10)],
        user_id=teacher.id,
    )
    repo_assignments.set_extension(
        session=session,
        assignment_id=assignment.id,
        user_id=bob.id,
        due_at=due + DAY,
        late_until=None,
        reason="ill",
        granted_by=teacher.id,
    )
    session.commit()
    before_release = submitted(session, ann, "x", due - 6 * DAY)
    first = submitted(session, ann, "x", due - 2 * DAY)
    second = submitted(session, ann, "x", due - DAY)
    after_cutoff = submitted(session, ann, "x", due + 2 * HOUR)  # ann's latest: graded
    inside_extension = submitted(session, bob, "x", due + 2 * HOUR)
    after_extension = submitted(session, bob, "x", due + 2 * DAY)  # bob's latest
    items, truncated = previews.preview_submissions(session=session, slug="footholds")
    assert [i.id for i in items] == [
        after_extension,
        inside_extension,
        after_cutoff,
        second,
        first,
    ]
    assert before_release not in {i.id for i in items} and not truncated
    monkeypatch.setattr(previews, "MAX_SUBMISSIONS", 2)
    items, truncated = previews.preview_submissions(session=session, slug="footholds")
    assert [i.id for i in items] == [after_extension, inside_extension] and truncated


def test_a_rejudge_preview_goes_stale_with_a_board_and_an_override_stays(session, db_engine):
    """API side, the worker's steps recorded through the repository: an override's score
    stays in the preview, marked; a board added since makes the preview stale (404, 409 on
    applying); students may neither preview, apply nor read the history."""
    _, teacher = account(session, "teacher", Role.INSTRUCTOR)
    ann, ann_h = account(session, "ann")
    bob = account(session, "bob")[0]
    sent: list[str] = []
    with api_client(
        session, db_engine, request_preview=lambda key: sent.append(key) is None
    ) as client:
        now = utcnow()
        made = client.post(
            "/api/v1/assignments",
            headers=teacher,
            json={
                "title": "Week 1",
                "release_at": (now - 3 * DAY).isoformat(),
                "due_at": (now + DAY).isoformat(),
                "problems": [{"problem": "footholds", "points": 10}],
            },
        ).json()
        ids = [submitted(session, who, "x", now - HOUR) for who in (ann, bob)]
        set_score = client.put(
            f"/api/v1/assignments/{made['id']}/scores/bob/footholds",
            json={"score": 6, "comment": "on paper"},
            headers=teacher,
        )
        assert set_score.status_code == 200, set_score.text
        preview = "/api/v1/problems/footholds/rejudge/preview"
        assert client.post(preview, headers=ann_h).status_code == 403
        unknown = client.post("/api/v1/problems/nope/rejudge/preview", headers=teacher)
        assert unknown.status_code == 404
        key = client.post(preview, headers=teacher).json()["key"]
        for _ in ids:
            step = previews.next_step(session=session, key=key)
            assert step is not None and step.version_id is None
            previews.record(
                session=session,
                key=key,
                submission_id=step.submission_id,
                verdict="WA",
                passed=0,
                total=1,
            )
        assert previews.next_step(session=session, key=key) is None
        body = client.get(preview, headers=teacher).json()
        scores = {
            c["student"]: (c["old"], c["new"], c["overridden"]) for c in body["score_changes"]
        }
        assert scores == {"ann": (10, 0, False), "bob": (6, 6, True)}
        assert "computed 10 -> 0" in body["score_changes"][1]["reason"]
        apply = {"preview": key}
        refused = client.post("/api/v1/problems/footholds/rejudge", headers=ann_h, json=apply)
        assert refused.status_code == 403

        board = client.post(
            "/api/v1/problems/footholds/boards", headers=teacher, json={"input": TRAP_BOARD}
        )
        assert board.status_code == 201
        assert client.get(preview, headers=teacher).status_code == 404
        stale = client.post("/api/v1/problems/footholds/rejudge", headers=teacher, json=apply)
        assert stale.status_code == 409 and "board" in stale.json()["detail"]
        regrades = f"/api/v1/assignments/{made['id']}/regrades"
        assert client.get(regrades, headers=teacher).json() == {"items": []}
        assert client.get(regrades, headers=ann_h).status_code == 403

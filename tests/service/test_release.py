"""What students are shown of a judging, and from when (store/release.py, the presenters):
passed/total over the rows they are shown, the result released at R = S + Q * ceil((F - S)
/ Q) and never timed to the microsecond, and a problem holding its hidden results back
until a release time. api/ and store/ at unit level, on SQLite and PostgreSQL, inside a
rolled-back transaction; nothing asserts a duration."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text, update
from sqlalchemy.orm import Session

from config import Settings
from judge.verdict import shown_to_student
from store import repo
from store.migrate import alembic_config, upgrade
from store.models import Judging, Submission, utcnow
from store.outcome import JudgingOutcome
from store.release import release_moment, released_moment, student_figures
from store.repo.stats import TotalsTally
from tests.service.conftest import api_client
from tests.service.test_api import GOOD, Recorder

PROBLEM = "numbergame"


@pytest.fixture
def client(session: Session, db_engine) -> Iterator[TestClient]:
    with api_client(
        session,
        db_engine,
        enqueue=Recorder(),
        submit_rate_per_minute=100,
        max_queued_per_user=1,
    ) as test_client:
        yield test_client


def submit(client: TestClient, headers) -> int:
    answer = client.post(
        "/api/v1/submissions", headers=headers, json={"problem": PROBLEM, "source": GOOD}
    )
    assert answer.status_code == 202, answer.text
    return answer.json()["id"]


def row(index: int, kind: str, verdict: str = "AC", **extra: Any) -> dict[str, Any]:
    test: dict[str, Any] = {"index": index, "kind": kind, "verdict": verdict, "time_ms": 3.0}
    if kind == "hidden":
        test.update(message="the hidden board's secret", board_id=1)
    else:
        test.update(input={"board": [index]}, expected=index, got=index)
    return test | extra


# A visible tier that passes, then hidden boards: the second fails, two more pass after it.
TESTS = [
    row(0, "sample"),
    row(1, "random", counterexample={"input": {"board": [1]}}),
    row(2, "hidden"),
    row(3, "hidden", "WA"),
    row(4, "hidden"),
    row(5, "hidden"),
]


def finish(
    session: Session,
    submission_id: int,
    tests: list[dict[str, Any]] = TESTS,
    *,
    quantum_s: float = 0.0,
    took_s: float | None = None,
) -> Submission:
    """Judge the submission with these tests; `took_s`: as if it had started that long ago."""
    claim = repo.claim(session=session, submission_id=submission_id, lease_s=60)
    assert claim is not None
    if took_s is not None:
        session.execute(
            update(Submission)
            .where(Submission.id == submission_id)
            .values(started_at=utcnow() - timedelta(seconds=took_s))
        )
        session.commit()
    passed = sum(t["verdict"] == "AC" for t in tests)
    outcome = JudgingOutcome(
        verdict="AC" if passed == len(tests) else "WA",
        passed=passed,
        total=len(tests),
        tests=tests,
        judge_version="t",
    )
    assert repo.finish(session=session, claim_=claim, outcome=outcome, release_quantum_s=quantum_s)
    sub = session.get(Submission, submission_id)
    assert sub is not None
    session.refresh(sub)
    return sub


def detail(client: TestClient, sid: int, headers) -> dict[str, Any]:
    answer = client.get(f"/api/v1/submissions/{sid}", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def listed(client: TestClient, headers, query: str = "") -> list[dict[str, Any]]:
    answer = client.get(f"/api/v1/submissions{query}", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def stat(client: TestClient, headers) -> dict[str, Any]:
    rows = client.get("/api/v1/stats/problems", headers=headers).json()
    return next(r for r in rows if r["slug"] == PROBLEM)


def moved_past_its_release(session: Session, sub: Submission) -> Submission:
    """The submission and its judgings as if its release time had just passed: every time of
    theirs moved back by what was left until it (instead of sleeping that long)."""
    assert sub.released_at is not None
    shift = sub.released_at - utcnow() + timedelta(milliseconds=10)
    judgings = session.scalars(select(Judging).where(Judging.submission_id == sub.id)).all()
    for row in (sub, *judgings):
        for name in ("started_at", "finished_at", "released_at"):
            if getattr(row, name, None) is not None:
                setattr(row, name, getattr(row, name) - shift)
    session.commit()
    session.refresh(sub)
    return sub


def sleep_until(moment: datetime) -> None:
    while (left := (moment - utcnow()).total_seconds()) > 0:
        time.sleep(left + 0.01)


# ---- the rules, alone ---------------------------------------------------------------------


@dataclass
class Graded:
    kind: str
    verdict: str


def test_the_figures_count_exactly_the_rows_the_judge_shows_a_student() -> None:
    rng = random.Random(19)
    for _ in range(2000):
        tests = [
            Graded(rng.choice(["sample", "small", "random", "hidden", "hidden"]), v)
            for v in rng.choices(["AC", "AC", "AC", "WA", "TLE", "SKIPPED"], k=rng.randrange(9))
        ]
        rows = [{"index": i, "kind": t.kind, "verdict": t.verdict} for i, t in enumerate(tests)]
        figures = student_figures(rows[::-1], "WA")  # any order: counted in index order
        shown = shown_to_student(tests)
        visible = [t for t in tests if t.kind != "hidden"]
        assert figures.shown_total == len(shown)
        assert figures.shown_passed == sum(t.verdict == "AC" for t in shown)
        assert figures.visible_total == len(visible)
        assert figures.visible_passed == sum(t.verdict == "AC" for t in visible)
        failing = [t.verdict for t in visible if t.verdict != "AC"]
        # No visible test failed: AC when a hidden one did, else the judging's own verdict.
        otherwise = "AC" if any(t.verdict != "AC" for t in tests) else "WA"
        assert figures.visible_verdict == (failing[0] if failing else otherwise)
    # No test at all: a compile or internal error is its own verdict.
    assert student_figures([], "CE").visible_verdict == "CE"


def test_the_release_is_the_duration_rounded_up_to_doubling_steps() -> None:
    start = datetime(2026, 12, 2, 10, 0, 0, 123456, tzinfo=UTC)
    for took, quantum, released in [
        (0.2, 1.0, 1.0),
        (1.0, 1.0, 1.0),
        (1.000001, 1.0, 2.0),
        (3.1, 1.0, 4.0),
        (7.3, 2.5, 10.0),
        (40.0, 0.5, 64.0),
        (7.3, 0.0, 7.3),
    ]:
        end = start + timedelta(seconds=took)
        assert release_moment(start, end, quantum) == start + timedelta(seconds=released)
    end = start + timedelta(seconds=0.5)
    later = start + timedelta(hours=1)
    assert released_moment(end, later) == later and released_moment(end, None) == end
    assert released_moment(later, end) == later and released_moment(None, later) is None


def test_a_hidden_tier_of_up_to_a_minute_ends_in_one_of_eight_steps() -> None:
    """What a student can read of a hidden tier's time: 3 bits at most per judging."""
    start = datetime(2026, 12, 2, 10, 0, 0, tzinfo=UTC)
    moments = {
        release_moment(start, start + timedelta(milliseconds=ms), 0.5) for ms in range(1, 64_000, 7)
    }
    assert len(moments) == 8


def test_the_release_is_timed_from_the_start_of_the_hidden_tier(client, session, alice) -> None:
    """The visible tiers took long (4 s); the hidden one 0.1 s: released 0.5 s after it
    began, not at 4.5 s rounded up to 8."""
    sid = submit(client, alice)
    claim = repo.claim(session=session, submission_id=sid, lease_s=60)
    assert claim is not None
    session.execute(
        update(Submission)
        .where(Submission.id == sid)
        .values(started_at=utcnow() - timedelta(seconds=4.1))
    )
    session.commit()
    outcome = JudgingOutcome(
        verdict="AC", passed=2, total=2, tests=TESTS, judge_version="t", hidden_s=0.1
    )
    before = utcnow()
    assert repo.finish(session=session, claim_=claim, outcome=outcome, release_quantum_s=0.5)
    sub = session.get(Submission, sid)
    assert sub is not None and sub.released_at is not None and sub.finished_at is not None
    session.refresh(sub)
    began = sub.finished_at - timedelta(seconds=0.1)
    assert sub.released_at == began + timedelta(seconds=0.5)
    assert sub.released_at < before + timedelta(seconds=1)


def test_the_release_quantum_defaults_to_the_settings_default() -> None:
    default = Settings.model_fields["hidden_release_quantum_s"].default
    assert repo.judging.RELEASE_QUANTUM_S == default == 0.5


# ---- 1. passed/total from the rows a student is shown --------------------------------------


def test_students_count_passed_and_total_over_the_rows_they_are_shown(
    client, session, alice, teacher
) -> None:
    """The detail, the history list, the judging history: 3 of the 4 rows shown (two
    visible tests, the first hidden one, the failing one), never the 5 of 6 that count the
    hidden tests passed after the first hidden failure. Instructors keep the full figures."""
    sid = submit(client, alice)
    finish(session, sid)
    assert client.post(f"/api/v1/submissions/{sid}/rejudge", headers=teacher).status_code == 202
    finish(session, sid)

    mine = detail(client, sid, alice)
    assert (mine["verdict"], mine["passed"], mine["total"]) == ("WA", 3, 4)
    assert [t["index"] for t in mine["tests"]] == [0, 1, 2, 3]
    assert [(h["verdict"], h["passed"], h["total"]) for h in mine["history"]] == [("WA", 3, 4)] * 2
    assert [(r["passed"], r["total"]) for r in listed(client, alice)] == [(3, 4)]

    theirs = detail(client, sid, teacher)
    assert (theirs["passed"], theirs["total"], len(theirs["tests"])) == (5, 6, 6)
    assert [(h["passed"], h["total"]) for h in theirs["history"]] == [(5, 6)] * 2
    assert [(r["passed"], r["total"]) for r in listed(client, teacher)] == [(5, 6)]


# ---- 2. the release moment ----------------------------------------------------------------


def test_until_its_release_a_student_sees_the_judging_still_being_judged(
    client, session, alice, teacher
) -> None:
    sid = submit(client, alice)
    # A release far enough off that no machine, however busy, reaches it during the checks
    # before it; then the clock is moved on by moving the judging's times back (below).
    sub = finish(session, sid, quantum_s=60.0, took_s=0.25)
    assert sub.started_at is not None and sub.finished_at is not None
    assert sub.released_at == sub.started_at + timedelta(seconds=60)

    # Before R: running, its visible tests as they were while judged, nothing of the end.
    early = detail(client, sid, alice)
    assert early["status"] == "running"
    assert [early[k] for k in ("verdict", "passed", "total", "finished_at")] == [None] * 4
    assert [early[k] for k in ("max_time_ms", "peak_memory_kb", "judge_version")] == [None] * 3
    assert early["started_at"] is None and early["history"] == []
    assert [t["kind"] for t in early["tests"]] == ["sample", "random"]
    assert early["tests"][1]["counterexample"] is None  # stored with the verdict
    [summary] = listed(client, alice)
    assert (summary["status"], summary["verdict"], summary["finished_at"]) == (
        "running",
        None,
        None,
    )
    assert listed(client, alice, "?verdict=WA") == []
    assert (stat(client, alice)["submissions"], stat(client, alice)["mine"]) == (0, "tried")
    # The place it takes among the waiting ones frees only then (a 429 costs nothing).
    refused = client.post(
        "/api/v1/submissions", headers=alice, json={"problem": PROBLEM, "source": GOOD}
    )
    assert refused.status_code == 429

    # Instructors: everything at once, to the microsecond.
    seen = detail(client, sid, teacher)
    assert (seen["status"], seen["verdict"]) == ("done", "WA")
    assert datetime.fromisoformat(seen["finished_at"]) == sub.finished_at
    assert datetime.fromisoformat(seen["started_at"]) == sub.started_at
    assert len(seen["tests"]) == 6 and seen["history"][0]["finished_at"] is not None

    sub = moved_past_its_release(session, sub)
    late = detail(client, sid, alice)
    assert (late["status"], late["verdict"], late["passed"], late["total"]) == ("done", "WA", 3, 4)
    shown_at = datetime.fromisoformat(late["finished_at"])
    assert shown_at.microsecond == 0 and timedelta(0) <= shown_at - sub.released_at < timedelta(
        seconds=1
    )
    assert late["started_at"] is None
    assert late["tests"][1]["counterexample"] == {"input": {"board": [1]}}
    assert [h["finished_at"] for h in late["history"]] == [late["finished_at"]]
    assert [r["id"] for r in listed(client, alice, "?verdict=WA")] == [sid]
    assert stat(client, alice)["submissions"] == 1
    assert submit(client, alice)


def test_a_students_next_submission_starts_only_once_the_last_is_released(session) -> None:
    alice = repo.create_user(session=session, username="ann", password_hash="x", role="student")
    session.commit()
    first, second = (
        repo.create_submission(
            session=session, user_id=alice.id, problem=PROBLEM, source="", seed=1
        ).id
        for _ in range(2)
    )
    session.commit()
    sub = finish(session, first, quantum_s=2.0, took_s=0.1)
    assert sub.released_at is not None
    # Started now, its status and its tests would show when the first one's hidden tier ended.
    assert repo.claim(session=session, submission_id=second, lease_s=60) is None
    assert repo.waiting_for_its_user(session=session, submission_id=second)
    # The first's hand-on may have passed: the worker that dropped the message sends it
    # again itself, for the release.
    handed = repo.defer(session=session, submission_id=second)
    assert isinstance(handed, repo.Stale) and handed.submission_id == second
    assert 0 < handed.countdown_s <= 2.0 + repo.HAND_ON_SLACK_S
    assert repo.next_for_user(session=session, submission_id=first) is None  # not twice
    sleep_until(sub.released_at)
    assert repo.claim(session=session, submission_id=second, lease_s=60) is not None


# ---- 2. a problem holding its hidden results back -----------------------------------------


def test_a_problem_holds_its_hidden_results_back_until_its_release_time(
    client, session, alice, teacher
) -> None:
    url = f"/api/v1/problems/{PROBLEM}/release"
    until = (utcnow() + timedelta(hours=2)).replace(microsecond=0)
    assert client.put(url, json={"hidden_release_at": until.isoformat()}).status_code == 401
    assert client.put(url, json={"hidden_release_at": None}, headers=alice).status_code == 403
    assert (
        client.put(
            "/api/v1/problems/nope/release", json={"hidden_release_at": None}, headers=teacher
        ).status_code
        == 404
    )
    answer = client.put(url, json={"hidden_release_at": until.isoformat()}, headers=teacher)
    assert answer.status_code == 200, answer.text
    assert datetime.fromisoformat(answer.json()["hidden_release_at"]) == until
    problem = client.get(f"/api/v1/problems/{PROBLEM}").json()  # public, as the problem is
    assert datetime.fromisoformat(problem["hidden_release_at"]) == until

    sid = submit(client, alice)
    finish(session, sid)  # released at once (Q = 0): only the hold keeps the hidden tier back
    mine = detail(client, sid, alice)
    assert mine["status"] == "done" and mine["hidden_pending"] is True
    assert (mine["verdict"], mine["passed"], mine["total"]) == ("AC", 2, 2)  # the visible tests
    assert datetime.fromisoformat(mine["hidden_release_at"]) == until
    assert [t["kind"] for t in mine["tests"]] == ["sample", "random"]
    assert "secret" not in str(mine)
    assert [(h["verdict"], h["passed"], h["total"]) for h in mine["history"]] == [("AC", 2, 2)]
    [summary] = listed(client, alice)
    assert (summary["verdict"], summary["hidden_pending"], summary["passed"]) == ("AC", True, 2)
    assert listed(client, alice, "?verdict=WA") == []
    assert [r["id"] for r in listed(client, alice, "?verdict=AC")] == [sid]
    assert (stat(client, alice)["accepted"], stat(client, alice)["mine"]) == (1, "solved")

    # Instructors see the hidden results all along.
    seen = detail(client, sid, teacher)
    assert (seen["verdict"], seen["passed"], seen["hidden_pending"]) == ("WA", 5, False)
    assert [r["id"] for r in listed(client, teacher, "?verdict=WA")] == [sid]

    # Released (a time in the past, as at the deadline): the whole judging.
    past = {"hidden_release_at": (utcnow() - timedelta(seconds=1)).isoformat()}
    assert client.put(url, json=past, headers=teacher).status_code == 200
    mine = detail(client, sid, alice)
    assert (mine["verdict"], mine["passed"], mine["total"], mine["hidden_pending"]) == (
        "WA",
        3,
        4,
        False,
    )
    assert mine["hidden_release_at"] is None and len(mine["tests"]) == 4
    assert [r["id"] for r in listed(client, alice, "?verdict=WA")] == [sid]
    assert (stat(client, alice)["accepted"], stat(client, alice)["mine"]) == (0, "tried")
    cleared = client.put(url, json={"hidden_release_at": None}, headers=teacher)
    assert cleared.json() == {"problem": PROBLEM, "hidden_release_at": None}
    assert client.get(f"/api/v1/problems/{PROBLEM}").json()["hidden_release_at"] is None


def test_the_students_totals_follow_the_hold(session) -> None:
    """The tally every student's problems page reads counts the verdicts students are shown:
    the visible tests' while the problem holds the hidden ones back, then the whole."""
    tally = TotalsTally()
    users = [
        repo.create_user(session=session, username=name, password_hash="x", role="student")
        for name in ("ann", "ben")
    ]
    session.commit()
    held = utcnow() + timedelta(hours=1)
    repo.set_hidden_release(session=session, problem=PROBLEM, at=held, user_id=None)
    session.commit()
    for user in users:
        sid = repo.create_submission(
            session=session, user_id=user.id, problem=PROBLEM, source="", seed=1
        ).id
        session.commit()
        finish(session, sid)
    totals = tally.get(session=session)[PROBLEM]
    assert (totals.finished, totals.accepted, totals.solvers) == (2, 2, 2)
    repo.set_hidden_release(session=session, problem=PROBLEM, at=None, user_id=None)
    session.commit()
    totals = tally.get(session=session)[PROBLEM]
    assert (totals.finished, totals.accepted, totals.solvers) == (2, 0, 0)


# ---- migration 0012 -----------------------------------------------------------------------


def test_migration_0012_releases_older_rows_as_they_finished_and_goes_back_down(
    postgres,
) -> None:
    url = postgres()
    upgrade(url, "0011")
    engine = create_engine(url)
    finished = datetime(2026, 11, 30, 12, 0, 0, 500000, tzinfo=UTC)
    with engine.begin() as connection:
        user = connection.execute(
            text(
                "INSERT INTO users (username, password_hash, role, disabled, token_generation,"
                " created_at) VALUES ('old', 'x', 'student', false, 0, now()) RETURNING id"
            )
        ).scalar_one()
        sid = connection.execute(
            text(
                "INSERT INTO submissions (user_id, problem, source, status, verdict, passed,"
                " total, seed, attempts, lease_token, priority, enqueued_at, resends,"
                " created_at, started_at, finished_at) VALUES (:u, 'numbergame', 's', 'done',"
                " 'WA', 5, 6, 1, 1, 3, 'live', now(), 0, now(), :f, :f) RETURNING id"
            ),
            {"u": user, "f": finished},
        ).scalar_one()
        for test in TESTS:
            connection.execute(
                text(
                    'INSERT INTO test_results (submission_id, lease_token, "index", kind,'
                    " verdict, time_ms, wall_ms, memory_kb, message, output_cut) VALUES"
                    " (:s, 3, :i, :k, :v, 0, 0, 0, '', false)"
                ),
                {"s": sid, "i": test["index"], "k": test["kind"], "v": test["verdict"]},
            )
        for token, verdict in ((2, "AC"), (3, "WA")):  # an earlier judging, its rows gone
            connection.execute(
                text(
                    "INSERT INTO judgings (submission_id, lease_token, verdict, passed, total,"
                    " max_time_ms, peak_memory_kb, seed, attempts, reason, finished_at)"
                    " VALUES (:s, :t, :v, 5, 6, 0, 0, 1, 1, 'live', :f)"
                ),
                {"s": sid, "t": token, "v": verdict, "f": finished},
            )
    upgrade(url, "0012")
    columns = (
        "released_at, shown_passed, shown_total, visible_verdict, visible_passed, visible_total"
    )
    with engine.connect() as connection:
        sub = connection.execute(text(f"SELECT {columns} FROM submissions")).one()
        judgings = connection.execute(
            text(f"SELECT {columns} FROM judgings ORDER BY lease_token")
        ).all()
    assert tuple(sub) == (finished, 3, 4, "AC", 2, 2)
    assert [tuple(j) for j in judgings] == [
        (finished, None, None, None, None, None),
        (finished, 3, 4, "AC", 2, 2),
    ]
    command.downgrade(alembic_config(url), "0011")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM judgings")).scalar_one() == 2
        names = connection.execute(
            text(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_name = 'submissions'"
            )
        ).scalars()
        assert "released_at" not in set(names)
    engine.dispose()

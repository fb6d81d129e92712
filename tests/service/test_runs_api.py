"""Runs at unit level: POST /runs and GET /runs/{id} on the app from the factory (the session
overridden with the test's rolled-back one, runs recorded instead of sent), what the store
does with a run (claim, progress, finish, the sweeper's clean-up), and that runs stay out
of every history, statistic and export. The same goes for what a submission printed:
visible tests keep it, hidden ones never do."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from judge import problems
from store import repo
from store.models import Role, Run, RunStatus, utcnow
from store.outcome import JudgingOutcome
from tests.service.conftest import api_client

SOURCE = "def solution(board, aloc, bloc):\n    print('thinking')\n    return 0\n"
CASE = {"board": [[1, 1, 1]], "aloc": [0, 0], "bloc": [0, 2]}
OFF_BOARD = {"board": [[1]], "aloc": [0, 0], "bloc": [5, 5]}
RATE = 3


class RunRecorder:
    def __init__(self) -> None:
        self.sent: list[int] = []

    def __call__(self, run_id: int) -> bool:
        self.sent.append(run_id)
        return True


@pytest.fixture
def runs_sent() -> RunRecorder:
    return RunRecorder()


@pytest.fixture
def client(session: Session, db_engine, runs_sent: RunRecorder) -> Iterator[TestClient]:
    with api_client(
        session,
        db_engine,
        enqueue=lambda *args, **kwargs: True,
        enqueue_run=runs_sent,
        run_rate_per_minute=RATE,
        submit_rate_per_minute=100,
        max_source_bytes=1000,
    ) as test_client:
        yield test_client


def start(client: TestClient, headers, **body):
    payload = {"problem": "footholds", "source": SOURCE} | body
    return client.post("/api/v1/runs", headers=headers, json=payload)


def finished(session: Session, run_id: int) -> None:
    """The run carried out (as the run lane would), so its owner may start another."""
    claim = repo.claim_run(session=session, run_id=run_id, lease_s=60)
    assert claim is not None
    assert repo.finish_run(session=session, claim=claim, outcome="done", results=[], message="")


# ---- the endpoints ------------------------------------------------------------------------


def test_a_run_is_queued_on_its_lane_and_seen_by_its_owner_and_instructors(
    client, session, alice, bob, teacher, runs_sent
) -> None:
    queued = start(client, alice, cases=[CASE])
    assert queued.status_code == 202, queued.text
    run_id = queued.json()["id"]
    assert queued.json() == {"id": run_id, "status": "queued"}
    assert queued.headers["location"] == f"/api/v1/runs/{run_id}"
    assert runs_sent.sent == [run_id]
    shown = client.get(f"/api/v1/runs/{run_id}", headers=alice).json()
    assert (shown["status"], shown["problem"], shown["results"]) == ("queued", "footholds", [])
    assert client.get(f"/api/v1/runs/{run_id}", headers=teacher).status_code == 200
    assert client.get(f"/api/v1/runs/{run_id}", headers=bob).status_code == 404
    assert client.get(f"/api/v1/runs/{run_id}/events", headers=bob).status_code == 404
    assert client.get(f"/api/v1/runs/{run_id + 1000}", headers=alice).status_code == 404
    assert (
        client.post("/api/v1/runs", json={"problem": "footholds", "source": SOURCE}).status_code
        == 401
    )
    assert client.get(f"/api/v1/runs/{run_id}").status_code == 401
    finished(session, run_id)
    assert start(client, alice).status_code == 202  # no cases: the samples


def _message(module: problems.ProblemSpec, case) -> str:
    with pytest.raises(problems.InvalidCase) as refused:
        module.validate(case)
    return str(refused.value)


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"cases": [CASE] * 11}, 422, "at most 10 cases per run (got 11)"),
        ({"cases": []}, 422, "leave `cases` out to run the samples"),
        ({"cases": [OFF_BOARD]}, 422, "invalid board: bloc [5, 5] is off the 1x1 board"),
        ({"cases": [CASE, OFF_BOARD]}, 422, "case 2: invalid board: bloc [5, 5] is off"),
        ({"cases": ["not a board"]}, 422, "invalid board"),
        ({"language": "cobol"}, 422, "unknown language 'cobol'"),
        ({"style": "stdio"}, 422, "offered: function"),
        ({"problem": "chess"}, 422, "unknown problem 'chess'"),
        ({"source": "x = 1\n" * 400}, 413, "larger than 1000 bytes"),
        ({"source": "x = '\0'"}, 422, "NUL"),
    ],
)
def test_bad_runs_get_the_submissions_and_boards_messages(
    client, alice, runs_sent, body, status, words
) -> None:
    refused = start(client, alice, **body)
    assert refused.status_code == status, refused.text
    assert words in refused.json()["detail"]
    assert runs_sent.sent == []


def test_the_case_message_is_the_problems_own(client, alice) -> None:
    """The same words the board endpoints give, from the problem's validator."""
    module = problems.registry()["footholds"]
    detail = start(client, alice, cases=[OFF_BOARD]).json()["detail"]
    assert detail == f"invalid board: {_message(module, OFF_BOARD)}"


def test_a_student_has_one_run_going_at_a_time(client, session, alice, bob) -> None:
    first = start(client, alice)
    assert first.status_code == 202
    again = start(client, alice)
    assert again.status_code == 429
    assert f"your run {first.json()['id']} is still going" in again.json()["detail"]
    assert start(client, bob).status_code == 202  # per student
    finished(session, first.json()["id"])
    assert start(client, alice).status_code == 202


def test_runs_have_their_own_rate_apart_from_submissions(client, session, alice, bob) -> None:
    for _ in range(RATE):
        response = start(client, alice)
        assert response.status_code == 202
        finished(session, response.json()["id"])
    limited = start(client, alice)
    assert limited.status_code == 429
    assert f"at most {RATE} runs per minute" in limited.json()["detail"]
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert start(client, bob).status_code == 202  # per user
    submitted = client.post(
        "/api/v1/submissions", headers=alice, json={"problem": "footholds", "source": SOURCE}
    )
    assert submitted.status_code == 202  # runs do not use up the submissions' rate


# ---- never in history, statistics, progress or exports -----------------------------------


def test_runs_never_appear_in_history_statistics_progress_or_exports(
    client, session, alice, teacher
) -> None:
    run_id = start(client, alice, cases=[CASE]).json()["id"]
    claim = repo.claim_run(session=session, run_id=run_id, lease_s=60)
    assert claim is not None
    result = {"index": 0, "input": CASE, "answer": 0, "expected": 1, "verdict": "WA"}
    assert repo.finish_run(
        session=session, claim=claim, outcome="done", results=[result], message=""
    )
    assert client.get(f"/api/v1/runs/{run_id}", headers=alice).json()["status"] == "done"

    assert client.get("/api/v1/submissions", headers=alice).json()["total"] == 0
    assert client.get("/api/v1/submissions", headers=teacher).json()["total"] == 0
    footholds = next(
        row
        for row in client.get("/api/v1/stats/problems", headers=alice).json()
        if row["slug"] == "footholds"
    )
    assert (footholds["submissions"], footholds["mine"]) == (0, None)
    detail = client.get("/api/v1/problems/footholds/stats", headers=teacher).json()
    assert (detail["submissions"], detail["users"]) == (0, 0)
    progress = client.get("/api/v1/progress", headers=teacher).json()
    assert all(row["problems"] == {} for row in progress["students"]), progress
    roster = client.get("/api/v1/users?search=alice", headers=teacher).json()["items"]
    assert [(u["username"], u["submissions"]) for u in roster] == [("alice", 0)]
    exported = client.get("/api/v1/submissions.csv", headers=teacher).text
    assert "alice" not in exported and "footholds" not in exported
    tried = client.get("/api/v1/progress.csv", headers=teacher).text
    assert "WA" not in tried and ",1," not in tried, tried


# ---- the store: claim, progress, finish, clean-up ------------------------------------------


def _run(session: Session, username: str = "carol") -> int:
    user = repo.create_user(
        session=session, username=username, password_hash="x", role=Role.STUDENT
    )
    run = repo.create_run_limited(
        session=session,
        user_id=user.id,
        problem="footholds",
        source=SOURCE,
        cases=[CASE],
        per_minute=10,
    )
    session.commit()
    return run.id


def test_only_the_latest_claim_writes_and_progress_follows_it(session) -> None:
    run_id = _run(session)
    first = repo.claim_run(session=session, run_id=run_id, lease_s=60)
    assert first is not None and first.cases == [CASE] and first.problem == "footholds"
    assert repo.claim_run(session=session, run_id=run_id, lease_s=60) is None  # held
    assert repo.record_run_cases(session=session, claim=first, results=[{"index": 0}])
    seen = repo.run_progress(session=session, cursors={run_id: None})
    assert [(p.status, p.token, p.test.index) for p in seen] == [("running", first.token, 0)]
    cursor = repo.ProgressCursor(first.token, 0)
    assert [p.test for p in repo.run_progress(session=session, cursors={run_id: cursor})] == [None]
    # The claim expires (its worker died): a new claim starts over, the old one writes nothing.
    session.execute(update(Run).where(Run.id == run_id).values(lease_expires=utcnow()))
    second = repo.claim_run(session=session, run_id=run_id, lease_s=60)
    assert second is not None and second.token == first.token + 1
    assert not repo.finish_run(
        session=session, claim=first, outcome="done", results=[], message="late"
    )
    assert repo.finish_run(
        session=session, claim=second, outcome="compile_error", results=[], message="bad"
    )
    run = session.get(Run, run_id)
    session.refresh(run)
    assert (run.status, run.outcome, run.message) == ("done", "compile_error", "bad")
    done = repo.run_progress(session=session, cursors={run_id: cursor})
    assert [(p.status, p.test) for p in done] == [("done", None)]


def test_the_sweeper_ends_forsaken_runs_and_deletes_old_ones(session) -> None:
    interrupted, unclaimed, old = _run(session, "dave"), _run(session, "erin"), _run(session, "fay")
    claim = repo.claim_run(session=session, run_id=interrupted, lease_s=60)
    assert claim is not None
    now = utcnow()
    session.execute(
        update(Run).where(Run.id == interrupted).values(lease_expires=now - timedelta(seconds=1))
    )
    session.execute(
        update(Run).where(Run.id == unclaimed).values(created_at=now - timedelta(minutes=5))
    )
    session.execute(
        update(Run)
        .where(Run.id == old)
        .values(created_at=now - timedelta(days=2), status=RunStatus.DONE)
    )
    session.commit()
    swept = repo.sweep_runs(session=session, now=now)
    assert (swept.interrupted, swept.unclaimed, swept.deleted) == ([interrupted], [unclaimed], 1)
    for run_id, words in ((interrupted, "interrupted"), (unclaimed, "no runner")):
        run = session.get(Run, run_id)
        session.refresh(run)
        assert run.status == RunStatus.ERROR and words in run.message
    assert session.get(Run, old) is None
    assert not repo.record_run_cases(session=session, claim=claim, results=[{"index": 0}])


# ---- printed output of submissions ---------------------------------------------------------


def test_printed_output_stays_on_visible_tests_and_never_on_hidden_ones(
    client, session, alice, teacher
) -> None:
    sid = client.post(
        "/api/v1/submissions", headers=alice, json={"problem": "footholds", "source": SOURCE}
    ).json()["id"]
    claim = repo.claim(session=session, submission_id=sid, lease_s=60)
    diagnosis = {"case": CASE, "expected": 1, "got": 0, "children": [], "summary": "s"}
    printed = {"stdout": "thinking\n", "stderr": "warn\n", "output_cut": True}
    tests = [
        {"index": 0, "kind": "sample", "verdict": "WA", "input": CASE, "expected": 1, "got": 0}
        | printed
        | {"diagnosis": diagnosis},
        # A forged hidden row carrying output: the store keeps none of it.
        {"index": 1, "kind": "hidden", "verdict": "WA", "board_id": 1} | printed,
    ]
    assert repo.record_test(session=session, claim_=claim, test=tests[0], lease_s=60)
    assert repo.finish(
        session=session,
        claim_=claim,
        outcome=JudgingOutcome(verdict="WA", passed=0, total=2, tests=tests, judge_version="t"),
        release_quantum_s=0,  # released to alice at once
    )
    for viewer in (alice, teacher):
        sample, hidden = client.get(f"/api/v1/submissions/{sid}", headers=viewer).json()["tests"]
        assert (sample["stdout"], sample["stderr"], sample["output_cut"]) == (
            "thinking\n",
            "warn\n",
            True,
        )
        assert sample["diagnosis"] == diagnosis
        assert {hidden[k] for k in ("stdout", "stderr", "output_cut", "diagnosis")} == {None}
    rows = repo.current_tests(
        session=session, submission=repo.get_submission(session=session, submission_id=sid)
    )
    assert (rows[1].stdout, rows[1].stderr, rows[1].output_cut, rows[1].diagnosis) == (
        None,
        None,
        False,
        None,
    )

"""The instructors' test-strength endpoints, on the app from the factory (session overridden
with the test's rolled-back one, as in test_api.py). The worker's part (computing a report)
runs here in the test's session; test_integration.py runs it in a real worker."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.security import create_token
from config import Settings
from judge import problems
from judge.strength.analysis import Killer, killed_by_fixed_tests
from judge.strength.memory import StrengthMemory
from judge.strength.mutants import mutants
from store import repo
from store.models import Role, StrengthReport, utcnow
from store.repo import strength_reports as reports
from tests.service.conftest import serving, stored_hash
from worker.strength import compute

MEMORY = StrengthMemory()  # the worker's memory, shared by the tests as in a worker process

SECRET = "strength-test-secret-" + "x" * 32
KILLS_SENTINEL = {"board": [-83, 989, 85, -918]}  # a lead below -1000 halfway through


class Requests(list):
    """The report requests the API sent to the workers."""

    def __call__(self, request: reports.ReportRequest) -> bool:
        self.append(request)
        return True


@pytest.fixture
def requested() -> Requests:
    return Requests()


@pytest.fixture
def api_memory() -> StrengthMemory:
    """The app's memory for single-board checks: a fresh one, as in a new API process."""
    return StrengthMemory()


# Footholds' mutants take seconds on the tests of every plan (the 5x5 worst cases): its tests
# give the app the worker's memory, so those answers are computed once in this module.
WITH_THE_WORKERS_MEMORY = pytest.mark.parametrize("api_memory", [MEMORY], ids=["warm"])


@pytest.fixture
def client(session: Session, db_engine, requested, api_memory) -> Iterator[TestClient]:
    settings = Settings(
        database_url=db_engine.url.render_as_string(hide_password=False), secret_key=SECRET
    )
    senders = dict(enqueue=lambda *args, **kwargs: True, request_strength=requested)
    with serving(settings, session, **senders) as app:
        app.state.services = replace(app.state.services, strength_memory=api_memory)
        with TestClient(app) as test_client:
            yield test_client


def computed_report(client, session, requested, url: str, headers) -> dict:
    """Ask for a report: 202 and one request to the workers, which the worker's code then
    answers; asked again, the API returns the stored report."""
    before = len(requested)
    first = client.get(url, headers=headers)
    assert first.status_code == 202, first.text
    assert first.json()["status"] == "computing" and first.headers["retry-after"]
    assert client.get(url, headers=headers).status_code == 202  # still computing
    assert len(requested) == before + 1  # asked once, however often the page polls
    compute(session, MEMORY, requested[-1])
    done = client.get(url, headers=headers)
    assert done.status_code == 200, done.text
    return done.json()


def board_check(client, slug: str, board: dict, headers) -> dict:
    """What a board would kill: asked again while the API answers 202 "computing" (the
    problem's mutant answers are first computed in the background), as the page does."""
    url = f"/api/v1/problems/{slug}/strength/board"
    deadline = time.monotonic() + 120
    while (answer := client.post(url, json={"input": board}, headers=headers)).status_code == 202:
        assert answer.json()["status"] == "computing" and answer.headers["retry-after"]
        assert time.monotonic() < deadline, "the board check never answered"
        time.sleep(0.1)
    assert answer.status_code == 200, answer.text
    return answer.json()


def login(session: Session, name: str, role: Role) -> dict[str, str]:
    user = repo.create_user(
        session=session, username=name, password_hash=stored_hash("pw-" + name), role=role
    )
    session.commit()
    return {"Authorization": f"Bearer {create_token(user_id=user.id, secret=SECRET, minutes=5)}"}


@pytest.fixture
def teacher(session: Session) -> dict[str, str]:
    return login(session, "teacher", Role.INSTRUCTOR)


@pytest.fixture
def student(session: Session) -> dict[str, str]:
    return login(session, "student", Role.STUDENT)


def test_only_instructors(client, student) -> None:
    url = "/api/v1/problems/numbergame/strength"
    assert client.get(url).status_code == 401
    assert client.get(url, headers=student).status_code == 403
    board = {"input": KILLS_SENTINEL}
    assert client.post(url + "/board", json=board, headers=student).status_code == 403


def test_unknown_problem_and_bad_board(client, teacher) -> None:
    assert client.get("/api/v1/problems/nope/strength", headers=teacher).status_code == 404
    bad = client.post(
        "/api/v1/problems/numbergame/strength/board", json={"input": {"board": []}}, headers=teacher
    )
    assert bad.status_code == 422 and "invalid board" in bad.json()["detail"]


def fixed_kills(problem) -> set[str]:
    """What the tests of every plan (samples, small positions, worst cases) kill, measured on
    the judge directly (with the mutants' answers the worker's memory holds): the API must say
    the same."""
    return killed_by_fixed_tests(problem, MEMORY.killer(problem))


def test_report_and_adding_a_board(client, session, requested, teacher) -> None:
    url = "/api/v1/problems/numbergame/strength?seeds=3"
    report = computed_report(client, session, requested, url, teacher)
    assert report["problem"] == "numbergame" and report["seeds"] == 3
    assert report["hidden_count"] == 0
    assert [m["name"] for m in report["mutants"]] == list(mutants("numbergame"))
    # The small tier (rows up to 5 of -1000, -1, 0, 1000) and the worst cases kill what the
    # samples leave alive, the sentinel bug included: nothing is left to suggest.
    numbergame = problems.get("numbergame")
    dead = fixed_kills(numbergame)
    assert report["survivors"] == [n for n in mutants("numbergame") if n not in dead] == []
    assert report["suggestions"] == [] and report["plan_kills_all"] == 1.0
    sentinel = next(m for m in report["mutants"] if m["name"] == "sentinel_minus_1000")
    assert sentinel["samples"] == [] and sentinel["small"] is not None and sentinel["killed"]
    kinds = [t["kind"] for t in report["tests"]]
    assert kinds == ["sample"] * 3 + ["small"] + ["worst"] * len(numbergame.WORST_CASES)

    # What adding a board would do; nothing is saved.
    kills = board_check(client, "numbergame", KILLS_SENTINEL, teacher)
    assert "sentinel_minus_1000" in kills["kills"]
    assert kills["survivors"] == [] and kills["kills_survivors"] == [] == kills["remaining"]
    assert client.get("/api/v1/problems/numbergame/boards", headers=teacher).json() == []

    # Added as a hidden board, it shows among the tests with what it kills.
    added = client.post(
        "/api/v1/problems/numbergame/boards", json={"input": KILLS_SENTINEL}, headers=teacher
    )
    assert added.status_code == 201
    board_id = added.json()["id"]
    report = computed_report(client, session, requested, url, teacher)  # a new board set
    assert report["hidden_count"] == 1 and report["survivors"] == []
    assert report["suggestions"] == [] and report["kills_all"] == 1.0
    hidden = [t for t in report["tests"] if t["kind"] == "hidden"]
    assert hidden == [{"kind": "hidden", "index": 0, "id": board_id, "kills": hidden[0]["kills"]}]
    assert "sentinel_minus_1000" in hidden[0]["kills"]
    sentinel = next(m for m in report["mutants"] if m["name"] == "sentinel_minus_1000")
    assert sentinel["hidden"] == [board_id] and sentinel["killed"] and sentinel["rate"] == 1.0


# The costliest report (every footholds mutant over two seeds' plans) on one database: what it
# proves is the analysis and the API's answer, which the numbergame reports check on both.
@pytest.mark.parametrize("db_engine", ["postgresql"], indirect=True)
@WITH_THE_WORKERS_MEMORY
def test_footholds_report(client, session, requested, teacher) -> None:
    url = "/api/v1/problems/footholds/strength?seeds=2&suggestions=false"
    report = computed_report(client, session, requested, url, teacher)
    assert report["mutant_count"] >= 15 and report["suggestions"] == []
    dead = fixed_kills(problems.get("footholds"))
    assert report["survivors"] == [n for n in mutants("footholds") if n not in dead] == []
    by_name = {m["name"]: m for m in report["mutants"]}
    # A missing direction shows on a small board, a search cut at depth 18 only in the
    # longest games: both survived the samples before these tiers.
    assert by_name["no_up"]["samples"] == [] and by_name["no_up"]["small"] is not None
    assert by_name["depth_cap_18"]["small"] is None and by_name["depth_cap_18"]["worst"]
    board = {"board": [[1, 1], [1, 0]], "aloc": [0, 1], "bloc": [1, 0]}
    kills = board_check(client, "footholds", board, teacher)
    assert "no_up" in kills["kills"] and "depth_cap_18" not in kills["kills"]
    assert kills["survivors"] == [] and kills["kills_survivors"] == [] == kills["remaining"]


@WITH_THE_WORKERS_MEMORY
def test_board_check_does_not_wait_for_a_report(client, requested, teacher) -> None:
    """The editor's check answers while the report is still being computed (nobody runs the
    requested report here)."""
    url = "/api/v1/problems/footholds/strength?seeds=2"
    assert client.get(url, headers=teacher).status_code == 202
    board = {"board": [[1, 1], [1, 0]], "aloc": [0, 1], "bloc": [1, 0]}
    assert "no_up" in board_check(client, "footholds", board, teacher)["kills"]


def test_a_cold_board_check_answers_at_once_and_is_asked_again(client, teacher) -> None:
    """The first check of a problem in an app fills its memory of the mutants' answers
    (seconds): it runs in the background, the request answering 202 at once; then the same
    request answers, and another board is answered straight away from the memory."""
    url = "/api/v1/problems/numbergame/strength/board"
    first = client.post(url, json={"input": KILLS_SENTINEL}, headers=teacher)
    assert first.status_code == 202, first.text
    assert first.json()["status"] == "computing" and first.headers["retry-after"] == "1"
    kills = board_check(client, "numbergame", KILLS_SENTINEL, teacher)
    assert "sentinel_minus_1000" in kills["kills"]
    numbergame = problems.get("numbergame")
    assert set(kills["kills"]) == set(Killer(numbergame).killed_by(KILLS_SENTINEL))
    other = client.post(url, json={"input": {"board": [1, 2, 3]}}, headers=teacher)
    assert other.status_code == 200, other.text


def test_a_lost_request_is_sent_again(client, session, requested, teacher) -> None:
    url = "/api/v1/problems/numbergame/strength?seeds=2"
    assert client.get(url, headers=teacher).status_code == 202
    assert len(requested) == 1
    session.execute(
        update(StrengthReport).values(
            requested_at=utcnow() - timedelta(seconds=reports.LOST_AFTER_S + 1)
        )
    )
    session.commit()
    assert client.get(url, headers=teacher).status_code == 202
    assert len(requested) == 2


def test_a_failed_report_says_why_and_is_retried(client, session, requested, teacher) -> None:
    url = "/api/v1/problems/numbergame/strength?seeds=2"
    client.get(url, headers=teacher)
    key = session.scalar(select(StrengthReport.key))
    reports.store(session=session, key=key, problem="numbergame", error="RuntimeError('boom')")
    failed = client.get(url, headers=teacher)
    assert failed.status_code == 202 and "boom" in failed.json()["detail"]
    assert len(requested) == 1  # not at once: after RETRY_FAILED_AFTER_S
    session.execute(
        update(StrengthReport).values(
            finished_at=utcnow() - timedelta(seconds=reports.RETRY_FAILED_AFTER_S + 1)
        )
    )
    session.commit()
    client.get(url, headers=teacher)
    assert len(requested) == 2

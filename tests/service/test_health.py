"""Workers' heartbeats, /healthz per lane, and the attempts a deploy does not count: real
worker processes (grading, run and hidden lanes, the sweeper) on PostgreSQL and Redis, stopped
and killed for real."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from api.presenters import DEFAULT_HEARTBEAT_STALE_S
from config import Settings
from store import repo
from store.db import make_engine, make_session_factory
from store.models import Status, Submission, WorkerHeartbeat, utcnow
from store.repo import heartbeats
from store.repo.heartbeats import DELAY_FLOOR_S
from tests.service.conftest import make_user, stack_env, together
from tests.service.stack import PYTHON, REPO, Stack, solution, wait_for

pytestmark = [pytest.mark.services, pytest.mark.sandbox]

HEARTBEAT_S = 0.5  # a killed worker is dead 3 beats and 5 s later: 6.5 s


@pytest.fixture(scope="module")
def stack(tmp_path_factory, postgres, redis_main) -> Iterator[Stack]:
    """The API alone: each test starts the workers it needs."""
    tmp = tmp_path_factory.mktemp("stack-health")
    env = stack_env("services", tmp, postgres, redis_main)
    env.update(JUDGE_HEARTBEAT_S=str(HEARTBEAT_S), JUDGE_HIDDEN_SLOTS="1", JUDGE_RUN_SLOTS="1")
    # One attempt allowed: two deploys are more than JUDGE_MAX_ATTEMPTS (each deploy costs a
    # worker start), and the sweeper would hold the row at its first expired lease if a
    # deploy counted.
    env.update(JUDGE_MAX_ATTEMPTS="1")
    env.update(JUDGE_RANDOM_COUNT="2")  # the deploys' footholds gradings: a short plan
    running = Stack("health", tmp, env)
    try:
        running.setup()
        running.start_api()
        yield running
    finally:
        running.stop()


def health(stack: Stack) -> tuple[int, dict[str, Any]]:
    response = stack.request("GET", "/healthz")
    return response.status_code, response.json()


def wait_health(stack: Stack, what: str, check) -> dict[str, Any]:
    return wait_for(
        lambda: (found := health(stack)) and check(*found) and found[1],
        timeout=60,
        interval=0.2,
        what=what,
        context=lambda: f"{health(stack)}\n{stack.logs()}",
    )


def alive_checks(stack: Stack, *lanes: str) -> dict[str, int]:
    """`python -m worker alive LANE`, the compose healthcheck's command, for each lane at
    once: its exit status by lane."""
    checks = {
        lane: subprocess.Popen([PYTHON, "-m", "worker", "alive", lane], cwd=REPO, env=stack.env)
        for lane in lanes
    }
    return {lane: check.wait(60) for lane, check in checks.items()}


def test_healthz_says_per_lane_whether_a_worker_is_alive(stack: Stack) -> None:
    status, body = health(stack)
    assert status == 503 and body["status"] == "no grading worker", body
    assert not any(lane["alive"] for lane in body["lanes"].values())
    # A submission waits, safe, for a grader: how long is what /healthz reports.
    token = stack.register("hopper")
    sid = stack.submit(token, "numbergame", solution("numbergame_ok"))
    waiting = wait_health(
        stack, "the queued submission's age", lambda s, b: (b["oldest_queued_s"] or 0) > 0
    )
    assert waiting["delayed"] is True
    assert alive_checks(stack, "grading") == {"grading": 1}

    together(
        stack.start_worker,
        stack.start_runner,
        lambda: stack._start_celery("hidden", "worker.hidden_lane", "-Q", "judge.hidden"),
        stack.start_sweeper,
    )
    lanes = ("grading", "run", "hidden", "sweeper")
    up = wait_health(
        stack,
        "every lane alive",
        lambda s, b: s == 200 and all(b["lanes"][lane]["alive"] for lane in lanes),
    )
    assert up["status"] == "ok"
    assert stack.wait_done(token, sid)["verdict"] == "AC"
    graded = wait_health(stack, "an empty queue", lambda s, b: b["oldest_queued_s"] is None)
    assert graded["delayed"] is False
    assert alive_checks(stack, *lanes) == dict.fromkeys(lanes, 0)

    # Killed (no goodbye): dead once its heartbeat is stale.
    stack.kill("worker")
    dead = wait_health(stack, "the killed worker to count as dead", lambda s, b: s == 503)
    assert dead["lanes"]["grading"] == {"alive": False, "workers": 0}
    assert dead["lanes"]["run"]["alive"] and dead["lanes"]["sweeper"]["alive"]

    # Stopped (SIGTERM): not alive from the moment it is asked to stop.
    stack.start_worker()
    wait_health(stack, "the new worker", lambda s, b: s == 200)
    stack.stop_process("worker")
    wait_health(stack, "the stopped worker to count as dead", lambda s, b: s == 503)
    together(
        *(lambda name=name: stack.stop_process(name) for name in ("runner", "hidden", "sweeper"))
    )
    stopped = wait_health(stack, "every lane stopped", lambda s, b: s == 503)
    assert not any(lane["alive"] for lane in stopped["lanes"].values()), stopped


def test_a_grading_cut_short_by_a_deploy_is_not_an_attempt(stack: Stack) -> None:
    """A deploy asks the worker to stop (SIGTERM) and kills it after its grace period,
    mid-grading: more times than JUDGE_MAX_ATTEMPTS, and the submission is graded all the
    same, never held (a worker SIGKILLed unasked while grading it does count:
    test_reliability's test_a_submission_whose_workers_keep_dying_is_held_for_an_instructor)."""
    engine = make_engine(stack.env["JUDGE_DATABASE_URL"])
    sessions = make_session_factory(engine)

    def row(sid: int) -> tuple[str, int, int, int | None]:
        with sessions() as session:
            found = session.execute(
                select(
                    Submission.status,
                    Submission.lease_token,
                    Submission.attempts,
                    Submission.claimed_by,
                ).where(Submission.id == sid)
            ).one()
        return found.status, found.lease_token, found.attempts, found.claimed_by

    def stopping(worker_id: int) -> bool:
        with sessions() as session:
            beat = session.get(WorkerHeartbeat, worker_id)
            return beat is not None and beat.stopping_at is not None

    try:
        stack.start_sweeper()
        token = stack.register("deployed")
        sid = stack.submit(token, "footholds", solution("footholds_slow"))
        last_token = 0
        deploys = int(stack.env["JUDGE_MAX_ATTEMPTS"]) + 1
        for deploy in range(deploys):
            stack.start_worker()
            _, lease_token, attempts, worker_id = wait_for(
                lambda after=last_token: (r := row(sid))[0] == "running" and r[1] > after and r,
                timeout=120,
                interval=0.05,
                what=f"grading {deploy + 1} to start",
                context=stack.logs,
            )
            last_token = lease_token
            assert attempts == 1 and worker_id is not None  # the deploys before did not count
            # The deploy: SIGTERM, and SIGKILL before the grading (3 s and more) is over.
            stack.procs["worker"].terminate()
            wait_for(
                lambda worker_id=worker_id: stopping(worker_id),
                timeout=30,
                interval=0.05,
                what="the worker to mark itself stopping",
                context=stack.logs,
            )
            stack.kill("worker")
            assert row(sid)[0] == "running"  # cut short, not finished
        stack.start_worker()
        body = stack.wait_done(token, sid)
        assert body["verdict"] == "AC" and body["attempts"] == 1, body
    finally:
        engine.dispose()
        for name in ("worker", "sweeper"):
            stack.stop_process(name)


# ---- the rules, on both databases -----------------------------------------------------


def _submission(session, user_id: int, made_s_ago: float, waited_s: float | None) -> Submission:
    """A live submission made `made_s_ago`, claimed after `waited_s` (None: still queued)."""
    now = utcnow()
    sub = repo.create_submission(
        session=session, user_id=user_id, problem="numbergame", source="", seed=1
    )
    sub.created_at = now - timedelta(seconds=made_s_ago)
    if waited_s is not None:
        sub.status = Status.DONE
        sub.started_at = sub.created_at + timedelta(seconds=waited_s)
    session.flush()
    return sub


def test_a_submission_is_delayed_far_beyond_the_recent_median_wait(session) -> None:
    """No grader: delayed at once. With one: delayed past max(60 s, 5x the median wait of
    the latest claimed), so a deadline's long but moving queue is not."""
    make_user(session, "median")
    user = repo.get_user_by_name(session=session, username="median")
    assert user is not None
    user_id = user.id
    assert heartbeats.queue_health(session=session, stale_s=35).delayed  # nobody grades
    heartbeats.register(session=session, lane="grading", host="here", pid=1)
    for _ in range(5):
        _submission(session, user_id, made_s_ago=100, waited_s=2)  # the normal: 2 s
    health = heartbeats.queue_health(session=session, stale_s=35)
    assert health.graders_alive == 1 and health.threshold_s == DELAY_FLOOR_S == 60
    assert not health.delayed and health.oldest_queued_s is None
    _submission(session, user_id, made_s_ago=30, waited_s=None)
    assert not heartbeats.queue_health(session=session, stale_s=35).delayed
    _submission(session, user_id, made_s_ago=90, waited_s=None)
    health = heartbeats.queue_health(session=session, stale_s=35)
    assert health.delayed and health.oldest_queued_s is not None and health.oldest_queued_s > 60
    assert not health.is_delayed(30) and health.is_delayed(90)
    # A burst: the latest claimed waited 40 s each, so 90 s is within 5x the normal.
    for _ in range(10):
        _submission(session, user_id, made_s_ago=50, waited_s=40)
    health = heartbeats.queue_health(session=session, stale_s=35)
    assert health.threshold_s == 200 and not health.delayed


def test_the_pages_default_staleness_is_the_settings_default() -> None:
    assert Settings(secret_key="x" * 40).heartbeat_stale_s == DEFAULT_HEARTBEAT_STALE_S


def test_a_claim_counts_unless_its_worker_was_being_stopped(session) -> None:
    """Store level: a claim taking over an expired lease counts an attempt when the worker
    died unasked, not when it was being stopped; the sweeper holds accordingly."""
    dying = heartbeats.register(session=session, lane="grading", host="h", pid=1)
    deployed = heartbeats.register(session=session, lane="grading", host="h", pid=2)
    ids = {}
    for name, worker in (("killed", dying), ("deployed", deployed)):
        make_user(session, name)  # one each: a student's submissions are graded in turn
        user = repo.get_user_by_name(session=session, username=name)
        assert user is not None
        sid = _submission(session, user.id, made_s_ago=5, waited_s=None).id
        session.commit()
        ids[name] = sid
        for _ in range(3):
            assert repo.claim(session=session, submission_id=sid, lease_s=60, worker_id=worker)
            if worker == deployed:
                heartbeats.stopping(session=session, worker_id=deployed)
            # Its worker is gone: the lease runs out.
            session.execute(
                update(Submission)
                .where(Submission.id == sid)
                .values(lease_expires=utcnow() - timedelta(seconds=1))
            )
            session.commit()
    attempts = dict(session.execute(select(Submission.id, Submission.attempts)).tuples().all())
    assert (attempts[ids["killed"]], attempts[ids["deployed"]]) == (3, 1)
    _, held = repo.sweep(session=session, resend_after_s=0.001, max_attempts=3)
    assert held == [ids["killed"]]

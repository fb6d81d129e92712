"""Hidden tiers on workers of their own (JUDGE_HIDDEN_TIERS=queue): the grading worker runs
the visible tiers and never a hidden one; the hidden lane's worker (a real Celery process on
judge.hidden, as compose's `hidden` service) runs it, and the verdict counts it: a built-in
problem's, and an uploaded one's against the version its grading was graded against."""

from __future__ import annotations

import time

from tests.service.conftest import together
from tests.service.packages import TICTACTOE, package_zip, unique_slug
from tests.service.stack import Stack, solution, wait_for
from tests.service.test_problem_packages import checked, upload

HIDDEN_BOARD = {"board": [[1, 1, 0, 1], [1, 0, 1, 1], [1, 1, 1, 0]], "aloc": [0, 0], "bloc": [2, 2]}


def test_the_hidden_tier_runs_only_on_the_hidden_lane(tmp_path, postgres, redis_main):
    from tests.service.conftest import stack_env

    env = stack_env("services", tmp_path, postgres, redis_main)
    env.update(JUDGE_HIDDEN_TIERS="queue", JUDGE_RANDOM_COUNT="2")
    stack = Stack("hidden-lane", tmp_path, env)
    try:
        stack.setup()
        stack.start_api()
        together(stack.start_worker, stack.start_runner)  # the runner checks the package
        teacher = stack.instructor()
        uploaded = upload(stack, teacher, package_zip(unique_slug()))
        added = stack.request(
            "POST", "/api/v1/problems/footholds/boards", teacher, json={"input": HIDDEN_BOARD}
        )
        assert added.status_code == 201, added.text
        student = stack.register("hilda")
        sid = stack.submit(student, "footholds", solution("footholds_ok"))

        def visible_done() -> bool:
            tests = stack.detail(teacher, sid).get("tests") or []
            return any(t["kind"] == "random" for t in tests)

        wait_for(visible_done, timeout=120, what="the visible tiers", context=stack.logs)
        # No hidden lane yet: the grading must wait for it, not run it. It has 2 s to go
        # wrong, while the runner checks the uploaded package (the second part's).
        waited_from = time.monotonic()
        assert checked(stack, teacher, uploaded)["status"] == "passed"
        time.sleep(max(2.0 - (time.monotonic() - waited_from), 0))
        waiting = stack.detail(teacher, sid)
        assert waiting["status"] == "running", waiting
        assert not [t for t in waiting["tests"] if t["kind"] == "hidden"], waiting

        stack._start_celery("hidden", "worker.hidden_lane", "-Q", "judge.hidden")
        done = stack.wait_done(teacher, sid)
        assert done["verdict"] == "AC", done
        hidden = [t for t in done["tests"] if t["kind"] == "hidden"]
        assert [t["verdict"] for t in hidden] == ["AC"], hidden
        assert hidden[0]["input"] == HIDDEN_BOARD
        assert "1 outcomes" in (tmp_path / "hidden.log").read_text(errors="replace")

        # An uploaded problem's hidden tier too: the hidden worker unpacks the version the
        # grading is graded against, and runs its two boards.
        slug = uploaded["slug"]
        path = f"/api/v1/problems/{slug}/versions/{uploaded['id']}/publish"
        assert stack.request("POST", path, teacher).status_code == 200
        accepted = (TICTACTOE / "submissions" / "accepted" / "minimax.py").read_text()
        done = stack.wait_done(teacher, stack.submit(student, slug, accepted))
        assert done["verdict"] == "AC" and done["problem_version"] == uploaded["digest"], done
        assert len([t for t in done["tests"] if t["kind"] == "hidden"]) == 2, done["tests"]
        assert "2 outcomes" in (tmp_path / "hidden.log").read_text(errors="replace")
    finally:
        stack.stop()


def test_a_worker_killed_while_the_grading_waits_for_the_hidden_lane_is_not_its_attempt(
    tmp_path, postgres, redis_main
):
    """While a grading waits for its hidden tier, none of its code runs in its worker: that
    worker killed (by another slot's grading, the OOM killer), more times than
    JUDGE_MAX_ATTEMPTS, costs the submission no attempt; it is never held, and is graded
    once a hidden worker runs."""
    from sqlalchemy import select

    from store.db import make_engine, make_session_factory
    from store.models import Submission
    from tests.service.conftest import stack_env

    env = stack_env("services", tmp_path, postgres, redis_main)
    # One attempt allowed: two kills are "more than JUDGE_MAX_ATTEMPTS", and the sweeper
    # would hold the row at its first expired lease if a kill counted (each kill costs a
    # worker start and the visible tiers' grading).
    env.update(JUDGE_HIDDEN_TIERS="queue", JUDGE_RANDOM_COUNT="2", JUDGE_MAX_ATTEMPTS="1")
    stack = Stack("hidden-away", tmp_path, env)
    engine = make_engine(env["JUDGE_DATABASE_URL"])
    sessions = make_session_factory(engine)

    def row(sid: int):
        with sessions() as session:
            return session.execute(
                select(
                    Submission.status,
                    Submission.lease_token,
                    Submission.attempts,
                    Submission.away_since,
                ).where(Submission.id == sid)
            ).one()

    try:
        stack.setup()
        stack.start_api()
        stack.start_sweeper()
        teacher = stack.instructor()
        added = stack.request(
            "POST", "/api/v1/problems/footholds/boards", teacher, json={"input": HIDDEN_BOARD}
        )
        assert added.status_code == 201, added.text
        student = stack.register("away")
        sid = stack.submit(student, "footholds", solution("footholds_ok"))
        last_token = 0
        for kill in range(int(env["JUDGE_MAX_ATTEMPTS"]) + 1):
            stack.start_worker()
            # The visible tiers done, the hidden tier sent: no hidden worker takes it.
            found = wait_for(
                lambda after=last_token: (
                    (r := row(sid)).lease_token > after and r.away_since is not None and r
                ),
                timeout=120,
                interval=0.1,
                what=f"grading {kill + 1} to wait for the hidden lane",
                context=stack.logs,
            )
            last_token = found.lease_token
            assert found.status == "running" and found.attempts == 1, found
            stack.kill("worker")  # SIGKILL, unasked
        stack._start_celery("hidden", "worker.hidden_lane", "-Q", "judge.hidden")
        stack.start_worker()
        done = stack.wait_done(teacher, sid)
        assert done["verdict"] == "AC" and done["attempts"] == 1, done
    finally:
        engine.dispose()
        stack.stop()

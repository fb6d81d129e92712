"""Hidden tiers on workers of their own (JUDGE_HIDDEN_TIERS=queue): the grading worker runs
the visible tiers and never a hidden one; the hidden lane's worker (a real Celery process on
judge.hidden, as compose's `hidden` service) runs it, and the verdict counts it."""

from __future__ import annotations

import time

from tests.service.stack import Stack, solution, wait_for

HIDDEN_BOARD = {"board": [[1, 1, 0, 1], [1, 0, 1, 1], [1, 1, 1, 0]], "aloc": [0, 0], "bloc": [2, 2]}


def test_the_hidden_tier_runs_only_on_the_hidden_lane(tmp_path, postgres, redis_main):
    from tests.service.conftest import stack_env

    env = stack_env("services", tmp_path, postgres, redis_main)
    env.update(JUDGE_HIDDEN_TIERS="queue", JUDGE_RANDOM_COUNT="2")
    stack = Stack("hidden-lane", tmp_path, env)
    try:
        stack.setup()
        stack.start_api()
        stack.start_worker()
        teacher = stack.instructor()
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
        time.sleep(2.0)  # no hidden lane yet: the grading must wait for it, not run it
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
    finally:
        stack.stop()

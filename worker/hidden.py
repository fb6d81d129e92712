"""Hidden tiers on workers of their own (JUDGE_HIDDEN_TIERS=queue).

The grading worker runs the visible tiers, then sends the hidden tier (judge/grading/hidden_tier.py)
to judge.hidden and waits for its outcomes on a Redis list of its own; a hidden lane's
worker (worker/hidden_lane.py) compiles the source, runs the hidden boards and pushes the
outcomes there. Hidden workers run nothing a student sees, so on hosts of their own nothing
of a hidden tier can reach a visible run through the kernel. On one host the phase lock does
the same (JUDGE_HIDDEN_TIERS=local, the default).

A lost message, a dead hidden worker or one that never answers is an infrastructure error of
the grading: it gives its claim back and is retried like any other (worker/tasks.py).
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable
from typing import Any

import redis
from celery import Celery

import judge.grading.grade
from config import Settings
from judge.execution.program import CompileError
from judge.execution.runners import Outcome
from judge.grading.hidden_tier import (
    HiddenTier,
    outcome_from_wire,
    outcome_to_wire,
    run_hidden_tier,
)
from judge.problems.host import ProblemError
from judge.sandbox import SandboxUnavailable
from store.transient import first_line
from worker import packages, startup
from worker.app import HIDDEN_QUEUE, HIDDEN_TASK
from worker.queue import RETRY_POLICY
from worker.runtime import Runtime

log = logging.getLogger(__name__)

# Beyond the tier's budget: the queue, a compile on the hidden host (kotlinc may take 30 s),
# the reply.
WAIT_EXTRA_S = 60.0
REPLY_TTL_S = 300  # a reply nobody took (its grading gave up) is gone after this
REPLY_BYTES = 16 << 20  # no honest tier's outcomes come near it
DIGEST = re.compile(r"[0-9a-f]{64}")


# Beyond a blocking pop's own timeout, how long its socket waits for Redis's answer.
READ_MARGIN_S = 10.0


def _redis(settings: Settings, socket_timeout_s: float | None = None) -> redis.Redis:
    """`socket_timeout_s`: for a blocking command, longer than its own timeout (redis-py 8
    reads every socket for 5 s at most by default: a reply that took longer to come was
    taken for a dead Redis, and each hidden tier slower than that for a lost one)."""
    if not settings.broker.startswith(("redis://", "rediss://")):
        raise ValueError("JUDGE_HIDDEN_TIERS=queue needs a Redis broker (JUDGE_BROKER_URL)")
    if socket_timeout_s is None:
        return redis.Redis.from_url(settings.broker)
    return redis.Redis.from_url(settings.broker, socket_timeout=socket_timeout_s)


def _reply_key(settings: Settings) -> str:
    return f"{settings.broker_key_prefix or ''}judge:hidden-reply:{uuid.uuid4().hex}"


class SendToHiddenLane:
    """grade()'s `hidden_tier`: sends the tier to judge.hidden and waits for its outcomes.

    `while_away(True)` before it sends, `while_away(False)` once the wait is over: none of
    the grading's code runs in this worker meanwhile (worker/tasks.py marks the row)."""

    def __init__(
        self,
        app: Celery,
        settings: Settings,
        while_away: Callable[[bool], None] = lambda away: None,
    ) -> None:
        self.app = app
        self.settings = settings
        self.while_away = while_away

    def __call__(self, tier: HiddenTier, version: str | None = None) -> list[Outcome]:
        """`version`: the digest of the uploaded problem's package graded against (the
        hidden worker unpacks the same one); None for a built-in."""
        key = _reply_key(self.settings)
        wait_s = tier.budget_s + WAIT_EXTRA_S
        self.while_away(True)
        try:
            self.app.send_task(
                HIDDEN_TASK,
                args=[tier.to_dict(), key],
                kwargs={"version": version} if version else {},
                queue=HIDDEN_QUEUE,
                expires=wait_s,  # a hidden worker does not run one its grading gave up on
                retry=True,
                retry_policy=RETRY_POLICY,
            )
            timeout = max(1, round(wait_s))
            with _redis(self.settings, timeout + READ_MARGIN_S) as replies:
                popped = replies.blpop([key], timeout=timeout)
        except (redis.RedisError, OSError) as exc:
            raise SandboxUnavailable(f"the hidden lane is unreachable: {first_line(exc)}") from exc
        finally:
            self.while_away(False)
        if popped is None:
            raise SandboxUnavailable(f"no hidden worker answered within {wait_s:.0f} s")
        return _outcomes(popped[1])


def _outcomes(raw: bytes | str) -> list[Outcome]:
    if len(raw) > REPLY_BYTES:
        raise ValueError("a hidden worker's reply is too large")
    reply = json.loads(raw)
    error = reply.get("error") if isinstance(reply, dict) else "malformed"
    if error == "unavailable":
        raise SandboxUnavailable(f"the hidden worker's sandbox failed: {reply.get('message')}")
    if error is not None or not isinstance(reply.get("outcomes"), list):
        raise RuntimeError(f"the hidden worker failed ({error}): {reply.get('message')}")
    return [outcome_from_wire(item) for item in reply["outcomes"]]


def carry_out(runtime: Runtime, message: Any, version: Any = None) -> dict[str, Any]:
    """Run one hidden tier on this (hidden) worker: its outcomes, or why there are none.
    `version`: an uploaded problem's package digest (worker/packages.py unpacks it here)."""
    try:
        tier = HiddenTier.from_dict(message)
        if version is None:
            outcomes = run_hidden_tier(tier, runtime.sandbox, runtime.build_cache)
        else:
            if not isinstance(version, str) or not DIGEST.fullmatch(version):
                raise ValueError("a hidden tier's version is not a package digest")
            # The grading worker checks the outcomes against the answers stored with the
            # version: this worker asks the problem's code nothing but how to run it.
            with packages.version_resolved(runtime, tier.problem, version, None) as problem:
                outcomes = run_hidden_tier(tier, runtime.sandbox, runtime.build_cache, problem.spec)
    except judge.grading.grade.INFRASTRUCTURE_ERRORS as exc:
        return {"error": "unavailable", "message": first_line(exc)}
    except CompileError:  # the grading worker compiled the same source
        return {"error": "compile", "message": "the source did not compile on the hidden worker"}
    except (ProblemError, packages.NotPublished) as exc:  # the grading worker's went well
        return {"error": "problem", "message": first_line(exc)}
    except Exception as exc:
        log.exception("hidden tier failed")
        return {"error": "internal", "message": type(exc).__name__}
    return {"outcomes": [outcome_to_wire(o) for o in outcomes]}


def register(app: Celery, runtime: Runtime) -> None:
    startup.connect(app, runtime, "hidden")  # leftovers removed, this worker's sandbox uids leased
    replies = _redis(runtime.settings)

    @app.task(name=HIDDEN_TASK)
    def hidden_tier(message: Any, reply_key: str, version: Any = None) -> str:
        reply = carry_out(runtime, message, version)
        replies.rpush(reply_key, json.dumps(reply))
        replies.expire(reply_key, REPLY_TTL_S)
        return str(reply.get("error") or f"{len(reply['outcomes'])} outcomes")

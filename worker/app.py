"""Celery configuration: every queue setting in one place, derived from the service settings.

Configuration only: the API builds this app to enqueue, so nothing here loads a task, the
judge's runner or the sandbox. The worker registers its tasks on it (worker/main.py).
"""

from __future__ import annotations

import math

from celery import Celery
from kombu import Queue

from config import Settings
from judge import problems
from judge.execution.budget import longest_grading_s
from worker.broker import TRANSPORT

LIVE_QUEUE = "judge"
REJUDGE_QUEUE = "judge.rejudge"
# The fast lane: runs (not submissions) on a queue of their own, consumed only by the run
# lane's worker (worker/run_lane.py), so grading cannot starve runs nor runs grading.
RUN_QUEUE = "judge.run"
# Hidden tiers sent away (JUDGE_HIDDEN_TIERS=queue), consumed only by the hidden lane's
# workers (worker/hidden_lane.py), which run nothing a student sees.
HIDDEN_QUEUE = "judge.hidden"
HIDDEN_TASK = "judge.hidden_tier"
GRADE_TASK = "judge.grade_submission"
STRENGTH_TASK = "judge.strength_report"
RUN_TASK = "judge.run_code"
CHECK_TASK = "judge.check_package"  # on the run lane: a problem package's check
PREVIEW_TASK = "judge.rejudge_preview"  # on the rejudge queue: one step of a rejudge preview

GRADING_QUEUES = (LIVE_QUEUE, REJUDGE_QUEUE)


def make_celery(settings: Settings, *, run_lane: bool = False, hidden_lane: bool = False) -> Celery:
    """The app that grades (and enqueues anything), or with `run_lane` the run lane's: it
    consumes judge.run alone with JUDGE_RUN_SLOTS processes, or with `hidden_lane` the hidden
    lane's: judge.hidden alone with JUDGE_HIDDEN_SLOTS. A worker consumes the queues of its
    app's `task_queues`, so the grading workers never take a run nor a hidden tier."""
    broker, transport_cls = settings.broker, None
    if broker.startswith("sqla+sqlite:"):
        broker, transport_cls = broker.removeprefix("sqla+"), TRANSPORT
    app = Celery("judge", broker=broker, set_as_current=False)
    queues: tuple[str, ...]
    if run_lane:
        queues, concurrency = (RUN_QUEUE,), settings.run_slots
    elif hidden_lane:
        queues, concurrency = (HIDDEN_QUEUE,), settings.hidden_slots
    else:
        queues, concurrency = GRADING_QUEUES, settings.worker_slots
    # Soft limit: the task gives its claim back for a retry; hard limit: the pool child is killed
    # and, with reject_on_worker_lost, the message goes back to the queue.
    soft_limit = math.ceil(longest_grading_s(problems.registry().values())) + 60
    hard_limit = soft_limit + 30
    transport: dict[str, object] = {}
    if settings.broker.startswith(("redis://", "rediss://")):
        # A message unacked this long is redelivered: it must outlive the longest task,
        # or a healthy grading would be handed to a second worker.
        transport["visibility_timeout"] = hard_limit + 60
        # Live submissions first; rejudges only when no live one waits.
        transport["queue_order_strategy"] = "priority"
        if settings.broker_key_prefix:
            transport["global_keyprefix"] = settings.broker_key_prefix
    elif not broker.startswith("sqla+"):  # (kombu would pass it on to create_engine)
        # Virtual transports poll between messages; the embedded one is woken by each put and
        # each freed slot (worker/broker.py), so its poll is only the fallback.
        # (They alternate between queues, so rejudges take at most every other slot.)
        transport["polling_interval"] = settings.broker_polling_interval_s
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,  # results live in the database
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_concurrency=concurrency,
        task_soft_time_limit=soft_limit,
        task_time_limit=hard_limit,
        broker_transport_options=transport,
        broker_connection_retry_on_startup=True,
        task_queues=tuple(Queue(name) for name in queues),
        task_default_queue=queues[0],
        worker_hijack_root_logger=False,
        broker_transport=transport_cls,
    )
    return app

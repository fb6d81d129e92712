"""Publishing "grade submission N" messages, for the API, the sweeper and rejudges, and
"carry out run N" messages on the run lane, for the API."""

from __future__ import annotations

import logging

from celery import Celery

from store.models import Priority
from worker.app import GRADE_TASK, LIVE_QUEUE, REJUDGE_QUEUE, RUN_QUEUE, RUN_TASK

log = logging.getLogger(__name__)

# Fail fast when the broker is down: the row is already committed and the sweeper will
# enqueue it again, so a request must not hang on a dead broker.
RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


class Enqueuer:
    def __init__(self, app: Celery) -> None:
        self.app = app

    def __call__(
        self, submission_id: int, *, priority: Priority = Priority.LIVE, countdown_s: float = 0.0
    ) -> bool:
        """Send one message (to be delivered `countdown_s` from now); False (logged) when
        the broker could not take it."""
        queue = REJUDGE_QUEUE if priority == Priority.REJUDGE else LIVE_QUEUE
        try:
            self.app.send_task(
                GRADE_TASK,
                args=[submission_id],
                queue=queue,
                retry=True,
                retry_policy=RETRY_POLICY,
                countdown=countdown_s if countdown_s > 0 else None,
            )
        except Exception as exc:  # any broker failure: the sweeper resends later
            log.warning(
                "could not enqueue submission %s (%s): %s; the sweeper will retry",
                submission_id,
                queue,
                exc,
            )
            return False
        return True


class RunEnqueuer:
    """Sends runs to the run lane; False (logged) when the broker could not take one (the
    sweeper then ends the run with a plain message: running it later is worth nothing)."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def __call__(self, run_id: int) -> bool:
        try:
            self.app.send_task(
                RUN_TASK, args=[run_id], queue=RUN_QUEUE, retry=True, retry_policy=RETRY_POLICY
            )
        except Exception as exc:
            log.warning("could not enqueue run %s: %s", run_id, exc)
            return False
        return True

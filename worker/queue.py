"""Publishing "grade submission N" messages, for the API, the sweeper and rejudges,
"carry out run N" messages on the run lane, and "compute this strength report" messages, for
the API. `CelerySenders` is what the API's composition root (api/main.py) builds them from."""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import Celery

from config import Settings
from store.models import Priority
from store.repo.strength_reports import ReportRequest
from worker.app import (
    CHECK_TASK,
    GRADE_TASK,
    LIVE_QUEUE,
    REJUDGE_QUEUE,
    RUN_QUEUE,
    RUN_TASK,
    STRENGTH_TASK,
    make_celery,
)

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


class CheckEnqueuer:
    """Sends problem package checks to the run lane (a check is short and runs problem.py
    in the sandbox, as a run does); False (logged) when the broker could not take one (the
    sweeper sends it again)."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def __call__(self, version_id: int) -> bool:
        try:
            self.app.send_task(
                CHECK_TASK,
                args=[version_id],
                queue=RUN_QUEUE,
                retry=True,
                retry_policy=RETRY_POLICY,
            )
        except Exception as exc:
            log.warning("could not enqueue the check of problem version %s: %s", version_id, exc)
            return False
        return True


class StrengthRequester:
    """Sends "compute this report" messages (for the API)."""

    def __init__(self, make_app: Callable[[], Celery]) -> None:
        self._make_app = make_app
        self._app: Celery | None = None

    def __call__(self, request: ReportRequest) -> bool:
        try:
            if self._app is None:
                self._app = self._make_app()
            self._app.send_task(
                STRENGTH_TASK,
                kwargs={
                    "problem": request.problem,
                    "seeds": request.seeds,
                    "suggestions": request.suggestions,
                },
                queue=REJUDGE_QUEUE,
                retry=True,
                retry_policy=RETRY_POLICY,
            )
        except Exception as exc:  # the next request after LOST_AFTER_S asks again
            log.warning("could not request the strength report of %s: %s", request.problem, exc)
            return False
        return True


class CelerySenders:
    """The API's senders on one Celery app of the settings' configuration, made when a
    sender first needs it: the grading's and the run's at once, the strength report's at its
    first request."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._app: Celery | None = None

    def app(self) -> Celery:
        if self._app is None:
            self._app = make_celery(self.settings)
        return self._app

    def grading(self) -> Enqueuer:
        return Enqueuer(self.app())

    def runs(self) -> RunEnqueuer:
        return RunEnqueuer(self.app())

    def checks(self) -> CheckEnqueuer:
        return CheckEnqueuer(self.app())

    def strength(self) -> StrengthRequester:
        return StrengthRequester(self.app)

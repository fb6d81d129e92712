"""The strength-report task: the mutation analysis of a problem's current tests, computed in
the background and cached in the database (`store.repo.strength_reports`), so neither the API nor
the board editor waits seconds for it.

It runs on the rejudge queue: live submissions are graded first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from celery import Celery
from sqlalchemy.orm import Session

import judge
from judge import problems
from judge.strength.memory import StrengthMemory
from store import repo
from store.repo import strength_reports as reports
from worker.app import REJUDGE_QUEUE, STRENGTH_TASK
from worker.queue import RETRY_POLICY

# For annotations only: the API imports this module to request reports, and the runtime
# (which builds the sandbox) is the worker's.
if TYPE_CHECKING:
    from worker.runtime import Runtime

log = logging.getLogger(__name__)


def compute(session: Session, memory: StrengthMemory, request: reports.ReportRequest) -> str:
    """Analyse the problem's hidden boards as they are now and store the report; returns its
    key. (The boards may have changed since the request: the report is for the current ones,
    which is what the API asks for next.)"""
    module = problems.registry()[request.problem]
    hidden = repo.hidden_cases(session=session, problem=request.problem)
    session.rollback()  # no transaction held open while the mutants run
    key = reports.report_key(request, hidden, judge.__version__)
    try:
        data = memory.report(
            module, hidden, request.seeds, request.random_count, request.suggestions
        )
    except Exception as exc:  # trusted code, but a bug must not leave "computing" forever
        log.exception("strength report for %s failed", request.problem)
        reports.store(session=session, key=key, problem=request.problem, error=repr(exc))
        return key
    reports.store(session=session, key=key, problem=request.problem, report=data)
    return key


class StrengthRequester:
    """Sends "compute this report" messages (for the API)."""

    def __init__(self, make_app: Callable[[], Celery]) -> None:
        self._make_app = make_app
        self._app: Celery | None = None

    def __call__(self, request: reports.ReportRequest) -> bool:
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


def register(app: Celery, runtime: Runtime) -> None:
    settings = runtime.settings
    memory = StrengthMemory()

    @app.task(name=STRENGTH_TASK)
    def strength_report(problem: str, seeds: int, suggestions: bool) -> str:
        if problem not in problems.registry():
            return "unknown problem"
        request = reports.ReportRequest(problem, int(seeds), settings.random_count, suggestions)
        with runtime.session() as session:
            return compute(session, memory, request)

"""The strength-report task: the mutation analysis of a problem's current tests, computed in
the background and cached in the database (`store.repo.strength_reports`), so neither the API
nor the board editor waits seconds for it.

It runs on the rejudge queue: live submissions are graded first. The API sends its requests
with worker.queue.StrengthRequester and never loads this module.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from celery import Celery
from sqlalchemy.orm import Session

import judge
from judge import problems
from judge.strength.memory import StrengthMemory
from store import repo
from store.repo import strength_reports as reports
from worker.app import STRENGTH_TASK

# For annotations only: whoever imports this module for `compute` alone (the tests) need not
# load the sandbox the runtime builds.
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

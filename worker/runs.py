"""The run task: a student's source on the samples or their own cases (judge.run), on the
run lane. Registered by worker/run_lane.py only: the grading workers never load it.

Delivery is at least once (acks_late, reject on worker loss): a conditional claim picks one
winner and only the latest claim writes. Each finished case is stored at once, so the
run's event stream shows progress. When the sandbox cannot run, the run goes back to the
queue and the task is retried with backoff; after RUN_TRIES the run ends as an error with a
plain message. A run whose worker died is ended by the sweeper once its claim expires.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery, Task
from celery.exceptions import SoftTimeLimitExceeded

import judge.grading.grade
from judge import problems
from judge.grading.runs import case_json, run_cases
from judge.problems import InvalidCase
from judge.problems.host import ProblemError
from judge.verdict import TestResult
from store import repo
from worker import packages, startup
from worker.app import RUN_TASK
from worker.runtime import Runtime
from worker.tasks import task_backoff_s, with_retries

log = logging.getLogger(__name__)

RUN_TRIES = 3  # sandbox failures before the run ends as an error
UNAVAILABLE = "the judge's sandbox is unavailable right now; try again in a minute"
TOO_LONG = "the run took longer than the judge allows; run fewer or smaller cases"
CLAIM_MARGIN_S = 30  # beyond the problem's wall budget, before the sweeper ends the run


def claim_lease_s() -> float:
    """How long a claim holds: a run takes at most a submission's wall budget."""
    return max(m.LIMITS.total_s for m in problems.registry().values()) + CLAIM_MARGIN_S


def invalid_case(problem: problems.ProblemSpec, cases: list[Any] | None) -> str | None:
    """What the problem's validate() says of the first case it refuses, as the run's error
    (the API checked a built-in's cases already, an uploaded problem's types only)."""
    for n, case in enumerate(cases or (), 1):
        try:
            problem.validate(case)
        except InvalidCase as exc:
            return f"case {n}: invalid board: {exc}"
    return None


def carry_out(runtime: Runtime, run_id: int) -> str:
    """Claim and run one run; returns what happened (for logs and tests). Raises one of
    judge.grading.grade.INFRASTRUCTURE_ERRORS after giving the run back to the queue."""
    with runtime.session() as session:
        claim = repo.claim_run(session=session, run_id=run_id, lease_s=claim_lease_s())
    if claim is None:
        return "not claimed"
    results: list[dict[str, Any]] = []

    def store(step: str, write: Any) -> Any:
        def once() -> Any:
            with runtime.session() as session:
                return write(session)

        return with_retries(f"run {run_id}: {step}", once)

    def on_case(test: TestResult) -> None:
        results.append(case_json(test))
        try:
            store(
                "storing a case",
                lambda s: repo.record_run_cases(session=s, claim=claim, results=results),
            )
        except SoftTimeLimitExceeded:
            raise
        except Exception:  # progress only: the final write carries every case
            log.warning("run %s: could not store case %d", run_id, len(results), exc_info=True)

    try:
        with packages.resolved(runtime, claim.problem) as problem:
            refused = invalid_case(problem.spec, claim.cases)
            result = None
            if refused is None:
                result = run_cases(
                    problem.spec,
                    claim.source,
                    claim.cases,
                    language=claim.language,
                    style=claim.style,
                    on_case=on_case,
                    **runtime.machinery(),
                )
    except (ProblemError, packages.NotPublished) as exc:  # the package's matter, not the run's
        message = exc.message if isinstance(exc, ProblemError) else str(exc)
        refused = f"problem error: {message}"
        result = None
    except judge.grading.grade.INFRASTRUCTURE_ERRORS:
        store("giving it back", lambda s: repo.release_run(session=s, claim=claim))
        raise
    except SoftTimeLimitExceeded:
        store(
            "ending it",
            lambda s: repo.finish_run(
                session=s,
                claim=claim,
                outcome="internal_error",
                results=results,
                message=TOO_LONG,
                failed=True,
            ),
        )
        return "too long"
    if result is None:  # a case the problem's validate() refuses, or the problem failed
        why = refused or "the problem could not be run"
        store(
            "ending it",
            lambda s: repo.finish_run(
                session=s,
                claim=claim,
                outcome="invalid_case" if why.startswith("case") else "internal_error",
                results=[],
                message=why,
                failed=True,
            ),
        )
        return "refused"
    data = result.to_dict()
    finished = store(
        "storing the result",
        lambda s: repo.finish_run(
            session=s,
            claim=claim,
            outcome=data["status"],
            results=data["results"],
            message=data["message"] or "",
            failed=data["status"] == "internal_error",
        ),
    )
    return str(data["status"]) if finished else "claim lost"


def register(app: Celery, runtime: Runtime) -> None:
    startup.connect(app, runtime, "run")  # leftovers removed, this worker's sandbox uids leased

    @app.task(name=RUN_TASK, bind=True, max_retries=RUN_TRIES - 1)
    def run_code(self: Task, run_id: int) -> str:
        try:
            outcome = carry_out(runtime, run_id)
        except judge.grading.grade.INFRASTRUCTURE_ERRORS as exc:
            if self.request.retries >= RUN_TRIES - 1:
                log.warning("run %s: the sandbox kept failing: %s", run_id, exc)
                with runtime.session() as session:
                    repo.fail_run(session=session, run_id=run_id, message=UNAVAILABLE)
                return "sandbox unavailable"
            countdown = task_backoff_s(self.request.retries)
            log.warning("run %s: sandbox unavailable, retrying in %d s: %s", run_id, countdown, exc)
            raise self.retry(exc=exc, countdown=countdown) from exc
        log.info("run %s: %s", run_id, outcome)
        return outcome

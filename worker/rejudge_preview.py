"""The rejudge preview task: a problem's submissions graded against a candidate version, or
against the problem as a rejudge now grades it (its published version, or a built-in with
its stored hidden boards), nothing stored but the verdicts in the preview
(store/repo/rejudge_previews.py), with each one's passed and total tests per kind.

It runs on the rejudge queue, one submission per message: each step sends the next, so a
live submission arriving meanwhile is taken before the preview's next step (the queue's
priority order), and no step holds a worker longer than one grading. Delivery is at least
once: a step graded twice records the same verdict twice. A lost step leaves the preview
`computing` without progress; the next request for it sends it again (LOST_AFTER_S).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from celery import Celery, Task

import judge.grading.grade
from judge.problems.host import ProblemError
from judge.verdict import GradeResult
from store.credit import count_by_kind
from store.repo import rejudge_previews as previews
from store.repo.boards import hidden_cases
from worker import packages
from worker.app import PREVIEW_TASK, REJUDGE_QUEUE
from worker.queue import RETRY_POLICY
from worker.runtime import Runtime
from worker.tasks import INFRASTRUCTURE_ERRORS, task_backoff_s, with_retries

log = logging.getLogger(__name__)

PREVIEW_TRIES = 5  # infrastructure failures of one step before the preview fails


def step(runtime: Runtime, key: str) -> str:
    """Grade the preview's next submission and record it; "next" when one was graded (the
    caller sends the next step), else what happened."""
    with runtime.session() as session:
        todo = previews.next_step(session=session, key=key)
        if todo is None:
            return "done"
        version = None
        if todo.version_id is not None:
            version = previews.version_of(
                session=session, slug=todo.slug, version_id=todo.version_id
            )
        job = previews.graded(session=session, submission_id=todo.submission_id)
    if todo.version_id is not None and version is None:
        with runtime.session() as session:
            previews.fail(session=session, key=key, error="the version is gone")
        return "failed"
    verdict, passed, total = None, 0, 0  # a submission deleted since: no new verdict
    kinds: dict[str, tuple[int, int]] = {}
    if job is not None:
        verdict, passed, total, kinds = _grade(runtime, todo.slug, version, job)

    def record() -> None:
        with runtime.session() as session:
            previews.record(
                session=session,
                key=key,
                submission_id=todo.submission_id,
                verdict=verdict,
                passed=passed,
                total=total,
                kinds=kinds,
            )

    with_retries(f"preview {key[:12]}: storing submission {todo.submission_id}", record)
    return "next"


@contextmanager
def _against(
    runtime: Runtime, slug: str, version: tuple[str, object] | None
) -> Iterator[tuple[packages.Resolved, list[dict[str, Any]]]]:
    """The problem to grade against and its hidden tier: the candidate version with its
    stored answers, or (None) the problem now, a built-in's hidden tier its stored boards."""
    if version is not None:
        digest, answers = version
        with packages.version_resolved(runtime, slug, digest, answers) as problem:
            yield problem, problem.hidden_cases or []
        return
    with packages.resolved(runtime, slug) as problem:
        boards = problem.hidden_cases
        if boards is None:
            with runtime.session() as session:
                boards = hidden_cases(session=session, problem=slug)
        yield problem, boards


def kinds_of(result: GradeResult) -> dict[str, tuple[int, int]]:
    """kind -> (passed, total) over the grading's tests (what "tests" scoring reads)."""
    return count_by_kind((test.kind.value, test.verdict.value) for test in result.tests)


def _grade(
    runtime: Runtime, slug: str, version: tuple[str, object] | None, job: previews.Graded
) -> tuple[str, int, int, dict[str, tuple[int, int]]]:
    """The verdict `job` gets against the version (None: the problem now), as a rejudge
    would grade it (its seed, the version's stored answers), its tests stored nowhere."""
    try:
        with _against(runtime, slug, version) as (problem, boards):
            result = judge.grading.grade.grade(
                problem.spec,
                job.source,
                language=job.language,
                style=job.style,
                hidden_cases=boards,
                seed=job.seed,
                random_count=runtime.settings.random_count,
                max_source_bytes=runtime.settings.max_source_bytes,
                diagnose=False,  # only the verdict is kept
                **runtime.machinery(),
            )
    except INFRASTRUCTURE_ERRORS:
        raise
    except ProblemError as exc:  # the candidate's code failed: what a rejudge would show
        log.warning("preview of %s: problem error: %s", slug, exc.message)
        return "IE", 0, 0, {}
    except Exception:  # a style the version no longer offers...: IE, as a rejudge gives
        log.exception("preview of %s: grading failed", slug)
        return "IE", 0, 0, {}
    return result.verdict.value, result.passed, result.total, kinds_of(result)


def register(app: Celery, runtime: Runtime) -> None:
    def send_next(key: str) -> None:
        app.send_task(
            PREVIEW_TASK,
            args=[key],
            queue=REJUDGE_QUEUE,
            retry=True,
            retry_policy=RETRY_POLICY,
        )

    @app.task(name=PREVIEW_TASK, bind=True, max_retries=PREVIEW_TRIES - 1)
    def rejudge_preview(self: Task, key: str) -> str:
        try:
            outcome = step(runtime, key)
        except INFRASTRUCTURE_ERRORS as exc:
            if self.request.retries >= PREVIEW_TRIES - 1:
                _fail(runtime, key, f"the judge could not grade: {exc}")
                return "failed"
            raise self.retry(exc=exc, countdown=task_backoff_s(self.request.retries)) from exc
        except Exception as exc:  # never "computing" forever
            log.exception("preview %s failed", key[:12])
            _fail(runtime, key, f"{type(exc).__name__}: {exc}")
            return "failed"
        if outcome == "next":
            _send(send_next, key)
        return outcome


def _fail(runtime: Runtime, key: str, error: str) -> None:
    with runtime.session() as session:
        previews.fail(session=session, key=key, error=error)


def _send(send: Callable[[str], None], key: str) -> None:
    try:
        send(key)
    except Exception as exc:  # the next request finds it lost and sends it again
        log.warning("preview %s: could not send its next step: %s", key[:12], exc)

"""The grading task: claim the row, grade with judge.grade, save through store.

Registered on the worker's app by worker/main.py; the API never imports this module.

Delivery is at least once (acks_late, reject on worker loss, sweeper resends), so the task is
idempotent: a conditional claim picks one winner, and only the holder of the current claim
can write progress or the verdict.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from celery import Celery, Task
from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.exc import InterfaceError, OperationalError

import judge.grading.grade
from judge.grading.hidden_tier import SendHiddenTier
from judge.problems.host import ProblemError
from judge.verdict import TestResult
from store import repo
from store.outcome import JudgingOutcome
from store.transient import first_line, is_transient
from worker import outcomes, packages, similarity, startup
from worker.app import GRADE_TASK
from worker.hidden import SendToHiddenLane
from worker.progress import ProgressWriter
from worker.queue import Enqueuer
from worker.runtime import Runtime

log = logging.getLogger(__name__)

# Failures of the machinery around grading, not of the submission: worth another attempt.
INFRASTRUCTURE_ERRORS = (
    OperationalError,
    InterfaceError,
    SoftTimeLimitExceeded,
    *judge.grading.grade.INFRASTRUCTURE_ERRORS,
)


# A transient database error (see store.transient) is retried in place, keeping the claim:
# pauses of 0.1, 0.2, 0.4, 0.8, 1.6 s. Past them, the grading is retried (release, backoff).
WRITE_TRIES = 6
FIRST_PAUSE_S = 0.1
MAX_TASK_BACKOFF_S = 60

T = TypeVar("T")


def with_retries(what: str, step: Callable[[], T]) -> T:
    """Run one committed step of the judging protocol (in a fresh session each time),
    again after a pause while it fails with a transient database error."""
    pause = FIRST_PAUSE_S
    for attempt in range(1, WRITE_TRIES + 1):
        try:
            return step()
        except Exception as exc:
            if attempt == WRITE_TRIES or not is_transient(exc):
                raise
            log.warning(
                "%s: transient database error (try %d of %d), again in %.1f s: %s",
                what,
                attempt,
                WRITE_TRIES,
                pause,
                first_line(exc),
            )
        time.sleep(pause)
        pause *= 2
    raise AssertionError("unreachable")


def task_backoff_s(retries: int) -> int:
    """The delay before the grading is retried after its `retries`-th infrastructure failure."""
    return min(2**retries, MAX_TASK_BACKOFF_S)


class Heartbeat:
    """Extends the lease while grading runs, so only a dead worker's lease expires."""

    def __init__(self, runtime: Runtime, claim: repo.Claim) -> None:
        self.runtime = runtime
        self.claim = claim
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease-heartbeat", daemon=True)

    def _run(self) -> None:
        lease_s = self.runtime.settings.lease_s
        while not self._stop.wait(lease_s / 3):
            try:
                with self.runtime.session() as session:
                    if not repo.extend_lease(session=session, claim_=self.claim, lease_s=lease_s):
                        return  # the claim was taken over (rejudge): the verdict will be dropped
            except Exception as exc:  # a database hiccup: try again at the next beat
                log.warning(
                    "lease heartbeat for %s failed: %s",
                    self.claim.submission_id,
                    first_line(exc),
                    exc_info=not is_transient(exc),
                )

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def run_judging(
    runtime: Runtime,
    submission_id: int,
    enqueue: Callable[..., bool] | None = None,
    *,
    retry_in_s: float = 0.0,
) -> str:
    """Grade one submission if it can be claimed; returns what happened (for logs/tests).

    A student's submissions are graded one at a time: a message for one whose user already
    has a submission being graded is dropped ("deferred", marked on the row), and when a
    judging ends the user's oldest queued submission is enqueued (`enqueue`), behind everyone
    else's, if its message was dropped (one still queued is left to arrive). The sweeper
    resends any that a crash left behind.

    Raises one of INFRASTRUCTURE_ERRORS after giving the claim back when the failure was not
    the submission's: the caller retries in `retry_in_s` (the row records when). After
    JUDGE_MAX_ATTEMPTS interrupted attempts the submission is held for an instructor.
    """
    settings = runtime.settings
    claim = None
    for _ in range(2):  # a second time if what went first finished between claim and defer
        with runtime.session() as session:
            claim = repo.claim(
                session=session,
                submission_id=submission_id,
                lease_s=settings.lease_s,
                worker_id=runtime.worker_id,
            )
            if claim is not None:
                break
            deferred = repo.defer(session=session, submission_id=submission_id)
        if deferred is False:
            continue
        if isinstance(deferred, repo.Stale) and enqueue is not None:  # for the release
            enqueue(submission_id, priority=deferred.priority, countdown_s=deferred.countdown_s)
        return "deferred"
    if claim is None:
        return "not claimed"  # done already, or another worker holds a live lease
    # an infrastructure error: retried, not handed on
    outcome = _judge_claimed(runtime, claim, retry_in_s)
    if enqueue is not None:
        _hand_on(runtime, submission_id, enqueue)
    if outcome == "finished":  # the verdict is stored and the next one handed on: off the path
        similarity.after_verdict(runtime, submission_id)
    return outcome


def _hand_on(runtime: Runtime, submission_id: int, enqueue: Callable[..., bool]) -> None:
    """Enqueue the user's next queued submission if its message was dropped (deferred while
    this one was graded), at once, to the back of the queue (repo.next_for_user). It is not
    claimed before this one is released to the student (store.release): started earlier, it
    would show the student when this judging's hidden tier ended."""
    try:
        with runtime.session() as session:
            following = repo.next_for_user(session=session, submission_id=submission_id)
    except Exception:  # the sweeper resends it later
        log.warning("could not hand on after submission %s", submission_id, exc_info=True)
        return
    if following is not None:
        enqueue(following.submission_id, priority=following.priority)


def _judge_claimed(runtime: Runtime, claim: repo.Claim, retry_in_s: float = 0.0) -> str:
    settings = runtime.settings
    submission_id = claim.submission_id
    if claim.attempts > settings.max_attempts:
        # Interrupted every time (never by the submission: its own failures are verdicts):
        # an instructor decides, the student sees no verdict.
        def hold() -> bool:
            with runtime.session() as session:
                return repo.hold(session=session, claim_=claim, interrupted=claim.attempts - 1)

        held = with_retries(f"holding submission {submission_id}", hold)
        return "held" if held else "claim lost"
    try:
        with runtime.session() as session:
            job = repo.load_job(session=session, claim_=claim)

        def record(tests: list[dict[str, Any]]) -> bool:
            with runtime.session() as session:
                return repo.record_tests(
                    session=session, claim_=claim, tests=tests, lease_s=settings.lease_s
                )

        def store(tests: list[dict[str, Any]]) -> None:
            what = f"submission {submission_id}: storing tests from {tests[0]['index']}"
            with_retries(what, lambda: record(tests))

        runtime.current_claim = claim  # for its hidden tier's `while_away`
        try:
            progress = ProgressWriter(store, INFRASTRUCTURE_ERRORS, f"submission {submission_id}")
            with Heartbeat(runtime, claim), progress:
                result = grade_job(runtime, job, lambda test: progress.add(test.to_dict()))
                progress.close()  # every test stored before the verdict, or its failure raised
        finally:
            runtime.current_claim = None
        # Inside: a final write that keeps failing gives the claim back too, with its reason,
        # or the retry would find the row still claimed and wait for the lease.
        stored = store_result(runtime, claim, result)
    except INFRASTRUCTURE_ERRORS as exc:
        failure = first_line(exc)

        def release() -> bool:
            with runtime.session() as session:
                return repo.release(
                    session=session, claim_=claim, failure=failure, retry_in_s=retry_in_s
                )

        try:
            with_retries(f"releasing submission {submission_id}", release)
        except Exception:  # the database itself is down: the lease will expire instead
            log.warning("could not release submission %s", submission_id, exc_info=True)
        raise
    return "finished" if stored else "claim lost"


def mark_away(runtime: Runtime, away: bool) -> None:
    """The grading being graded here waits for its hidden tier on the hidden lane (or no
    longer): recorded, so that this worker dying meanwhile is not counted as its attempt
    (store/repo/judging.py). Best effort: unmarked, such a death counts, as before."""
    claim = runtime.current_claim
    if claim is None:
        return
    try:
        with runtime.session() as session:
            repo.set_away(session=session, claim_=claim, away=away)
    except Exception as exc:
        log.warning(
            "submission %s: could not mark the wait for the hidden lane: %s",
            claim.submission_id,
            first_line(exc),
        )


def store_result(runtime: Runtime, claim: repo.Claim, outcome: JudgingOutcome) -> bool:
    """Finish the judging. A result the database refuses for its content (it should not
    happen: everything from the sandbox is sanitised) is stored as its verdict and counts
    alone, never retried: grading the submission again would be refused the same way."""

    def finish(outcome: JudgingOutcome) -> bool:
        with runtime.session() as session:
            return repo.finish(
                session=session,
                claim_=claim,
                outcome=outcome,
                release_quantum_s=runtime.settings.hidden_release_quantum_s,
            )

    what = f"submission {claim.submission_id}: storing the result"
    try:
        return with_retries(what, lambda: finish(outcome))
    except INFRASTRUCTURE_ERRORS:
        raise
    except Exception:
        log.exception("submission %s: the result could not be stored", claim.submission_id)
    return with_retries(what, lambda: finish(outcomes.bare(outcome)))


def hidden_tier_for(runtime: Runtime, problem: packages.Resolved) -> SendHiddenTier | None:
    """Where the grading's hidden tier runs: None here, under the phase lock; else the hidden
    lane, told which package version an uploaded problem is graded against."""
    send = runtime.hidden_tier
    if send is None or problem.builtin:
        return send
    return functools.partial(send, version=problem.digest)


def grade_job(
    runtime: Runtime, job: repo.Job, on_test: Callable[[TestResult], None]
) -> JudgingOutcome:
    """Grade against the problem's current version (worker/packages.py): a built-in, or an
    uploaded problem's published package, its own boards as the hidden tier."""
    version = None
    try:
        with packages.resolved(runtime, job.problem) as problem:
            version = problem.digest
            result = judge.grading.grade.grade(
                problem.spec,
                job.source,
                language=job.language,
                style=job.style,
                hidden_cases=job.hidden_cases
                if problem.hidden_cases is None
                else problem.hidden_cases,
                seed=job.seed,
                random_count=runtime.settings.random_count,
                on_test=on_test,
                max_source_bytes=runtime.settings.max_source_bytes,
                hidden_tier=hidden_tier_for(runtime, problem),
                **runtime.machinery(),
            )
    except INFRASTRUCTURE_ERRORS:
        raise
    except ProblemError as exc:  # the package's code failed: the instructor's matter
        log.warning("submission of %s: problem error: %s", job.problem, exc.message)
        outcome = outcomes.internal_error(f"problem error: {exc.message}")
        return dataclasses.replace(outcome, problem_version=version)
    except Exception as exc:  # never the submission's fault: IE, logged
        log.exception("grading failed")
        outcome = outcomes.internal_error(f"internal error: {type(exc).__name__}: {exc}")
        return dataclasses.replace(outcome, problem_version=version)
    return dataclasses.replace(outcomes.graded(result), problem_version=version)


def register(app: Celery, runtime: Runtime) -> None:
    settings = runtime.settings
    enqueue = Enqueuer(app)
    if settings.hidden_tiers == "queue":
        runtime.hidden_tier = SendToHiddenLane(
            app, settings, while_away=lambda away: mark_away(runtime, away)
        )
    startup.connect(app, runtime, "grading")  # leftovers removed, this worker's sandbox uids leased

    @app.task(name=GRADE_TASK, bind=True, max_retries=settings.max_attempts)
    def grade_submission(self: Task, submission_id: int) -> str:
        countdown = task_backoff_s(self.request.retries)
        try:
            outcome = run_judging(runtime, submission_id, enqueue, retry_in_s=countdown)
        except INFRASTRUCTURE_ERRORS as exc:
            log.warning(
                "submission %s: infrastructure error, retrying in %d s: %s",
                submission_id,
                countdown,
                exc,
            )
            raise self.retry(exc=exc, countdown=countdown) from exc
        log.info("submission %s: %s", submission_id, outcome)
        return outcome

"""Re-enqueues submissions a lost message or a dead worker left behind.

A plain loop over the database (not a Celery beat task): it must keep working while the
broker is down, and its only job is to publish again once the broker is back.
"""

from __future__ import annotations

import logging
import threading

from store import repo
from store.repo import problem_packages
from store.transient import first_line, is_transient
from worker import lti_scores, package_check, startup
from worker.queue import CheckEnqueuer, Enqueuer
from worker.runtime import Runtime

log = logging.getLogger(__name__)


def sweep_once(runtime: Runtime, enqueue: Enqueuer) -> tuple[int, int]:
    """One pass; returns (messages resent, submissions held for an instructor)."""
    settings = runtime.settings
    with runtime.session() as session:
        stale, held = repo.sweep(
            session=session,
            resend_after_s=settings.resend_after_s,
            max_attempts=settings.max_attempts,
        )
    failed = [
        row.submission_id for row in stale if not enqueue(row.submission_id, priority=row.priority)
    ]
    sent = len(stale) - len(failed)
    if failed:
        with runtime.session() as session:
            repo.unsent(session=session, submission_ids=failed)
    if stale or held:
        log.info(
            "sweeper: resent %d of %d lost submissions %s, held %s",
            sent,
            len(stale),
            [row.submission_id for row in stale],
            held or "none",
        )
    return sent, len(held)


def sweep_runs_once(runtime: Runtime) -> repo.RunSweep:
    """End the runs a dead run worker (or none) left, delete the day-old ones."""
    with runtime.session() as session:
        swept = repo.sweep_runs(session=session)
    if swept.interrupted or swept.unclaimed:
        log.info(
            "sweeper: ended interrupted runs %s and unclaimed runs %s",
            swept.interrupted,
            swept.unclaimed,
        )
    return swept


def sweep_checks_once(runtime: Runtime, enqueue_check: CheckEnqueuer) -> list[int]:
    """Send again the package checks a lost message or a dead run worker left `checking`
    (failed after package_check.MAX_SENDS sends)."""
    with runtime.session() as session:
        stale = problem_packages.stale_checks(
            session=session,
            older_than_s=package_check.CHECK_RESEND_S,
            max_sends=package_check.MAX_SENDS,
        )
    for version_id in stale:
        enqueue_check(version_id)  # a failure: sent again at the next resend
    if stale:
        log.info("sweeper: sent the checks of problem versions %s again", stale)
    return stale


def run(runtime: Runtime, enqueue: Enqueuer, stop: threading.Event) -> None:
    enqueue_check = CheckEnqueuer(enqueue.app)
    # A daemon: a post cut short at exit stays in its table and is posted again (the same
    # score and timestamp: idempotent).
    threading.Thread(
        target=lti_scores.run, args=(runtime, stop), name="lti-scores", daemon=True
    ).start()
    while not stop.is_set():
        try:  # what killed gradings left in /tmp, when the workers share this host's
            startup.remove_leftovers()
        except OSError:
            log.warning("removing stale temporary directories failed", exc_info=True)
        try:
            sweep_once(runtime, enqueue)
            sweep_runs_once(runtime)
            sweep_checks_once(runtime, enqueue_check)
        except Exception as exc:  # database down for a moment: the next pass tries again
            log.warning("sweep failed: %s", first_line(exc), exc_info=not is_transient(exc))
        stop.wait(runtime.settings.sweep_interval_s)

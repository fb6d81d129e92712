"""A worker stopped between a write and its commit (SIGSTOP, a paused VM) keeps its session
idle inside a transaction, holding its submission's row lock. PostgreSQL ends that session
after JUDGE_STALLED_TRANSACTION_S, so another worker's claim goes through once the lease is
out; the stopped worker, continued, gets an error it retries and is fenced out."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.exc import DBAPIError

from config import Settings
from store import repo
from store.models import Submission
from store.transient import is_transient
from tests.service.test_store import new_submission
from worker.runtime import Runtime

STALLED_S = 1.0


def runtime(url: str) -> Runtime:
    return Runtime(Settings(database_url=url, secret_key="x" * 32, stalled_transaction_s=STALLED_S))


def in_thread(call: Callable[[], Any], timeout: float) -> Any:
    """call()'s result, or a failure if it has not returned in `timeout` s (it waits on a
    lock that nothing would release without the fix: the test must end, not hang)."""
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(call()), daemon=True)
    thread.start()
    thread.join(timeout)
    assert done, f"still blocked after {timeout} s: the stalled session's lock was never released"
    return done[0]


def test_a_stopped_workers_row_lock_ends_and_its_grading_is_taken_over(migrated) -> None:
    url = migrated("postgresql")
    stopped, other = runtime(url), runtime(url)
    with stopped.session() as session:
        sub = new_submission(session)
        first = repo.claim(session=session, submission_id=sub.id, lease_s=0.2)
    assert first is not None
    with stopped.session() as frozen:
        # The heartbeat's write, its commit never reached: the row stays locked.
        frozen.execute(
            update(Submission)
            .where(Submission.id == sub.id)
            .values(lease_expires=Submission.lease_expires)
        )

        def take_over() -> repo.Claim | None:
            with other.session() as session:
                return repo.claim(session=session, submission_id=sub.id, lease_s=60)

        time.sleep(0.3)  # the lease is out: the sweeper would resend the grading now
        second = in_thread(take_over, timeout=30 * STALLED_S)
        assert second is not None and second.attempts == 2 and second.token > first.token
        with pytest.raises(DBAPIError) as ended:
            frozen.commit()  # continued: its session was ended by the server
        assert is_transient(ended.value)
    with stopped.session() as session:  # its retry, on a fresh connection, is fenced out
        assert not repo.extend_lease(session=session, claim_=first, lease_s=60)

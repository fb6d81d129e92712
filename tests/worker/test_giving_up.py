"""The grading task's branches that give up (worker/tasks.py): the claim is given back for a
retry, held for an instructor, or left to expire, and nothing is stored that should not be.

A real SQLite store (migrated, one file per test); a fake stands in for the sandbox (it fails
the way the real one does when it cannot run) or for the grade call (to act at a chosen
moment of a grading). A transient database error is a real one: another connection holds
SQLite's write lock, and the store's busy wait is cut short so a test takes milliseconds.
No service, sandbox or browser: part of `make test-fast`.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy import event, select
from sqlalchemy.exc import OperationalError

from config import Settings
from judge.sandbox import SandboxUnavailable
from judge.verdict import GradeResult, TestKind, TestResult, Verdict
from store import repo
from store.migrate import upgrade
from store.models import Role, Status, Submission, utcnow
from store.models import TestRow as ResultRow
from store.transient import is_transient
from worker import tasks
from worker.app import GRADE_TASK
from worker.runtime import Runtime

SOURCE = "def solution(board):\n    return 0\n"
NO_SLOT = "no free sandbox slot (64 in use)"
MAX_ATTEMPTS = 2


class FakeSandbox:
    """Stands in for judge.sandbox.Sandbox: every run fails to start, as the real one's does
    when it has no free slot or the machine is out of processes."""

    sandboxed = True
    notes: list[str] = []
    python = "/usr/bin/python3"

    def __init__(self, error: BaseException, before=None) -> None:
        self.error = error
        self.before = before  # called before failing: to break the database meanwhile
        self.runs = 0

    def run(self, command, limits, hidden=False):
        self.runs += 1
        if self.before is not None:
            self.before()
        raise self.error


class Enqueued(list):
    """Stands in for worker.queue.Enqueuer: records what would have been sent (and, in
    `countdowns`, in how long)."""

    def __init__(self) -> None:
        super().__init__()
        self.countdowns: list[float] = []

    def __call__(self, submission_id: int, priority: str, countdown_s: float = 0.0) -> bool:
        self.append((submission_id, priority))
        self.countdowns.append(countdown_s)
        return True


class Lock:
    """SQLite's write lock held by another connection: every transaction of the store (they
    all BEGIN IMMEDIATE) fails with "database is locked" until it is let go."""

    def __init__(self, path: Path) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)

    def take(self) -> None:
        self.connection.execute("BEGIN IMMEDIATE")

    def let_go(self) -> None:
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")

    @contextmanager
    def held(self) -> Iterator[None]:
        self.take()
        try:
            yield
        finally:
            self.let_go()


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "judge.sqlite"
    upgrade(f"sqlite:///{path}")
    return path


def settings_for(database: Path, **values: Any) -> Settings:
    return Settings(
        database_url=f"sqlite:///{database}",
        secret_key="worker-test-" + "x" * 32,
        max_attempts=MAX_ATTEMPTS,
        **values,
    )


@pytest.fixture
def runtime(database: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    runtime = Runtime(settings_for(database))
    engine = runtime.session_factory.kw["bind"]

    @event.listens_for(engine, "connect")
    def _short_busy_wait(dbapi_connection, _record) -> None:
        # After the store's own pragmas (30 s): a locked database fails within 20 ms.
        dbapi_connection.execute("PRAGMA busy_timeout=20")

    monkeypatch.setattr(tasks, "FIRST_PAUSE_S", 0.001)  # 6 tries in ~30 ms, not 3 s
    yield runtime
    engine.dispose()


@pytest.fixture
def lock(database: Path) -> Iterator[Lock]:
    held = Lock(database)
    yield held
    held.let_go()
    held.connection.close()


def submit(runtime: Runtime, username: str = "ann") -> int:
    with runtime.session() as session:
        user = repo.get_user_by_name(session=session, username=username) or repo.create_user(
            session=session, username=username, password_hash="x", role=Role.STUDENT
        )
        submission = repo.create_submission(
            session=session, user_id=user.id, problem="numbergame", source=SOURCE, seed=3
        )
        session.commit()
        return submission.id


def row(runtime: Runtime, submission_id: int) -> Submission:
    with runtime.session() as session:
        submission = session.get(Submission, submission_id)
        assert submission is not None
        session.expunge(submission)
        return submission


def stored_tests(runtime: Runtime, submission_id: int) -> list[tuple[int, int, str]]:
    """(lease token, index, verdict) of every test row of the submission, of any judging."""
    with runtime.session() as session:
        rows = session.scalars(select(ResultRow).where(ResultRow.submission_id == submission_id))
        return sorted((t.lease_token, t.index, t.verdict) for t in rows)


def a_result(tests: list[TestResult]) -> GradeResult:
    return GradeResult(
        problem="numbergame",
        verdict=Verdict.AC,
        passed=len(tests),
        total=len(tests),
        tests=tests,
        seed=3,
        judge_version="v-test",
        sandboxed=True,
    )


def a_test(index: int, **fields: Any) -> TestResult:
    return TestResult(index, TestKind.SAMPLE, Verdict.AC, time_ms=1.0, **fields)


def fake_grade(monkeypatch: pytest.MonkeyPatch, grade) -> None:
    """Replace the grade call (worker.tasks.grade_job imports it when it runs)."""
    monkeypatch.setattr("judge.grading.grade.grade", grade)


def finished_with(runtime: Runtime, monkeypatch: pytest.MonkeyPatch, grade) -> Submission:
    """A new submission graded by `grade` (a fake), once its judging has finished."""
    fake_grade(monkeypatch, grade)
    sid = submit(runtime)
    assert tasks.run_judging(runtime, sid) == "finished"
    sub = row(runtime, sid)
    assert sub.status == Status.DONE
    return sub


def released_as_queued(runtime: Runtime, submission_id: int, failure: str) -> Submission:
    sub = row(runtime, submission_id)
    assert (sub.status, sub.verdict, sub.lease_expires) == (Status.QUEUED, None, None)
    assert sub.last_failure == failure
    return sub


# ---- with_retries and the task's backoff ---------------------------------------------------


@pytest.fixture
def locked_error(runtime: Runtime, lock: Lock) -> OperationalError:
    """A real transient error: what the store raises while another connection writes."""
    with lock.held(), pytest.raises(OperationalError) as caught, runtime.session() as session:
        repo.extend_lease(session=session, claim_=repo.Claim(1, 1, 1), lease_s=1)
    assert is_transient(caught.value)
    return caught.value


def test_a_transient_error_is_tried_again_until_the_step_succeeds(locked_error) -> None:
    calls = []

    def step() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise locked_error
        return "stored"

    assert tasks.with_retries("a step", step) == "stored"
    assert len(calls) == 3


def test_after_the_last_try_the_transient_error_is_raised(locked_error, caplog) -> None:
    calls = []

    def step() -> None:
        calls.append(1)
        raise locked_error

    with caplog.at_level(logging.WARNING, logger=tasks.__name__), pytest.raises(OperationalError):
        tasks.with_retries("a step", step)
    assert len(calls) == tasks.WRITE_TRIES
    tries = [r.getMessage() for r in caplog.records if "transient database error" in r.message]
    assert len(tries) == tasks.WRITE_TRIES - 1
    assert f"(try 1 of {tasks.WRITE_TRIES})" in tries[0]


def test_any_other_error_is_raised_at_once() -> None:
    calls = []

    def step() -> None:
        calls.append(1)
        raise ValueError("a row the database refuses")

    with pytest.raises(ValueError):
        tasks.with_retries("a step", step)
    assert len(calls) == 1


def test_the_task_backoff_doubles_up_to_its_cap() -> None:
    delays = [tasks.task_backoff_s(retries) for retries in range(8)]
    assert delays == [1, 2, 4, 8, 16, 32, 60, 60]


# ---- no claim: nothing graded ----------------------------------------------------------------


def test_a_finished_or_unknown_submission_is_not_claimed(runtime: Runtime) -> None:
    sandbox = runtime.sandbox = FakeSandbox(SandboxUnavailable(NO_SLOT))
    enqueued = Enqueued()
    assert tasks.run_judging(runtime, 10_000, enqueued) == "not claimed"
    sid = submit(runtime)
    with runtime.session() as session:
        claim = repo.claim(session=session, submission_id=sid, lease_s=60)
    assert claim is not None
    assert tasks.run_judging(runtime, sid, enqueued) == "not claimed"  # a live lease elsewhere
    assert (sandbox.runs, enqueued) == (0, [])
    assert row(runtime, sid).attempts == 1


def test_a_second_submission_of_a_student_being_graded_is_deferred(runtime: Runtime) -> None:
    sandbox = runtime.sandbox = FakeSandbox(SandboxUnavailable(NO_SLOT))
    first, second = submit(runtime), submit(runtime)
    with runtime.session() as session:
        assert repo.claim(session=session, submission_id=first, lease_s=60) is not None
    assert tasks.run_judging(runtime, second, Enqueued()) == "deferred"
    assert sandbox.runs == 0
    sub = row(runtime, second)
    assert (sub.status, sub.attempts) == (Status.QUEUED, 0)


# ---- the machinery fails: the claim is given back for a retry --------------------------------


@pytest.mark.parametrize(
    ("error", "failure"),
    [
        (SandboxUnavailable(NO_SLOT), f"SandboxUnavailable: {NO_SLOT}"),
        (OSError(24, "Too many open files"), "OSError: [Errno 24] Too many open files"),
    ],
    ids=["sandbox unavailable", "out of descriptors"],
)
def test_a_sandbox_that_cannot_run_gives_the_claim_back(
    runtime: Runtime, error: Exception, failure: str
) -> None:
    sandbox = runtime.sandbox = FakeSandbox(error)
    sid, enqueued = submit(runtime), Enqueued()
    submit(runtime)  # queued behind it: not handed on, since this one was not finished
    before = utcnow()
    with pytest.raises(type(error)):
        tasks.run_judging(runtime, sid, enqueued, retry_in_s=8)
    assert sandbox.runs == 1
    sub = released_as_queued(runtime, sid, failure)
    assert sub.attempts == 1
    # The retry message waits 8 s: the row counts as sent then, so the sweeper waits too.
    assert sub.enqueued_at - before >= timedelta(seconds=8)
    assert enqueued == []


def test_a_soft_time_limit_while_grading_gives_the_claim_back(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def grade(*_args, **_kwargs) -> GradeResult:
        raise SoftTimeLimitExceeded()  # Celery's signal, raised wherever the task is

    fake_grade(monkeypatch, grade)
    sid = submit(runtime)
    with pytest.raises(SoftTimeLimitExceeded):
        tasks.run_judging(runtime, sid, retry_in_s=1)
    released_as_queued(runtime, sid, "SoftTimeLimitExceeded: SoftTimeLimitExceeded()")


def test_a_soft_time_limit_during_a_sandbox_run_gives_the_claim_back(runtime: Runtime) -> None:
    runtime.sandbox = FakeSandbox(SoftTimeLimitExceeded())
    sid = submit(runtime)
    with pytest.raises(SoftTimeLimitExceeded):
        tasks.run_judging(runtime, sid, retry_in_s=1)
    released_as_queued(runtime, sid, "SoftTimeLimitExceeded: SoftTimeLimitExceeded()")


def test_after_max_attempts_the_submission_is_held_for_an_instructor(runtime: Runtime) -> None:
    sandbox = runtime.sandbox = FakeSandbox(SandboxUnavailable(NO_SLOT))
    sid = submit(runtime)
    for _ in range(MAX_ATTEMPTS):
        with pytest.raises(SandboxUnavailable):
            tasks.run_judging(runtime, sid)
    assert tasks.run_judging(runtime, sid) == "held"
    assert sandbox.runs == MAX_ATTEMPTS  # not graded a third time
    sub = row(runtime, sid)
    assert (sub.status, sub.verdict, sub.lease_expires) == (Status.HELD, None, None)
    assert sub.hold_reason == (
        f"grading was interrupted {MAX_ATTEMPTS} times; the last interruption: "
        f"SandboxUnavailable: {NO_SLOT}"
    )


def test_a_claim_lost_before_the_hold_is_said_as_such(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rejudge between the last claim and the hold fences the hold out: the row is queued
    again, not held, and the task says the claim was lost."""
    runtime.sandbox = FakeSandbox(SandboxUnavailable(NO_SLOT))
    sid = submit(runtime)
    for _ in range(MAX_ATTEMPTS):
        with pytest.raises(SandboxUnavailable):
            tasks.run_judging(runtime, sid)
    hold = repo.hold

    def rejudged_first(**kwargs: Any) -> bool:
        with runtime.session() as session:
            repo.rejudge(session=session, submission_ids=[sid])
            session.commit()
        return hold(**kwargs)

    monkeypatch.setattr(repo, "hold", rejudged_first)
    assert tasks.run_judging(runtime, sid) == "claim lost"
    assert row(runtime, sid).status == Status.QUEUED


def test_the_celery_task_retries_until_the_submission_is_held(database: Path) -> None:
    """The registered task itself, run eagerly: each infrastructure failure is a retry with
    the doubling countdown, and the attempt past max_attempts holds the row."""
    # A sandbox the worker cannot make: the configured interpreter does not exist.
    settings = settings_for(database, sandbox="bwrap", sandbox_python="/nonexistent/python3")
    app = Celery("giving-up-test", set_as_current=False)
    # Celery hands every app the tasks any app of the process registered before (shared
    # tasks, the first one of a name kept): drop those, so the task run is this test's.
    app.finalize()
    app.tasks.pop(GRADE_TASK, None)
    runtime = Runtime(settings)
    tasks.register(app, runtime)
    sid = submit(runtime)
    result = app.tasks[GRADE_TASK].apply(args=(sid,))
    assert result.get() == "held"
    sub = row(runtime, sid)
    assert (sub.status, sub.attempts) == (Status.HELD, MAX_ATTEMPTS + 1)
    assert sub.hold_reason is not None and "SandboxUnavailable" in sub.hold_reason
    runtime.session_factory.kw["bind"].dispose()


# ---- the database fails ----------------------------------------------------------------------


def test_a_test_that_cannot_be_stored_for_a_locked_database_gives_the_claim_back(
    runtime: Runtime, lock: Lock, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    def grade(*_args, on_test, **_kwargs) -> GradeResult:
        # Let go as the error leaves the grading: the release gets through.
        with lock.held():
            on_test(a_test(0))  # stored beside the grading, which goes on
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # its next tests: one of them gets the failure
                time.sleep(0.05)
                on_test(a_test(1))
        raise AssertionError("on_test should have raised")

    fake_grade(monkeypatch, grade)
    sid = submit(runtime)
    with caplog.at_level(logging.WARNING, logger=tasks.__name__), pytest.raises(OperationalError):
        tasks.run_judging(runtime, sid)
    retried = [r for r in caplog.records if "storing tests from 0: transient" in r.getMessage()]
    assert len(retried) == tasks.WRITE_TRIES - 1
    sub = row(runtime, sid)
    assert (sub.status, sub.lease_expires) == (Status.QUEUED, None)
    assert sub.last_failure is not None and "database is locked" in sub.last_failure
    assert stored_tests(runtime, sid) == []


def test_when_even_the_release_fails_the_lease_is_left_to_expire(
    runtime: Runtime, lock: Lock, caplog
) -> None:
    # The sandbox fails while the database is locked, and stays locked through the release.
    runtime.sandbox = FakeSandbox(SandboxUnavailable(NO_SLOT), before=lock.take)
    sid = submit(runtime)
    with caplog.at_level(logging.WARNING, logger=tasks.__name__), pytest.raises(SandboxUnavailable):
        tasks.run_judging(runtime, sid)
    lock.let_go()
    assert any(r.getMessage() == f"could not release submission {sid}" for r in caplog.records)
    sub = row(runtime, sid)
    assert (sub.status, sub.last_failure) == (Status.RUNNING, None)
    assert sub.lease_expires is not None and sub.lease_expires > utcnow()
    with runtime.session() as session:  # nobody else may take it before the lease expires
        assert repo.claim(session=session, submission_id=sid, lease_s=60) is None


def test_a_result_that_cannot_be_stored_for_a_locked_database_gives_the_claim_back(
    runtime: Runtime, lock: Lock, monkeypatch: pytest.MonkeyPatch
) -> None:
    finish = repo.finish
    tries = 0

    def finish_while_locked(**kwargs: Any) -> bool:
        nonlocal tries
        tries += 1
        try:
            return finish(**kwargs)
        finally:
            if tries == tasks.WRITE_TRIES:  # the last try failed: the release gets through
                lock.let_go()

    def grade(*_args, **_kwargs) -> GradeResult:
        if tries == 0:
            lock.take()  # every try of the first finish() fails
        return a_result([a_test(0)])

    fake_grade(monkeypatch, grade)
    monkeypatch.setattr(repo, "finish", finish_while_locked)
    sid = submit(runtime)
    before = utcnow()
    with pytest.raises(OperationalError):
        tasks.run_judging(runtime, sid, retry_in_s=8)
    assert tries == tasks.WRITE_TRIES
    # Given back with its reason, sent again when the task's retry is due: not left claimed,
    # where the retry would find it "not claimed" and wait for the lease to expire.
    sub = row(runtime, sid)
    assert (sub.status, sub.verdict, sub.lease_expires) == (Status.QUEUED, None, None)
    assert sub.last_failure is not None and "database is locked" in sub.last_failure
    assert sub.enqueued_at - before >= timedelta(seconds=8)
    assert tasks.run_judging(runtime, sid) == "finished"
    assert row(runtime, sid).verdict == "AC"


def test_a_test_the_database_refuses_is_skipped_and_the_result_stored_bare(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not JSON: refused for its content, which no retry changes.
    refused = a_test(1, got=object())

    def grade(*_args, on_test, **_kwargs) -> GradeResult:
        on_test(a_test(0))
        on_test(refused)  # logged; the grading goes on
        on_test(a_test(2))
        return a_result([a_test(0), refused, a_test(2)])

    sub = finished_with(runtime, monkeypatch, grade)
    assert (sub.verdict, sub.passed, sub.total) == ("AC", 3, 3)
    assert sub.message == "the details of this result could not be stored"
    token = sub.lease_token
    assert stored_tests(runtime, sub.id) == [(token, 0, "AC"), (token, 1, "AC"), (token, 2, "AC")]


def test_a_failure_of_the_judge_itself_is_stored_as_an_internal_error(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def grade(*_args, **_kwargs) -> GradeResult:
        raise KeyError("board")

    sub = finished_with(runtime, monkeypatch, grade)
    assert (sub.verdict, sub.passed, sub.total) == ("IE", 0, 0)
    assert sub.message == "internal error: KeyError: 'board'"


# ---- the claim is taken over -----------------------------------------------------------------


def test_a_claim_lost_to_a_rejudge_stores_nothing_more(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = submit(runtime)

    def grade(*_args, on_test, **_kwargs) -> GradeResult:
        on_test(a_test(0))
        assert eventually(lambda: stored_tests(runtime, sid) == [(1, 0, "AC")])  # stored aside
        with runtime.session() as session:  # an instructor rejudges meanwhile
            repo.rejudge(session=session, submission_ids=[sid])
            session.commit()
        on_test(a_test(1))  # refused by the fence, silently
        return a_result([a_test(0), a_test(1)])

    fake_grade(monkeypatch, grade)
    enqueued = Enqueued()
    assert tasks.run_judging(runtime, sid, enqueued) == "claim lost"
    sub = row(runtime, sid)
    assert (sub.status, sub.verdict, sub.attempts) == (Status.QUEUED, None, 0)
    assert stored_tests(runtime, sid) == [(1, 0, "AC")]  # from before the rejudge only
    assert enqueued == []  # not handed on: the rejudge sent its own message


def eventually(condition, timeout_s: float = 5.0) -> bool:
    """Whether `condition()` holds within `timeout_s` (beats are 0.1 s apart; a loaded
    machine may delay one)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def beating(runtime: Runtime) -> tuple[int, tasks.Heartbeat]:
    runtime.settings.lease_s = 0.3  # a beat every 0.1 s
    sid = submit(runtime)
    with runtime.session() as session:
        claim = repo.claim(session=session, submission_id=sid, lease_s=0.3)
    assert claim is not None
    return sid, tasks.Heartbeat(runtime, claim)


def test_the_heartbeat_extends_a_held_lease_and_stops_once_it_is_lost(runtime: Runtime) -> None:
    sid, heartbeat = beating(runtime)
    first = row(runtime, sid).lease_expires
    with heartbeat:
        assert eventually(lambda: row(runtime, sid).lease_expires > first)
        with runtime.session() as session:
            repo.rejudge(session=session, submission_ids=[sid])
            session.commit()
        # It ends on its own, before being told to stop: the claim is gone.
        assert eventually(lambda: not heartbeat._thread.is_alive())


def test_the_heartbeat_survives_a_locked_database(runtime: Runtime, lock: Lock, caplog) -> None:
    sid, heartbeat = beating(runtime)

    def failed_beats() -> int:
        return sum("lease heartbeat for" in r.getMessage() for r in caplog.records)

    with caplog.at_level(logging.WARNING, logger=tasks.__name__), heartbeat:
        with lock.held():
            assert eventually(lambda: failed_beats() >= 1)
        locked_until = row(runtime, sid).lease_expires
        assert heartbeat._thread.is_alive()
        assert eventually(lambda: row(runtime, sid).lease_expires > locked_until)


# ---- handing on ------------------------------------------------------------------------------


def test_the_next_queued_submission_of_the_user_is_handed_on(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A release quantum no loaded machine outlasts: the last step must come before the release.
    quantum_s = 60.0
    runtime.settings.hidden_release_quantum_s = quantum_s
    first, second = submit(runtime), submit(runtime)
    submit(runtime, "bob")  # someone else's: never handed on from ann's
    meanwhile: list[str] = []  # grade_job turns an assertion inside grade into an IE verdict

    def grade(*_args, **_kwargs) -> GradeResult:  # the second's message arrives meanwhile
        meanwhile.append(tasks.run_judging(runtime, second, Enqueued()))
        return a_result([a_test(0)])

    fake_grade(monkeypatch, grade)
    enqueued = Enqueued()
    assert tasks.run_judging(runtime, first, enqueued) == "finished"
    assert meanwhile == ["deferred"]
    assert enqueued == [(second, "live")]
    # Not claimed before the first is released to ann (JUDGE_HIDDEN_RELEASE_QUANTUM_S,
    # doubling): started at once, the second would time the first's hidden tier.
    with runtime.session() as session:
        row = session.get(Submission, first)
        assert row is not None and row.started_at is not None and row.released_at is not None
        took = (row.released_at - row.started_at).total_seconds()
        assert row.finished_at is not None and row.finished_at <= row.released_at
        assert row.verdict == Verdict.AC
    steps = math.log2(took / quantum_s)
    assert steps == pytest.approx(round(steps)) and took >= quantum_s
    assert enqueued.countdowns == [0.0]  # sent at once, to the back of the queue
    # Arriving before the release, it is dropped and sent again for the release.
    again = Enqueued()
    assert tasks.run_judging(runtime, second, again) == "deferred"
    assert again == [(second, "live")]
    assert 0 < again.countdowns[0] <= took + repo.HAND_ON_SLACK_S
    assert meanwhile == ["deferred"]  # and not graded


def test_without_a_release_quantum_the_next_one_is_handed_on_at_once(
    database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = Runtime(settings_for(database, hidden_release_quantum_s=0))
    first, second = submit(runtime), submit(runtime)
    meanwhile: list[str] = []

    def grade(*_args, **_kwargs) -> GradeResult:
        meanwhile.append(tasks.run_judging(runtime, second, Enqueued()))
        return a_result([a_test(0)])

    fake_grade(monkeypatch, grade)
    enqueued = Enqueued()
    assert tasks.run_judging(runtime, first, enqueued) == "finished"
    assert meanwhile == ["deferred"]
    assert enqueued == [(second, "live")] and enqueued.countdowns == [0.0]
    assert tasks.run_judging(runtime, second, Enqueued()) == "finished"
    assert meanwhile == ["deferred", "not claimed"]  # its own message, while it is graded


def test_a_failed_hand_on_is_left_to_the_sweeper(runtime: Runtime, lock: Lock, caplog) -> None:
    first, _second = submit(runtime), submit(runtime)
    enqueued = Enqueued()
    with caplog.at_level(logging.WARNING, logger=tasks.__name__), lock.held():
        tasks._hand_on(runtime, first, enqueued)
    assert enqueued == []
    assert any(
        r.getMessage() == f"could not hand on after submission {first}" for r in caplog.records
    )

"""What the grading task stores through repo.finish, on the real PostgreSQL: the internal
error it builds, and the bare outcome it falls back to when the database refuses a result."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import judge
from config import Settings
from judge.verdict import GradeResult, TestKind, TestResult, Verdict
from store import repo
from store.migrate import upgrade
from store.models import Role, Status, Submission
from worker import outcomes
from worker.runtime import Runtime
from worker.tasks import store_result

pytestmark = pytest.mark.services


@pytest.fixture
def runtime(postgres) -> Iterator[Runtime]:
    url = postgres()
    upgrade(url)
    runtime = Runtime(Settings(database_url=url, secret_key="outcomes-test-" + "x" * 32))
    yield runtime
    runtime.session_factory.kw["bind"].dispose()


def claimed(runtime: Runtime) -> repo.Claim:
    with runtime.session() as session:
        user = repo.create_user(
            session=session, username="ann", password_hash="x", role=Role.STUDENT
        )
        sub = repo.create_submission(
            session=session, user_id=user.id, problem="numbergame", source="pass", seed=3
        )
        session.commit()
        claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert claim is not None
    return claim


def stored(runtime: Runtime, claim: repo.Claim) -> tuple[Submission, list]:
    with runtime.session() as session:
        sub = session.get(Submission, claim.submission_id)
        assert sub is not None
        return sub, repo.current_tests(session=session, submission=sub)


def test_an_internal_error_is_stored_as_ie_without_tests(runtime: Runtime) -> None:
    claim = claimed(runtime)
    assert store_result(runtime, claim, outcomes.internal_error("internal error: boom"))
    sub, tests = stored(runtime, claim)
    assert (sub.status, sub.verdict, sub.passed, sub.total) == (Status.DONE, "IE", 0, 0)
    assert (sub.message, sub.judge_version) == ("internal error: boom", judge.__version__)
    assert tests == []


def test_a_result_the_database_refuses_is_stored_bare(runtime: Runtime) -> None:
    # PostgreSQL refuses NUL in text: should a sanitiser ever miss one, the verdict and
    # counts are still stored (once, not retried), without the details.
    result = GradeResult(
        problem="numbergame",
        verdict=Verdict.WA,
        passed=1,
        total=2,
        tests=[
            TestResult(0, TestKind.SAMPLE, Verdict.AC, time_ms=1.0),
            TestResult(1, TestKind.RANDOM, Verdict.WA, message="got \x00"),
        ],
        seed=3,
        judge_version="v-test",
        sandboxed=True,
    )
    claim = claimed(runtime)
    assert store_result(runtime, claim, outcomes.graded(result))
    sub, tests = stored(runtime, claim)
    assert (sub.status, sub.verdict, sub.passed, sub.total) == (Status.DONE, "WA", 1, 2)
    assert sub.message == "the details of this result could not be stored"
    assert [(t.index, t.kind, t.verdict, t.message) for t in tests] == [
        (0, "sample", "AC", ""),
        (1, "random", "WA", ""),
    ]

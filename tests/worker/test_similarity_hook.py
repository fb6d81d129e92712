"""The grading task's similarity hook: a submission graded through run_judging (the claim,
the sandboxed grading, the stored verdict) is fingerprinted afterwards, and a copy by another
student graded next makes a pair; a failure of the index never touches the verdict."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from config import Settings
from store import repo
from store.migrate import upgrade
from store.models import Role, Status, Submission
from store.repo import similarity as index
from tests.service.test_similarity_store import MEMO
from worker import similarity, tasks
from worker.runtime import Runtime

pytestmark = [pytest.mark.sandbox]

# Renamed and recommented by hand, so that it still runs (and is accepted).
NAMES = {"go": "lead", "left": "lo", "right": "hi", "ret": "best"}
RENAMED = re.sub(r"\b(go|left|right|ret)\b", lambda m: NAMES[m[1]], MEMO).replace("Top", "My")


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    url = f"sqlite:///{tmp_path / 'judge.sqlite'}"
    upgrade(url)
    runtime = Runtime(Settings(database_url=url, secret_key="similarity-hook-" + "x" * 32))
    yield runtime
    runtime.session_factory.kw["bind"].dispose()


def graded(runtime: Runtime, username: str, source: str) -> int:
    with runtime.session() as session:
        user = repo.create_user(
            session=session, username=username, password_hash="x", role=Role.STUDENT
        )
        sub = repo.create_submission(
            session=session, user_id=user.id, problem="numbergame", source=source, seed=3
        )
        session.commit()
        submission_id = sub.id
    assert tasks.run_judging(runtime, submission_id) == "finished"
    return submission_id


def test_a_graded_submission_is_indexed_and_a_copy_makes_a_pair(runtime: Runtime) -> None:
    first = graded(runtime, "ann", MEMO)
    second = graded(runtime, "bob", RENAMED)
    with runtime.session() as session:
        assert index.is_indexed(session=session, submission_id=first)
        sub = session.get(Submission, second)
        assert sub is not None and (sub.status, sub.verdict) == (Status.DONE, "AC")
        (pair,) = index.pairs(session=session, problems=["numbergame"], threshold=0.8)
    assert (pair.user_a, pair.user_b, pair.submission_a, pair.submission_b) == (
        "ann", "bob", first, second
    )  # fmt: skip


def test_a_failing_index_leaves_the_verdict_alone(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(session, submission_id: int) -> str:
        raise RuntimeError("index down")

    monkeypatch.setattr(similarity, "index_submission", broken)
    submission_id = graded(runtime, "ann", MEMO)
    with runtime.session() as session:
        sub = session.get(Submission, submission_id)
        assert sub is not None and sub.verdict == "AC"
        assert not index.is_indexed(session=session, submission_id=submission_id)

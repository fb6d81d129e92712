"""`submissions.test_counts`: each judging's passed and total tests per kind, written when
it ends (and cleared by a rejudge), backfilled by migration 0020 from the current judging's
test rows, and what "tests" scoring reads, with the test rows as the fallback for a row
without them. On SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from alembic import command
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from store import credit, repo
from store.db import make_engine
from store.migrate import alembic_config
from store.models import Assignment, Role, Scoring, Status, Submission, User, utcnow
from store.models import TestRow as ResultRow  # not "Test*": pytest would collect it
from store.outcome import JudgingOutcome
from store.repo import assignments as repo_assignments


def _test(index: int, kind: str, verdict: str) -> dict:
    return {"index": index, "kind": kind, "verdict": verdict, "time_ms": 1.0}


OUTCOME = JudgingOutcome(
    verdict="WA",
    passed=3,
    total=5,
    judge_version="test",
    sandboxed=True,
    tests=[
        _test(0, "sample", "AC"),
        _test(1, "sample", "AC"),
        _test(2, "random", "WA"),
        _test(3, "hidden", "AC"),
        _test(4, "hidden", "TLE"),
    ],
)


def test_count_by_kind_counts_passed_and_total_per_kind() -> None:
    pairs = [("sample", "AC"), ("sample", "WA"), ("hidden", "AC"), ("worst", "TLE")]
    assert credit.count_by_kind(pairs) == {"sample": (1, 2), "hidden": (1, 1), "worst": (0, 1)}
    assert credit.count_by_kind([]) == {}
    assert credit.stored_counts({"small": [2, 3]}) == {"small": (2, 3)}


def _submission(session: Session, problem: str = "footholds") -> Submission:
    user = repo.get_user_by_name(session=session, username="ann") or repo.create_user(
        session=session, username="ann", password_hash="x", role=Role.STUDENT
    )
    sub = repo.create_submission(
        session=session, user_id=user.id, problem=problem, source="x", seed=1
    )
    session.commit()
    return sub


def _finished(session: Session, outcome: JudgingOutcome = OUTCOME) -> Submission:
    sub = _submission(session)
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert claim is not None
    assert repo.finish(session=session, claim_=claim, outcome=outcome)
    session.refresh(sub)
    return sub


def test_the_counts_are_written_when_a_judging_ends_and_cleared_by_a_rejudge(session) -> None:
    sub = _submission(session)
    assert sub.test_counts is None  # queued: nothing counted yet
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert claim is not None
    assert repo.record_test(session=session, claim_=claim, test=OUTCOME.tests[0], lease_s=60)
    session.refresh(sub)
    assert sub.test_counts is None  # running: progress rows only
    assert repo.finish(session=session, claim_=claim, outcome=OUTCOME)
    session.refresh(sub)
    assert sub.test_counts == {"sample": [2, 2], "random": [0, 1], "hidden": [1, 2]}

    repo.rejudge(session=session, submission_ids=[sub.id])
    session.commit()
    session.refresh(sub)
    assert sub.status == Status.QUEUED and sub.test_counts is None
    # SQL NULL, not JSON null (what the gradebook reads as "not counted").
    nulls = select(Submission.id).where(Submission.test_counts.is_(None))
    assert sub.id in set(session.scalars(nulls))


def test_a_judging_without_tests_stores_empty_counts(session) -> None:
    compile_error = replace(OUTCOME, verdict="CE", passed=0, total=0, tests=[])
    assert _finished(session, compile_error).test_counts == {}


def _assignment(session: Session) -> Assignment:
    now = utcnow()
    return repo_assignments.create_assignment(
        session=session,
        fields={
            "title": "Week 1",
            "release_at": now - timedelta(days=5),
            "due_at": now + timedelta(days=1),
        },
        problems=[repo_assignments.ProblemSpec("footholds", 10, scoring=Scoring.TESTS)],
        user_id=None,
    )


def test_credit_reads_the_stored_counts_and_falls_back_to_the_test_rows(session) -> None:
    stored = _finished(session)
    # Judged before the counts were stored: its current judging's rows count, not a stale one's.
    old = _submission(session)
    old.status, old.verdict, old.lease_token = Status.DONE, "WA", 2
    session.add_all(
        ResultRow(submission_id=old.id, lease_token=token, index=i, kind="small", verdict=v)
        for token, i, v in [(2, 0, "AC"), (2, 1, "WA"), (1, 0, "WA")]
    )
    running = _submission(session)
    assignment = _assignment(session)
    session.commit()
    found = repo_assignments.attempts(
        session=session, assignment=assignment, until=utcnow() + timedelta(days=1)
    )
    by_id = {a.id: a for a in found[stored.user_id]}
    assert by_id[stored.id].tests == {"sample": (2, 2), "random": (0, 1), "hidden": (1, 2)}
    assert by_id[old.id].tests == {"small": (1, 2)}
    assert by_id[running.id].verdict is None and by_id[running.id].tests == {}


# ---- migration 0020's backfill ----------------------------------------------------------


def _fill_at_0019(url: str) -> dict[str, int]:
    """Submissions as they were before 0020: judged with test rows (the current judging's and
    a superseded one's), judged without any (a compile error), and queued."""
    engine = make_engine(url)
    now = utcnow()
    with engine.begin() as connection:
        uid = connection.execute(
            insert(User).values(
                username="ann", password_hash="x", role=Role.STUDENT, created_at=now
            )
        ).inserted_primary_key[0]
        ids = {}
        for name, status, token in [
            ("judged", "done", 2),
            ("ce", "done", 1),
            ("queued", "queued", 0),
        ]:
            ids[name] = connection.execute(
                insert(Submission).values(
                    user_id=uid,
                    problem="footholds",
                    source="x",
                    seed=1,
                    status=status,
                    verdict=None if status == "queued" else "WA",
                    lease_token=token,
                )
            ).inserted_primary_key[0]
        rows = [(2, 0, "sample", "AC"), (2, 1, "hidden", "WA"), (2, 2, "hidden", "AC")]
        rows += [(1, 0, "sample", "WA")]  # a superseded judging's: not counted
        connection.execute(
            insert(ResultRow),
            [
                {
                    "submission_id": ids["judged"],
                    "lease_token": t,
                    "index": i,
                    "kind": k,
                    "verdict": v,
                    "time_ms": 1.0,
                    "wall_ms": 1.0,
                    "memory_kb": 1,
                    "message": "",
                }
                for t, i, k, v in rows
            ],
        )
    engine.dispose()
    return ids


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_migration_backfills_the_counts_from_the_test_rows(backend, tmp_path, postgres):
    url = f"sqlite:///{tmp_path / 'judge.sqlite'}" if backend == "sqlite" else postgres()
    config = alembic_config(url)
    command.upgrade(config, "0019")
    ids = _fill_at_0019(url)
    command.upgrade(config, "0020")
    engine = make_engine(url)
    with engine.connect() as connection:
        counts = dict(connection.execute(select(Submission.id, Submission.test_counts)).all())
        versions = connection.execute(select(Assignment.credit_version)).all()
    engine.dispose()
    assert counts[ids["judged"]] == {"sample": [1, 1], "hidden": [1, 2]}
    assert counts[ids["ce"]] == {}
    assert counts[ids["queued"]] is None
    assert versions == []
    command.downgrade(config, "0019")  # and back

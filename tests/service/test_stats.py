"""store/repo/stats.py: the statistics in SQL and their cache, on SQLite and PostgreSQL, each test
inside a rolled-back transaction."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

from sqlalchemy.orm import Session

from store import repo
from store.models import Role, utcnow
from store.outcome import JudgingOutcome
from store.repo import stats


def graded(session: Session, username: str, problem: str, verdict: str | None) -> int:
    """A submission of `username`, finished with `verdict` (None: left queued)."""
    user = repo.get_user_by_name(session=session, username=username) or repo.create_user(
        session=session, username=username, password_hash="x", role=Role.STUDENT
    )
    sub = repo.create_submission(
        session=session, user_id=user.id, problem=problem, source="pass", seed=1
    )
    session.commit()
    if verdict is not None:
        claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
        assert claim is not None
        result = JudgingOutcome(verdict=verdict, passed=0, total=1)
        assert repo.finish(session=session, claim_=claim, outcome=result, release_quantum_s=0)
    return sub.id


def test_totals_standing_and_detail(session: Session) -> None:
    graded(session, "alice", "footholds", "AC")
    graded(session, "alice", "footholds", "AC")
    graded(session, "bob", "footholds", "WA")
    graded(session, "bob", "numbergame", None)
    totals = stats.problem_totals(session=session)
    assert totals["footholds"] == stats.ProblemTotals(finished=3, accepted=2, solvers=1)
    assert "numbergame" not in totals  # no verdict yet
    alice = repo.get_user_by_name(session=session, username="alice")
    bob = repo.get_user_by_name(session=session, username="bob")
    assert stats.standing(session=session, user_id=alice.id) == {"footholds": "solved"}
    assert stats.standing(session=session, user_id=bob.id) == {
        "footholds": "tried",
        "numbergame": "tried",
    }
    today = stats.recent_days(1)[0]
    detail = stats.problem_detail(
        session=session, problem="footholds", since=stats.day_start(today)
    )
    assert (detail.finished, detail.pending, detail.users, detail.solvers) == (3, 0, 2, 1)
    assert detail.verdicts == {"AC": 2, "WA": 1}
    assert detail.days == {today: (3, 2)}
    later = stats.problem_detail(
        session=session, problem="numbergame", since=utcnow() + timedelta(days=1)
    )
    assert (later.pending, later.users, later.days) == (1, 1, {})


def test_cache_recomputes_after_a_verdict_and_a_rejudge(session: Session) -> None:
    cache = stats.StatsCache(max_age_s=3600)
    computed = []

    def totals(s: Session):
        computed.append(1)
        return stats.problem_totals(session=s)

    def read():
        return cache.get(session=session, key="problems", compute=totals).get("footholds")

    first = graded(session, "alice", "footholds", "WA")
    assert read() == stats.ProblemTotals(1, 0, 0)
    assert read() == stats.ProblemTotals(1, 0, 0) and len(computed) == 1  # cached
    graded(session, "alice", "footholds", "AC")
    assert read() == stats.ProblemTotals(2, 1, 1)  # a new verdict
    repo.rejudge(session=session, submission_ids=[first])
    session.commit()
    assert read() == stats.ProblemTotals(1, 1, 1)  # a verdict taken back
    assert len(computed) == 3


def test_a_crowd_gets_the_previous_value_while_one_request_recomputes(session: Session) -> None:
    cache = stats.StatsCache(max_age_s=3600)
    graded(session, "alice", "footholds", "WA")
    before = cache.get(session=session, key="k", compute=lambda s: "before")
    graded(session, "alice", "footholds", "AC")  # the version moves
    computing, release = threading.Event(), threading.Event()
    answers = []

    def slow(s: Session) -> str:
        computing.set()
        release.wait(30)
        return "after"

    # One request recomputes (on a thread; it holds no connection while `slow` waits, so
    # the test's session serves both in turn).
    thread = threading.Thread(
        target=lambda: answers.append(cache.get(session=session, key="k", compute=slow))
    )
    thread.start()
    try:
        assert computing.wait(30)
        assert cache.get(session=session, key="k", compute=slow) == before  # not queued
    finally:
        release.set()
        thread.join(30)
    assert answers == ["after"]
    assert cache.get(session=session, key="k", compute=lambda s: "again") == "after"


def test_the_tally_adds_verdicts_and_recounts_after_a_rejudge(session: Session) -> None:
    tally = stats.TotalsTally()
    first = graded(session, "alice", "footholds", "WA")
    assert tally.get(session=session) == stats.problem_totals(session=session)
    assert tally.recounts == 1
    graded(session, "bob", "footholds", "AC")
    graded(session, "bob", "numbergame", None)
    graded(session, "carol", "numbergame", "AC")
    assert tally.get(session=session) == stats.problem_totals(session=session)
    assert tally.recounts == 1  # added, not counted again
    repo.rejudge(session=session, submission_ids=[first])
    session.commit()
    assert tally.get(session=session) == stats.problem_totals(session=session)
    assert tally.recounts == 2
    # The rejudged row finishes again with another verdict.
    claim = repo.claim(session=session, submission_id=first, lease_s=60)
    result = JudgingOutcome(verdict="AC", passed=1, total=1)
    assert repo.finish(session=session, claim_=claim, outcome=result, release_quantum_s=0)
    assert tally.get(session=session) == stats.problem_totals(session=session)
    assert tally.get(session=session)["footholds"] == stats.ProblemTotals(2, 2, 2)


def test_the_tally_matches_a_full_count_through_random_histories(session: Session) -> None:
    rng = random.Random(13)
    tally = stats.TotalsTally()
    ids: list[int] = []
    for _ in range(60):
        action = rng.random()
        if action < 0.6 or not ids:
            verdict = rng.choice(["AC", "WA", "TLE", None])
            # A student's submissions are graded oldest first: the rows left queued belong to
            # a student of their own, so every other student's new row can be graded at once.
            user = "dan" if verdict is None else rng.choice(["ann", "ben", "cat"])
            ids.append(graded(session, user, rng.choice(["footholds", "numbergame"]), verdict))
        elif action < 0.8:
            repo.rejudge(session=session, submission_ids=[rng.choice(ids)])
            session.commit()
        else:  # a queued row (new or rejudged) gets its verdict
            claim = repo.claim(session=session, submission_id=rng.choice(ids), lease_s=60)
            if claim is not None:
                verdict = rng.choice(["AC", "WA"])
                result = JudgingOutcome(verdict=verdict, passed=0, total=1)
                assert repo.finish(
                    session=session, claim_=claim, outcome=result, release_quantum_s=0
                )
        if rng.random() < 0.5:
            assert tally.get(session=session) == stats.problem_totals(session=session)
    assert tally.get(session=session) == stats.problem_totals(session=session)
    assert tally.recounts < 40  # most verdicts were added, not recounted

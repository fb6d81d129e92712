"""store/: the judging protocol (claim, fencing, finish, sweep, rejudge),
on SQLite and PostgreSQL, each test inside a rolled-back transaction."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import Session

from store import repo
from store.models import Priority, Role, Status, Submission, utcnow
from store.models import TestRow as ResultRow
from store.outcome import JudgingOutcome

RESULT = JudgingOutcome(
    verdict="WA",
    passed=1,
    total=2,
    max_time_ms=3.5,
    peak_memory_kb=9000,
    judge_version="test",
    message="",
    sandboxed=True,
    tests=[
        {
            "index": 0,
            "kind": "sample",
            "verdict": "AC",
            "time_ms": 1.0,
            "input": {"board": [1]},
            "expected": 1,
            "got": 1,
        },
        {
            "index": 1,
            "kind": "hidden",
            "verdict": "WA",
            "time_ms": 3.5,
            "message": "Wrong answer on a hidden test",
        },
    ],
)


def new_submission(session: Session, username: str = "alice", problem: str = "footholds"):
    user = repo.get_user_by_name(session=session, username=username) or repo.create_user(
        session=session, username=username, password_hash="x", role=Role.STUDENT
    )
    submission = repo.create_submission(
        session=session, user_id=user.id, problem=problem, source="def solution(): pass", seed=7
    )
    session.commit()
    return submission


def test_one_claim_wins_and_only_its_holder_finishes(session: Session) -> None:
    sub = new_submission(session)
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert claim is not None and claim.attempts == 1
    assert repo.claim(session=session, submission_id=sub.id, lease_s=60) is None
    stale = repo.Claim(sub.id, claim.token - 1, 1)
    assert not repo.finish(session=session, claim_=stale, outcome=RESULT)
    assert repo.finish(session=session, claim_=claim, outcome=RESULT)
    assert not repo.finish(session=session, claim_=claim, outcome=RESULT)  # exactly once
    session.refresh(sub)
    assert (sub.status, sub.verdict, sub.passed, sub.total) == ("done", "WA", 1, 2)
    assert [j.verdict for j in repo.judgings(session=session, submission_id=sub.id)] == ["WA"]
    tests = repo.current_tests(session=session, submission=sub)
    assert [(t.index, t.kind, t.input) for t in tests] == [
        (0, "sample", {"board": [1]}),
        (1, "hidden", None),
    ]


def test_an_expired_lease_is_taken_over_and_fences_the_old_holder(session: Session) -> None:
    sub = new_submission(session)
    first = repo.claim(session=session, submission_id=sub.id, lease_s=-1)  # already expired
    second = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert first and second and second.attempts == 2 and second.token > first.token
    assert not repo.record_test(session=session, claim_=first, test=RESULT.tests[0], lease_s=60)
    assert not repo.extend_lease(session=session, claim_=first, lease_s=60)
    assert repo.record_test(session=session, claim_=second, test=RESULT.tests[0], lease_s=60)
    assert not repo.finish(session=session, claim_=first, outcome=RESULT)
    assert repo.finish(session=session, claim_=second, outcome=RESULT)
    assert len(repo.judgings(session=session, submission_id=sub.id)) == 1


def test_tests_finished_together_are_recorded_in_one_write(session: Session) -> None:
    sub = new_submission(session)
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert claim is not None
    assert repo.record_tests(session=session, claim_=claim, tests=RESULT.tests[:1], lease_s=60)
    # Test 0 again with test 1 (a write retried after its commit got through): 1 is kept.
    assert repo.record_tests(session=session, claim_=claim, tests=RESULT.tests, lease_s=60)
    session.refresh(sub)
    rows = repo.current_tests(session=session, submission=sub)
    assert [(r.index, r.verdict) for r in rows] == [(0, "AC"), (1, "WA")]
    taken = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert taken is None  # held: nobody else claims it
    fenced = replace(claim, token=claim.token + 1)
    assert not repo.record_tests(session=session, claim_=fenced, tests=RESULT.tests, lease_s=60)


def test_progress_rows_are_replaced_by_the_final_result(session: Session) -> None:
    sub = new_submission(session)
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert repo.record_test(session=session, claim_=claim, test=RESULT.tests[0], lease_s=60)
    session.refresh(sub)
    assert len(repo.current_tests(session=session, submission=sub)) == 1
    final = replace(
        RESULT, tests=[dict(RESULT.tests[0], counterexample={"input": {}}), RESULT.tests[1]]
    )
    assert repo.finish(session=session, claim_=claim, outcome=final)
    tests = repo.current_tests(session=session, submission=sub)
    assert [t.index for t in tests] == [0, 1]
    assert tests[0].counterexample == {"input": {}}


def sent(session: Session, submission, *, seconds_ago: float, started_ago: float | None = None):
    """Pretend the row's latest message went out `seconds_ago` (and, if given, that a worker
    claimed it `started_ago`)."""
    values = {"enqueued_at": utcnow() - timedelta(seconds=seconds_ago)}
    if started_ago is not None:
        values["started_at"] = utcnow() - timedelta(seconds=started_ago)
    session.execute(update(Submission).where(Submission.id == submission.id).values(**values))
    session.commit()


def test_sweep_resends_lost_and_abandoned_rows_and_holds_after_max_attempts(
    session: Session,
) -> None:
    lost = new_submission(session, "lost")  # queued, its message lost, no worker busy
    dead = new_submission(session, "dead")  # running, worker died
    hopeless = new_submission(session, "hopeless")  # its worker died on every attempt
    assert repo.claim(session=session, submission_id=dead.id, lease_s=-1)
    for _ in range(3):
        assert repo.claim(session=session, submission_id=hopeless.id, lease_s=-1)
    past = utcnow() - timedelta(minutes=5)
    session.execute(update(Submission).values(enqueued_at=past, started_at=past))
    session.commit()

    stale, held = repo.sweep(session=session, resend_after_s=60, max_attempts=3)
    assert sorted(s.submission_id for s in stale) == sorted([lost.id, dead.id])
    assert held == [hopeless.id]
    session.refresh(hopeless)
    # Not a verdict: the student sees it held; the instructor reads why.
    assert (hopeless.status, hopeless.verdict) == ("held", None)
    assert "interrupted 3 times" in hopeless.hold_reason
    assert repo.judgings(session=session, submission_id=hopeless.id) == []
    assert repo.claim(session=session, submission_id=hopeless.id, lease_s=60) is None
    # Resent rows wait resend_after_s before being resent again.
    assert repo.sweep(session=session, resend_after_s=60, max_attempts=3) == ([], [])


def test_a_healthy_backlog_is_not_resent_and_an_overtaken_row_is(session: Session) -> None:
    # A long queue: the worker is busy with the head, every other row waits behind it.
    head, *waiting = (new_submission(session, f"s{i}") for i in range(4))
    assert repo.claim(session=session, submission_id=head.id, lease_s=60)
    sent(session, head, seconds_ago=100, started_ago=1)
    for age, sub in zip((90, 80, 70), waiting, strict=True):
        sent(session, sub, seconds_ago=age)
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])
    # The worker took a message sent after the first two waiting rows: theirs are lost.
    newest = waiting[-1]
    assert repo.claim(session=session, submission_id=newest.id, lease_s=60)
    stale, _ = repo.sweep(session=session, resend_after_s=10, max_attempts=3)
    assert [s.submission_id for s in stale] == [w.id for w in waiting[:2]]


def test_a_delayed_retry_is_no_sign_that_the_queue_moved_on(session: Session) -> None:
    waiting = new_submission(session, "waiting")
    retried = new_submission(session, "retried")
    busy = new_submission(session, "busy")
    assert repo.claim(session=session, submission_id=busy.id, lease_s=60)
    sent(session, busy, seconds_ago=100, started_ago=1)  # the head of the queue
    sent(session, waiting, seconds_ago=60)
    claim = repo.claim(session=session, submission_id=retried.id, lease_s=60)
    # A database error: given back, its retry a delayed message due in 30 s ...
    assert repo.release(session=session, claim_=claim, failure="OperationalError", retry_in_s=30)
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])
    sent(session, retried, seconds_ago=1)  # ... which a worker took when it was due
    assert repo.claim(session=session, submission_id=retried.id, lease_s=60)
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])


def test_a_message_sent_for_a_release_is_no_sign_that_the_queue_moved_on(
    session: Session,
) -> None:
    """A student's next submission arrived before their previous verdict was released: the
    worker sent it again, delayed until the release. Celery takes a delayed message out of
    the queue at once and runs it at its time, so its claim says nothing of the rows queued
    before it (before this, a class's burst of 300 was resent 103 times)."""
    waiting = new_submission(session, "waiting")
    busy = new_submission(session, "busy")
    previous, delayed = new_submission(session, "carol"), new_submission(session, "carol")
    assert repo.claim(session=session, submission_id=busy.id, lease_s=60)
    sent(session, busy, seconds_ago=100, started_ago=1)  # the head of the queue
    sent(session, waiting, seconds_ago=60)
    sent(session, previous, seconds_ago=100)  # ahead of the waiting row
    claim = repo.claim(session=session, submission_id=previous.id, lease_s=60)
    assert claim and repo.finish(session=session, claim_=claim, outcome=RESULT)
    later = utcnow() + timedelta(seconds=2)
    session.execute(
        update(Submission).where(Submission.id == previous.id).values(released_at=later)
    )
    session.commit()
    sent(session, delayed, seconds_ago=50)
    stale = repo.defer(session=session, submission_id=delayed.id)
    assert isinstance(stale, repo.Stale) and stale.countdown_s > 1  # sent for the release
    sent(session, delayed, seconds_ago=-0.1)  # due, and claimed as it falls due
    session.execute(
        update(Submission).where(Submission.id == previous.id).values(released_at=utcnow())
    )
    session.commit()
    assert repo.claim(session=session, submission_id=delayed.id, lease_s=60)
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])
    # The same claim from the queue's own order would have shown the waiting row lost.
    session.execute(
        update(Submission).where(Submission.id == delayed.id).values(sent_out_of_order=False)
    )
    session.commit()
    stale_rows, _ = repo.sweep(session=session, resend_after_s=10, max_attempts=3)
    assert [s.submission_id for s in stale_rows] == [waiting.id]


def test_a_resent_rows_first_message_claiming_it_is_no_sign_that_the_queue_moved_on(
    session: Session,
) -> None:
    """The sweeper resent a row whose first message was only slow: that first message, still
    at its old place, claims the row stamped with the resend's time. Read as a message sent
    then, it made every row queued in between look overtaken, and their resends more (a
    class's burst on a loaded machine: hundreds)."""
    busy, slow, other, waiting = (new_submission(session, f"u{i}") for i in range(4))
    assert repo.claim(session=session, submission_id=busy.id, lease_s=60)
    sent(session, busy, seconds_ago=100, started_ago=1)  # the head of the queue
    sent(session, slow, seconds_ago=60)
    sent(session, other, seconds_ago=30)
    assert repo.claim(session=session, submission_id=other.id, lease_s=60)  # passed slow's
    sent(session, waiting, seconds_ago=20)
    stale, _ = repo.sweep(session=session, resend_after_s=10, max_attempts=3)
    assert [s.submission_id for s in stale] == [slow.id]
    assert repo.claim(session=session, submission_id=slow.id, lease_s=60)  # its first message
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])
    # Had it been a message first sent at that time, the waiting row's would be lost.
    session.execute(
        update(Submission).where(Submission.id == slow.id).values(sent_out_of_order=False)
    )
    session.commit()
    stale, _ = repo.sweep(session=session, resend_after_s=10, max_attempts=3)
    assert [s.submission_id for s in stale] == [waiting.id]


def test_a_row_waiting_for_its_users_other_submission_is_not_resent(session: Session) -> None:
    first, second = new_submission(session, "alice"), new_submission(session, "alice")
    later = new_submission(session, "bob")
    assert repo.claim(session=session, submission_id=first.id, lease_s=60)
    sent(session, second, seconds_ago=300)
    assert repo.defer(session=session, submission_id=second.id)  # dropped: first is graded
    assert repo.claim(session=session, submission_id=later.id, lease_s=60)
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])
    # Handed on when the first finishes: recorded as sent then, so not resent either.
    assert repo.next_for_user(session=session, submission_id=first.id).submission_id == second.id
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])


def test_a_queue_moving_only_by_dropped_messages_is_not_idle(session: Session) -> None:
    """Every message consumed lately was one dropped for its student's earlier submission
    (a class's burst, its tail): the workers are consuming, so an older row's message is
    still on its way, not lost."""
    waiting = new_submission(session, "ann")  # its message is behind the dropped one
    older, dropped = new_submission(session, "bob"), new_submission(session, "bob")
    for row in (waiting, older, dropped):  # sent long ago; nothing claimed or running
        sent(session, row, seconds_ago=30)
    # Two slots took bob's two messages at once: the newer waits for the older one.
    assert repo.defer(session=session, submission_id=dropped.id) is True  # just now
    assert repo.sweep(session=session, resend_after_s=10, max_attempts=3) == ([], [])


def test_resends_of_a_lost_row_back_off(session: Session) -> None:
    lost = new_submission(session)  # nothing else happens: no worker takes anything

    def resent() -> list[int]:
        stale, _ = repo.sweep(session=session, resend_after_s=10, max_attempts=3)
        return [s.submission_id for s in stale]

    sent(session, lost, seconds_ago=11)
    assert resent() == [lost.id]
    for wait in (20, 40, 80):  # each resend doubles the wait before the next
        sent(session, lost, seconds_ago=wait - 1)
        assert resent() == []
        sent(session, lost, seconds_ago=wait + 1)
        assert resent() == [lost.id]


def test_a_resend_the_broker_refused_does_not_lengthen_the_wait(session: Session) -> None:
    lost = new_submission(session)
    for _ in range(3):  # the broker is down: every resend fails and is handed back
        sent(session, lost, seconds_ago=11)
        stale, _ = repo.sweep(session=session, resend_after_s=10, max_attempts=3)
        assert [s.submission_id for s in stale] == [lost.id]
        repo.unsent(session=session, submission_ids=[lost.id])
    session.refresh(lost)
    assert lost.resends == 0


def test_a_held_submission_is_rejudged_and_finishes_normally(session: Session) -> None:
    sub = new_submission(session)
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert repo.release(session=session, claim_=claim, failure="OperationalError: deadlock")
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert repo.hold(session=session, claim_=claim, interrupted=1)
    session.refresh(sub)
    assert sub.status == "held" and "OperationalError: deadlock" in sub.hold_reason
    assert not repo.finish(session=session, claim_=claim, outcome=RESULT)  # no claim holds it
    assert repo.rejudge(session=session, submission_ids=[sub.id]) == [sub.id]
    session.commit()
    again = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert again is not None and again.attempts == 1
    assert repo.finish(session=session, claim_=again, outcome=RESULT)
    session.refresh(sub)
    assert (sub.status, sub.verdict, sub.hold_reason) == ("done", "WA", None)


def test_finishing_deletes_the_tests_of_superseded_attempts_and_judgings(
    session: Session,
) -> None:
    sub = new_submission(session)
    first = repo.claim(session=session, submission_id=sub.id, lease_s=-1)  # its worker dies
    assert repo.record_test(session=session, claim_=first, test=RESULT.tests[0], lease_s=-1)
    second = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert repo.finish(session=session, claim_=second, outcome=RESULT)
    assert repo.rejudge(session=session, submission_ids=[sub.id]) == [sub.id]
    session.commit()
    third = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert repo.finish(session=session, claim_=third, outcome=RESULT)
    tokens = session.scalars(select(ResultRow.lease_token).where(ResultRow.submission_id == sub.id))
    assert set(tokens) == {third.token}
    assert len(repo.judgings(session=session, submission_id=sub.id)) == 2  # history stays


def test_a_student_is_graded_one_submission_at_a_time(session: Session) -> None:
    first, second, third = (new_submission(session, "alice") for _ in range(3))
    other = new_submission(session, "bob")
    claim = repo.claim(session=session, submission_id=first.id, lease_s=60)
    assert claim is not None
    # Alice's next one waits for her first; Bob's does not.
    assert repo.claim(session=session, submission_id=second.id, lease_s=60) is None
    assert repo.waiting_for_its_user(session=session, submission_id=second.id)
    assert repo.defer(session=session, submission_id=second.id) is True  # handed on later
    assert repo.claim(session=session, submission_id=other.id, lease_s=60) is not None
    assert not repo.waiting_for_its_user(session=session, submission_id=first.id)
    assert repo.next_for_user(session=session, submission_id=first.id) == repo.Stale(
        second.id, "live"
    )
    assert repo.finish(session=session, claim_=claim, outcome=RESULT, release_quantum_s=0)
    assert not repo.waiting_for_its_user(session=session, submission_id=second.id)
    assert repo.claim(session=session, submission_id=second.id, lease_s=-1) is not None
    # An expired lease (a slow or dead worker) still holds the student's newer rows back: the
    # older row is resent and finished first.
    assert repo.claim(session=session, submission_id=third.id, lease_s=60) is None
    assert repo.waiting_for_its_user(session=session, submission_id=third.id)
    again = repo.claim(session=session, submission_id=second.id, lease_s=60)
    assert again is not None and again.attempts == 2
    assert repo.finish(session=session, claim_=again, outcome=RESULT, release_quantum_s=0)
    assert repo.claim(session=session, submission_id=third.id, lease_s=60) is not None


def test_a_students_submissions_are_claimed_oldest_first(session: Session) -> None:
    first, second = new_submission(session, "alice"), new_submission(session, "alice")
    # Two worker slots took both messages; the newer one's claim comes first: refused.
    assert repo.claim(session=session, submission_id=second.id, lease_s=60) is None
    assert repo.waiting_for_its_user(session=session, submission_id=second.id)
    claim = repo.claim(session=session, submission_id=first.id, lease_s=60)
    assert claim is not None
    assert repo.finish(session=session, claim_=claim, outcome=RESULT)
    # An old submission queued for a rejudge does not hold up the student's live work.
    assert repo.rejudge(session=session, submission_ids=[first.id]) == [first.id]
    session.commit()
    assert repo.claim(session=session, submission_id=second.id, lease_s=60) is not None


def test_rejudge_keeps_the_previous_verdict_in_history(session: Session) -> None:
    sub = new_submission(session)
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert repo.finish(session=session, claim_=claim, outcome=replace(RESULT, verdict="AC"))
    assert repo.rejudge(session=session, submission_ids=[sub.id]) == [sub.id]
    session.commit()
    session.refresh(sub)
    assert (sub.status, sub.verdict, sub.attempts, sub.priority) == (
        Status.QUEUED,
        None,
        0,
        "rejudge",
    )
    assert repo.current_tests(session=session, submission=sub) == []
    # A worker still grading the old judging cannot write any more.
    assert not repo.finish(session=session, claim_=claim, outcome=RESULT)
    again = repo.claim(session=session, submission_id=sub.id, lease_s=60)
    assert again is not None and again.attempts == 1
    assert repo.finish(session=session, claim_=again, outcome=RESULT)
    history = repo.judgings(session=session, submission_id=sub.id)
    assert [(j.verdict, j.reason) for j in history] == [
        ("AC", Priority.LIVE),
        ("WA", Priority.REJUDGE),
    ]
    assert [type(j.reason) for j in history] == [Priority, Priority]  # read back as the enum


def test_queue_position_counts_the_queued_rows_ahead_in_the_same_lane(session: Session) -> None:
    first, second, third = (new_submission(session, f"q{i}") for i in range(3))
    for age, sub in zip((30, 20, 10), (first, second, third), strict=True):
        sent(session, sub, seconds_ago=age)
    old = new_submission(session, "old")  # a rejudge: the other lane, however long it waited
    assert repo.claim(session=session, submission_id=old.id, lease_s=60)
    repo.rejudge(session=session, submission_ids=[old.id])
    session.commit()
    sent(session, old, seconds_ago=100)

    def position(sub) -> int | None:
        session.refresh(sub)
        return repo.queue_position(session=session, submission=sub)

    assert [position(s) for s in (first, second, third, old)] == [1, 2, 3, 1]
    assert repo.claim(session=session, submission_id=first.id, lease_s=60)
    assert [position(s) for s in (first, second, third)] == [None, 1, 2]
    sent(session, second, seconds_ago=1)  # resent: its message is now behind the third's
    assert [position(s) for s in (second, third)] == [2, 1]


def test_a_priority_outside_the_enum_is_refused(session: Session) -> None:
    sub = new_submission(session)
    with pytest.raises(StatementError, match="'urgent' is not a valid Priority"):
        session.execute(update(Submission).where(Submission.id == sub.id).values(priority="urgent"))


def test_history_filters_order_and_pages(session: Session) -> None:
    a1 = new_submission(session, "alice", "footholds")
    a2 = new_submission(session, "alice", "numbergame")
    b1 = new_submission(session, "bob", "footholds")
    alice = repo.get_user_by_name(session=session, username="alice")
    page = repo.list_submissions(session=session, user_id=alice.id)
    assert page.total == 2 and [s.id for s in page.items] == [a2.id, a1.id]  # newest first
    page = repo.list_submissions(session=session, problem="footholds")
    assert page.total == 2 and {s.id for s in page.items} == {a1.id, b1.id}
    page = repo.list_submissions(session=session, username="bob")
    assert [(s.id, s.user) for s in page.items] == [(b1.id, "bob")]
    page = repo.list_submissions(session=session, limit=1, offset=1)
    assert page.total == 3 and [s.id for s in page.items] == [a2.id]
    assert page.older and page.newer
    future = utcnow() + timedelta(hours=1)
    assert repo.list_submissions(session=session, since=future).items == []
    assert repo.list_submissions(session=session, since=future).total == 0
    assert repo.list_submissions(session=session, until=future).total == 3
    assert repo.list_submissions(session=session, verdict="AC").items == []


def test_history_rows_are_summaries(session: Session) -> None:
    new_submission(session, "alice", "footholds")
    (row,) = repo.list_submissions(session=session).items
    assert "source" not in row._fields and "password_hash" not in row._fields
    assert row.user == "alice"


def test_history_keyset_pages_walk_every_row_once(session: Session) -> None:
    made = [new_submission(session, "alice", "footholds").id for _ in range(5)]
    newest_first = made[::-1]
    seen, page = [], repo.list_submissions(session=session, limit=2)
    assert not page.newer
    while True:
        seen += [row.id for row in page.items]
        if not page.older:
            break
        last = page.items[-1]
        page = repo.list_submissions(
            session=session, limit=2, after=repo.Position(last.created_at, last.id)
        )
    assert seen == newest_first
    # Back up from the oldest row: the page just before it, newest first.
    oldest = page.items[-1]
    back = repo.list_submissions(
        session=session, limit=2, before=repo.Position(oldest.created_at, oldest.id)
    )
    assert [row.id for row in back.items] == newest_first[2:4] and back.newer and back.older


def test_history_count_is_capped(session: Session) -> None:
    for _ in range(4):
        new_submission(session, "alice", "footholds")
    page = repo.list_submissions(session=session, limit=1, count_cap=3)
    assert (page.total, page.total_exact) == (3, False)
    page = repo.list_submissions(session=session, limit=1, count_cap=4)
    assert (page.total, page.total_exact) == (4, True)


def test_usernames_are_unique(session: Session) -> None:
    repo.create_user(session=session, username="carol", password_hash="x", role=Role.STUDENT)
    with pytest.raises(repo.Conflict):
        repo.create_user(session=session, username="carol", password_hash="y", role=Role.INSTRUCTOR)

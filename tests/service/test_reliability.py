"""Infrastructure failures never become a student's verdict, and a healthy backlog is not
duplicated. The real stack (API, Celery worker, sweeper as processes) on PostgreSQL and
Redis, with real faults: errors raised by the database itself, SIGKILLed workers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import func, select

from api.security import create_token
from store import repo
from store.db import make_engine, make_session_factory
from store.models import Judging, Role, Status, Submission
from tests.service.conftest import started_stack
from tests.service.stack import Stack, solution, wait_for

pytestmark = [pytest.mark.services, pytest.mark.sandbox]

# Far more than the workers grade within JUDGE_RESEND_AFTER_S (3 s: 2 slots, about a second
# a grading), so messages wait in the queue for many sweeps. The same burst at 300, with its
# figures (throughput, submit-to-verdict, lost, duplicated, IE), is `python -m bench --only
# burst` (bench/burst.py).
BURST = 40
# Several each (the hand-on to a student's next submission), about as many in all.
CLASS, EACH = 8, 4


@pytest.fixture(scope="module")
def stack(tmp_path_factory, postgres, redis_main) -> Iterator[Stack]:
    # Two attempts: the held test kills the worker under a grading twice, not three times
    # (each a worker start, a lease's expiry), and still proves the attempts are counted.
    with started_stack(
        "reliability",
        "services",
        tmp_path_factory,
        postgres,
        redis_main,
        runner=False,
        JUDGE_MAX_ATTEMPTS="2",
    ) as running:
        yield running


def dsn(stack: Stack) -> str:
    return stack.env["JUDGE_DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://")


def log_text(stack: Stack, name: str) -> str:
    return (stack.tmp / f"{name}.log").read_text(errors="replace")


# PostgreSQL raises these itself, from a trigger on the progress rows: a deadlock, a
# serialization failure, a lock timeout, a statement timeout, a broken connection.
FAULTS = ["40P01", "40001", "55P03", "57014", "08006"]


@pytest.fixture
def failing_progress_writes(stack: Stack) -> Iterator[None]:
    """The next len(FAULTS) inserts of test rows fail, one with each transient error (a
    sequence counts them: it is not rolled back with the failing transaction)."""
    states = ", ".join(f"'{state}'" for state in FAULTS)
    with psycopg.connect(dsn(stack), autocommit=True) as connection:
        connection.execute("CREATE SEQUENCE injected_faults")
        connection.execute(
            f"""
            CREATE FUNCTION inject_fault() RETURNS trigger AS $$
            DECLARE n bigint := nextval('injected_faults');
            BEGIN
                IF n <= {len(FAULTS)} THEN
                    RAISE EXCEPTION 'injected fault %', n
                        USING ERRCODE = (ARRAY[{states}])[n];
                END IF;
                RETURN NEW;
            END $$ LANGUAGE plpgsql
            """
        )
        connection.execute(
            "CREATE TRIGGER inject_fault BEFORE INSERT ON test_results "
            "FOR EACH ROW EXECUTE FUNCTION inject_fault()"
        )
    try:
        yield
    finally:
        with psycopg.connect(dsn(stack), autocommit=True) as connection:
            connection.execute("DROP TRIGGER inject_fault ON test_results")
            connection.execute("DROP FUNCTION inject_fault()")
            connection.execute("DROP SEQUENCE injected_faults")


def test_transient_database_errors_while_saving_progress_are_retried_not_a_verdict(
    stack: Stack, failing_progress_writes
) -> None:
    token = stack.register("hopper")
    sid = stack.submit(token, "numbergame", solution("numbergame_ok"))
    body = stack.wait_done(token, sid)
    # More failures than JUDGE_MAX_ATTEMPTS, yet one attempt and the right verdict.
    assert (body["verdict"], body["attempts"], len(body["history"])) == ("AC", 1, 1), body
    with psycopg.connect(dsn(stack)) as connection:
        used = connection.execute("SELECT last_value FROM injected_faults").fetchone()[0]
    assert used > len(FAULTS)  # every fault was raised, then the writes went through
    retried = re.findall(r"transient database error", log_text(stack, "worker"))
    assert len(retried) >= len(FAULTS), stack.logs()


def test_a_submission_whose_workers_keep_dying_is_held_for_an_instructor(stack: Stack) -> None:
    token = stack.register("lovelace")
    teacher = stack.instructor()
    sid = stack.submit(token, "footholds", solution("footholds_slow"))
    attempts = int(stack.env["JUDGE_MAX_ATTEMPTS"])
    for attempt in range(1, attempts + 1):
        wait_for(
            lambda n=attempt: (
                stack.detail(teacher, sid)["attempts"] == n
                and stack.detail(teacher, sid)["status"] == "running"
            ),
            timeout=120,
            interval=0.05,
            what=f"attempt {attempt} to start",
            context=stack.logs,
        )
        stack.kill("worker")  # SIGKILL, as the OOM killer or a deploy would
        stack.start_worker()
    held = wait_for(
        lambda: (body := stack.detail(teacher, sid))["status"] == "held" and body,
        timeout=120,
        what="the submission to be held",
        context=stack.logs,
    )
    assert held["verdict"] is None and held["history"] == []
    assert f"interrupted {attempts} times" in held["hold_reason"]
    # The student sees no verdict and no internals: held for review.
    mine = stack.detail(token, sid)
    assert (mine["status"], mine["verdict"], mine["hold_reason"]) == ("held", None, None)
    listed = stack.request("GET", "/api/v1/submissions", token).json()["items"]
    assert [(i["id"], i["status"], i["verdict"]) for i in listed] == [(sid, "held", None)]
    # One click for the instructor: the rejudge grades it as usual.
    response = stack.request("POST", f"/api/v1/submissions/{sid}/rejudge", teacher)
    assert response.status_code == 202, response.text
    body = stack.wait_done(token, sid)
    assert body["verdict"] == "AC" and len(body["history"]) == 1


def burst(stack: Stack, name: str, students: int, each: int) -> dict[str, int]:
    """Submit `each` submissions from each of `students` new students, in rounds (a
    student's next one while others' are still queued, as a class does), wait for every
    verdict, and count what the sweeper and the worker did with them."""
    engine = make_engine(stack.env["JUDGE_DATABASE_URL"])
    factory = make_session_factory(engine)
    secret = stack.env["JUDGE_SECRET_KEY"]
    tokens = []
    with factory() as session:
        for i in range(students):
            user = repo.create_user(
                session=session, username=f"{name}{i}", password_hash="-", role=Role.STUDENT
            )
            session.flush()
            tokens.append(create_token(user_id=user.id, secret=secret, minutes=60))
        session.commit()
    worker_log_before = len(log_text(stack, "worker"))
    source = solution("numbergame_ok")
    # One a round: a student's next message is still queued behind the other students' when
    # the earlier one ends and hands on (bench/burst.py also submits two at a time, where the
    # second is dropped while the first is graded).
    ids = {stack.submit(token, "numbergame", source) for _ in range(each) for token in tokens}

    def all_done() -> bool:
        with factory() as session:
            left = session.scalar(
                select(func.count()).where(Submission.id.in_(ids), Submission.status != Status.DONE)
            )
        return left == 0

    wait_for(all_done, timeout=240, interval=1, what="the burst to be judged", context=stack.logs)
    with factory() as session:
        verdicts = set(session.scalars(select(Submission.verdict).where(Submission.id.in_(ids))))
        judged = dict(
            session.execute(
                select(Judging.submission_id, func.count())
                .where(Judging.submission_id.in_(ids))
                .group_by(Judging.submission_id)
            ).all()
        )
    engine.dispose()
    assert verdicts == {"AC"}  # nothing lost (all done above), no IE, nothing else either
    assert judged == dict.fromkeys(ids, 1), "a submission of the burst was judged twice"
    resent = [
        int(sid)
        for line in re.findall(
            r"resent \d+ of \d+ lost submissions \[([^\]]*)\]", log_text(stack, "sweeper")
        )
        for sid in line.split(",")
        if sid.strip() and int(sid) in ids
    ]
    worker_log = log_text(stack, "worker")[worker_log_before:]
    outcomes = re.findall(r"submission (\d+): (finished|deferred|not claimed)$", worker_log, re.M)
    return {
        "submissions": len(ids),
        "resent": len(resent),
        "received": worker_log.count("] received"),
        # A message dropped while the student's earlier one is graded: handed on after it.
        "deferred": sum(outcome == "deferred" for sid, outcome in outcomes if int(sid) in ids),
        # A message that found its row done or claimed already: a duplicate delivery.
        "duplicates": sum(outcome == "not claimed" for sid, outcome in outcomes if int(sid) in ids),
    }


def test_a_burst_without_faults_is_not_duplicated_by_the_sweeper(stack: Stack) -> None:
    """Many more submissions than the workers grade within JUDGE_RESEND_AFTER_S: their
    messages wait in the queue, and the sweeper must not send them again."""
    # One student each: nobody waits for their own earlier one.
    counts = burst(stack, "burst", students=BURST, each=1)
    # None resent, none delivered twice (0 of 300 when this test ran 300: README, Reliability).
    assert counts["resent"] == 0, counts
    assert counts["received"] == BURST and counts["duplicates"] == 0, counts


def test_a_burst_of_several_submissions_per_student_is_not_duplicated(stack: Stack) -> None:
    """A student's next submission is handed on when the earlier one ends, while older
    messages still wait in the queue: the hand-on sends only a message the worker dropped,
    so nothing is delivered twice and no queued row looks overtaken to the sweeper."""
    counts = burst(stack, "class", students=CLASS, each=EACH)
    assert counts["resent"] == 0, counts
    assert counts["duplicates"] == 0, counts
    # Every delivery either graded its submission or was dropped to be handed on later.
    assert counts["received"] == counts["submissions"] + counts["deferred"], counts


def test_the_log_has_no_unhandled_exceptions(stack: Stack) -> None:
    for name in ("api", "worker", "sweeper"):
        assert "Traceback" not in log_text(stack, name), stack.log_tail(name, 80)

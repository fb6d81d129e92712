"""A burst on the production stack: 300 submissions at once, from as many students and from
30 students of 10 each (a student's next ones handed on as the earlier end), on
PostgreSQL + Redis, the stack configured as the reliability tests configure it (2 grading
slots, 3 s leases, the sweeper resending what waits over 3 s). Far more than the workers
grade within the sweeper's resend delay, so their messages wait in the queue and the sweeper
must tell a backlog from lost messages.

Reported: throughput, submit-to-verdict times (p50, p95, max: from the row's creation to
its verdict), and what must be zero: submissions lost (no verdict after the timeout),
duplicate deliveries (a message that found its row done or claimed already; a message
dropped while the student's earlier submission is graded, to be handed on, is counted
apart), the sweeper's resends, submissions judged more than once, and verdicts other than
AC (IE among them). tests/service/test_reliability.py asserts the zeros on bursts of 40
and of 8 students x 4; this is the same at 300, measured, nothing asserted.

Needs PostgreSQL (127.0.0.1:5432, user postgres, trust, database `test`, where a fresh
database is created and dropped) and Redis (127.0.0.1:6379, a key prefix of its own,
deleted afterwards): the same services as the test suite.

    from bench import burst
    numbers = burst.run(report)
"""

from __future__ import annotations

import os
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from api.security import create_token
from bench.report import Report, percentile, print_line, report_numbers
from bench.scaling import fresh_services
from store import repo
from store.db import make_engine, make_session_factory
from store.models import Judging, Role, Status, Submission
from tests.service.stack import Stack, service_env, solution

SUBMISSIONS = 300
CLASS = 30  # students of the second shape, SUBMISSIONS / CLASS each
TIMEOUT_S = 900.0
RESENT = re.compile(r"resent \d+ of \d+ lost submissions \[([^\]]*)\]")
OUTCOME = re.compile(r"submission (\d+): (finished|deferred|not claimed)$", re.M)


def _log(stack: Stack, name: str) -> str:
    return (stack.tmp / f"{name}.log").read_text(errors="replace")


def measure(
    submissions: int = SUBMISSIONS, students: int | None = None, timeout_s: float = TIMEOUT_S
) -> dict[str, Any]:
    """`students` (default: one per submission) each submit their share two at a time, in
    rounds: the second is dropped while the first is graded, the next round's is still
    queued at the hand-on (tests/service/test_reliability.py submits one a round)."""
    students = students or submissions
    each = submissions // students
    source = solution("numbergame_ok")
    with fresh_services() as services, tempfile.TemporaryDirectory(prefix="judge-burst-") as tmp:
        stack = Stack("burst", Path(tmp), service_env(Path(tmp), **services))
        engine = make_engine(services["JUDGE_DATABASE_URL"])
        try:
            stack.start()
            factory = make_session_factory(engine)
            secret = stack.env["JUDGE_SECRET_KEY"]
            tokens = []
            with factory() as session:
                for i in range(students):
                    user = repo.create_user(
                        session=session, username=f"burst{i}", password_hash="-", role=Role.STUDENT
                    )
                    session.flush()
                    tokens.append(create_token(user_id=user.id, secret=secret, minutes=120))
                session.commit()
            load_before = os.getloadavg()[0]
            started = time.monotonic()
            ids = [
                stack.submit(token, "numbergame", source)
                for _ in range(0, each, 2)
                for token in tokens
                for _ in range(min(2, each))
            ]
            submitted_s = time.monotonic() - started
            deadline = started + timeout_s
            left = submissions
            while left and time.monotonic() < deadline:
                time.sleep(0.5)
                with factory() as session:
                    left = session.scalar(
                        select(func.count()).where(
                            Submission.id.in_(ids), Submission.status != Status.DONE
                        )
                    )
            with factory() as session:
                rows = session.execute(
                    select(Submission.verdict, Submission.created_at, Submission.finished_at).where(
                        Submission.id.in_(ids), Submission.status == Status.DONE
                    )
                ).all()
                judged = dict(
                    session.execute(
                        select(Judging.submission_id, func.count())
                        .where(Judging.submission_id.in_(ids))
                        .group_by(Judging.submission_id)
                    ).all()
                )
            worker_log = _log(stack, "worker")
            received = worker_log.count("] received")
            outcomes = [outcome for _, outcome in OUTCOME.findall(worker_log)]
            resent = [
                int(sid)
                for line in RESENT.findall(_log(stack, "sweeper"))
                for sid in line.split(",")
                if sid.strip() and int(sid) in set(ids)
            ]
        finally:
            stack.stop()
            engine.dispose()
    if not rows:
        raise RuntimeError(f"no verdict at all within {timeout_s:g} s:\n{stack.logs()}")
    latencies = [(done - created).total_seconds() for _, created, done in rows]
    span_s = max(done for _, _, done in rows) - min(created for _, created, _ in rows)
    verdicts = [verdict for verdict, _, _ in rows]
    return {
        "config": "PostgreSQL + Redis, 1 Celery worker of 2 slots, numbergame_ok",
        "submissions": submissions,
        "students": students,
        "cores": os.cpu_count(),
        "load_average_before": round(load_before, 1),
        "submit_all_s": round(submitted_s, 1),
        "throughput_per_min": round(len(rows) / span_s.total_seconds() * 60, 1),
        "latency_p50_s": round(statistics.median(latencies), 2),
        "latency_p95_s": round(percentile(latencies, 0.95), 2),
        "latency_max_s": round(max(latencies), 2),
        "lost": submissions - len(rows),
        "deliveries": received,
        "deferred_deliveries": outcomes.count("deferred"),
        "duplicate_deliveries": outcomes.count("not claimed"),
        "sweeper_resent": len(resent),
        "judged_more_than_once": sum(count > 1 for count in judged.values()),
        "ie_verdicts": verdicts.count("IE"),
        "other_non_ac_verdicts": sum(v not in ("AC", "IE") for v in verdicts),
    }


def run(report: Report | None = None, submissions: int = SUBMISSIONS) -> dict[str, Any]:
    return report_numbers("burst", measure(submissions), report)


def run_class(
    report: Report | None = None, submissions: int = SUBMISSIONS, students: int = CLASS
) -> dict[str, Any]:
    return report_numbers("burst of a class", measure(submissions, students=students), report)


if __name__ == "__main__":
    run(print_line)
    run_class(print_line)

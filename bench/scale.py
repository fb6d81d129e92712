"""A real course's history, measured: `python -m bench scale --submissions N`.

Fills a fresh, uniquely named PostgreSQL database (dropped afterwards) through the project's
own models: N submissions from N/100 students (at least 20), 45 test rows and one judging row
each, spread over 120 days, and an assignment of two problems (its window the fourth month, a
late rule, extensions for one student in twenty); then serves it (API + one worker with Redis,
as in production) and reports p50/p95 of every page and API call the scale issue names, the
assignment's gradebook and the CSV exports, 20 students opening the problems page at once
(also while verdicts keep arriving), and the strength report.

    from bench import scale
    numbers = scale.run(report, submissions=200_000)
"""

from __future__ import annotations

import dataclasses
import json
import random
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import insert, select, text, update

from bench.report import percentile
from judge import problems
from store import credit, repo
from store.db import make_engine, make_session_factory
from store.models import (
    Assignment,
    AssignmentProblem,
    Board,
    Extension,
    Judging,
    Role,
    Submission,
    TestRow,
    User,
)
from store.repo import credit_versions
from tests.service.stack import Stack, service_env, wait_for

PG = "postgres@127.0.0.1:5432"
ADMIN_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"
REDIS_URL = "redis://127.0.0.1:6379/0"
TESTS_PER_SUBMISSION = 45  # 4 samples, 35 random boards, 6 hidden boards
HISTORY_DAYS = 120
SAMPLES = 40  # requests per measurement
CROWD = 20  # students opening the problems page at once
CROWD_ROUNDS = 10
STRENGTH_SEEDS = 20


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much each measurement asks: the defaults are the benchmark's, the smoke test's
    (tests/service/test_bench_postgres.py) are tiny."""

    samples: int = SAMPLES
    crowd: int = CROWD
    crowd_rounds: int = CROWD_ROUNDS
    strength_seeds: int = STRENGTH_SEEDS


PASSWORD = "bench-password-1"
VERDICTS = [("AC", 30), ("WA", 40), ("TLE", 10), ("RE", 14), ("CE", 5), ("IE", 1)]
SOURCE = "def solution(board, aloc, bloc):\n" + "    # a typical student's solution\n" * 40


def _ms(values: list[float]) -> str:
    return (
        f"p50 {1000 * statistics.median(values):.1f} ms, "
        f"p95 {1000 * percentile(values, 0.95):.1f} ms"
    )


# ---- filling ----------------------------------------------------------------------------


def unfilled(model: Any, columns: list[str], python_defaults: bool) -> list[str]:
    """The model's NOT NULL columns that a fill giving `columns` leaves to no default: COPY
    applies only the database's defaults, an `insert()` the models' Python ones too."""
    missing = []
    for column in model.__table__.columns:
        if column.nullable or column.name in columns or column.server_default is not None:
            continue
        if column.primary_key and column.autoincrement in (True, "auto"):
            continue
        if python_defaults and column.default is not None:
            continue
        missing.append(column.name)
    return missing


def _copy(connection: Any, model: Any, columns: list[str], rows: Iterator[tuple]) -> None:
    """COPY rows into a model's table (the fastest bulk insert PostgreSQL has)."""
    # A column added to the models later would otherwise fail the fill minutes in.
    missing = unfilled(model, columns, python_defaults=False)
    if missing:
        raise RuntimeError(f"the fill of {model.__table__.name} sets no {', '.join(missing)}")
    names = ", ".join(f'"{c}"' for c in columns)
    raw = connection.connection.dbapi_connection
    statement = f"COPY {model.__table__.name} ({names}) FROM STDIN"
    with raw.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def _kind(index: int) -> str:
    """The kind of a filled submission's test `index` (what test_rows writes)."""
    if index >= TESTS_PER_SUBMISSION - 6:
        return "hidden"
    return "sample" if index < 4 else "random"


def _test_counts(passed: int) -> dict[str, list[int]]:
    """`submissions.test_counts` of a filled submission whose first `passed` tests pass (what
    the judging's end stores)."""
    counts = credit.count_by_kind(
        (_kind(i), "AC" if i < passed else "WA") for i in range(TESTS_PER_SUBMISSION)
    )
    return {kind: list(pair) for kind, pair in counts.items()}


def fill(url: str, submissions: int, seed: int = 1) -> dict[str, Any]:
    """Students, hidden boards, submissions, their test rows and judgings; returns names the
    measurements need."""
    rng = random.Random(seed)
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    students = max(20, submissions // 100)
    slugs = list(problems.registry())
    verdicts = [v for v, weight in VERDICTS for _ in range(weight)]
    from api.security import Passwords

    password_hash = Passwords().hash(PASSWORD)  # one hash for every student: any can log in
    now = datetime.now(UTC)
    start = now - timedelta(days=HISTORY_DAYS)
    with sessions() as session:
        session.execute(
            insert(User),
            [
                {
                    "username": f"student{i:05d}",
                    "password_hash": password_hash,
                    "role": Role.STUDENT,
                    "created_at": start,
                }
                for i in range(students)
            ],
        )
        user_ids = list(session.scalars(select(User.id).where(User.role == Role.STUDENT)))
        for slug in slugs:
            module = problems.registry()[slug]
            for sample in module.SAMPLES:
                # boards.answer is an integer column: a problem answered otherwise (a word,
                # a bool) gets no stored boards here (nor can an instructor add one yet).
                if type(sample["answer"]) is not int:
                    continue
                session.add(
                    Board(problem=slug, input=sample["input"], answer=sample["answer"], hidden=True)
                )
        session.commit()
        first_id = (session.scalar(select(Submission.id).order_by(Submission.id.desc())) or 0) + 1

    step = (now - start) / max(1, submissions)
    submission_rows = []
    for i in range(submissions):
        created = start + step * i
        verdict = rng.choice(verdicts)
        pending = i >= submissions - max(1, submissions // 2000)  # the newest few still wait
        passed = TESTS_PER_SUBMISSION if verdict == "AC" else rng.randrange(TESTS_PER_SUBMISSION)
        submission_rows.append(
            {
                "id": first_id + i,
                "user_id": rng.choice(user_ids),
                "problem": rng.choice(slugs),
                "source": SOURCE,
                "status": "queued" if pending else "done",
                "verdict": None if pending else verdict,
                "passed": None if pending else passed,
                "total": None if pending else TESTS_PER_SUBMISSION,
                "max_time_ms": None if pending else rng.uniform(1, 900),
                "peak_memory_kb": None if pending else rng.randrange(9000, 60000),
                "seed": rng.randrange(2**31),
                "judge_version": "bench",
                "message": "",
                "sandboxed": True,
                "attempts": 0 if pending else 1,
                "lease_token": 0 if pending else 1,
                "priority": "live",
                "created_at": created,
                "enqueued_at": created,
                "started_at": None if pending else created + timedelta(seconds=0.2),
                "finished_at": None if pending else created + timedelta(seconds=1),
                "test_counts": None if pending else _test_counts(passed),
            }
        )
    missing = unfilled(Submission, list(submission_rows[0]), python_defaults=True)
    if missing:
        raise RuntimeError(f"the fill of submissions sets no {', '.join(missing)}")
    started = time.monotonic()
    with engine.begin() as connection:
        for at in range(0, len(submission_rows), 5000):
            connection.execute(insert(Submission), submission_rows[at : at + 5000])
        connection.execute(
            text("SELECT setval(pg_get_serial_sequence('submissions', 'id'), :last)"),
            {"last": first_id + submissions},
        )
    done = [row for row in submission_rows if row["status"] == "done"]
    board = json.dumps({"board": [[1, 1, 1], [1, 0, 1]], "aloc": [0, 0], "bloc": [1, 2]})

    def test_rows() -> Iterator[tuple]:
        for row in done:
            failing = row["passed"]
            for index in range(TESTS_PER_SUBMISSION):
                kind = _kind(index)
                hidden = kind == "hidden"
                verdict = "AC" if index < failing else row["verdict"]
                yield (
                    row["id"],
                    1,
                    index,
                    kind,
                    verdict,
                    1.5,
                    2.0,
                    9000,
                    "",
                    None if hidden else "small",
                    None if hidden else board,
                    None if hidden else "3",
                    None if hidden else "3",
                    None,
                    None,
                    False,
                )

    def judging_rows() -> Iterator[tuple]:
        for row in done:
            yield (
                row["id"],
                1,
                row["verdict"],
                row["passed"],
                row["total"],
                row["max_time_ms"],
                row["peak_memory_kb"],
                row["seed"],
                "bench",
                "",
                1,
                "live",
                row["finished_at"],
            )

    test_columns = [
        "submission_id", "lease_token", "index", "kind", "verdict", "time_ms", "wall_ms",
        "memory_kb", "message", "profile", "input", "expected", "got", "counterexample",
        "board_id", "output_cut",
    ]  # fmt: skip
    judging_columns = [
        "submission_id", "lease_token", "verdict", "passed", "total", "max_time_ms",
        "peak_memory_kb", "seed", "judge_version", "message", "attempts", "reason",
        "finished_at",
    ]  # fmt: skip
    with engine.begin() as connection:
        _copy(connection, TestRow, test_columns, test_rows())
        _copy(connection, Judging, judging_columns, judging_rows())
    fill_s = time.monotonic() - started
    # What autovacuum would have done by the time a course has this history.
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        connection.execute(text("VACUUM ANALYZE"))
    with sessions() as session:
        deep = session.execute(
            select(Submission.created_at, Submission.id)
            .order_by(Submission.created_at.desc(), Submission.id.desc())
            .offset(min(100_000, submissions // 2))
            .limit(1)
        ).one()
        student = session.execute(
            select(User.username, Submission.id)
            .join(Submission, Submission.user_id == User.id)
            .where(Submission.status == "done")
            .limit(1)
        ).one()
        assignment = _assignment(session, start)
    engine.dispose()
    return {
        "assignment": assignment,
        "students": students,
        "tests": len(done) * TESTS_PER_SUBMISSION,
        "fill_s": fill_s,
        "deep": deep,
        "deep_offset": min(100_000, submissions // 2),
        "student": student.username,
        "student_submission": student.id,
    }


def _assignment(session: Any, start: datetime) -> int:
    """Footholds and numbergame, the 60th to 90th day with two weeks late at 10% a day,
    footholds scored by tests with weights, numbergame on AC with 20 attempts; one student in
    twenty extended by a week. Its gradebook reads every student's submissions then."""
    due = start + timedelta(days=90)
    assignment = Assignment(
        title="Midterm games",
        release_at=start + timedelta(days=60),
        due_at=due,
        late_rule="per_day",
        late_until=due + timedelta(days=14),
        late_percent=10.0,
        counts="best",
    )
    slugs = ["footholds", "numbergame"]
    weights = {"sample": 1, "small": 1, "worst": 2, "random": 1, "hidden": 3}
    assignment.problems = [
        AssignmentProblem(
            position=i,
            problem=slug,
            points=10.0,
            scoring="tests" if slug == "footholds" else "ac",
            weights=weights if slug == "footholds" else None,
            max_attempts=None if slug == "footholds" else 20,
        )
        for i, slug in enumerate(slugs)
    ]
    session.add(assignment)
    session.flush()
    students = session.scalars(select(User.id).where(User.role == Role.STUDENT)).all()
    session.add_all(
        Extension(
            assignment_id=assignment.id,
            user_id=user_id,
            due_at=due + timedelta(days=7),
            late_until=due + timedelta(days=21),
            reason="accommodation",
        )
        for user_id in students[::20]
    )
    session.commit()
    return assignment.id


# ---- measuring --------------------------------------------------------------------------


def _latencies(send: Callable[[], Any], what: str, count: int) -> list[float]:
    """The seconds of `count` requests made by `send`, each of which must succeed."""
    latencies = []
    for _ in range(count):
        began = time.monotonic()
        response = send()
        latencies.append(time.monotonic() - began)
        assert response.status_code < 300, f"{what}: {response.status_code} {response.text}"
    return latencies


def _timed(stack: Stack, path: str, token: str, count: int, method: str = "GET", **kw):
    return _latencies(lambda: stack.request(method, path, token, **kw), path, count)


PROBLEMS_PAGE = ("/problems", "/api/v1/problems", "/api/v1/stats/problems")
FLOOR_PAGE = ("/healthz/api",) * 3  # the same number of requests, each one database round trip


def _crowd(
    stack: Stack,
    tokens: list[str],
    background: Callable[[], None] | None = None,
    paths: tuple[str, ...] = PROBLEMS_PAGE,
    rounds: int = CROWD_ROUNDS,
):
    """Every student opens the problems page (the page, the problem list, the statistics) at
    once, `rounds` times; meanwhile an instructor reads the history."""
    stop = threading.Event()
    history: list[float] = []
    teacher = stack.instructor()

    def instructor_reads() -> None:
        while not stop.is_set():
            history.extend(_timed(stack, "/api/v1/submissions?limit=20", teacher, count=1))
            time.sleep(0.05)

    def student(token: str) -> list[float]:
        import httpx

        out = []
        with httpx.Client(base_url=stack.base_url, timeout=60) as client:
            headers = {"Authorization": f"Bearer {token}"}
            for _ in range(rounds):
                for path in paths:
                    out += _latencies(partial(client.get, path, headers=headers), path, 1)
        return out

    side = [threading.Thread(target=instructor_reads)]
    if background is not None:
        side.append(threading.Thread(target=background, args=(stop,)))
    for thread in side:
        thread.start()
    with ThreadPoolExecutor(len(tokens)) as pool:
        latencies = [value for result in pool.map(student, tokens) for value in result]
    stop.set()
    for thread in side:
        thread.join()
    return latencies, history


def _gradebook_computed(
    stack: Stack, url: str, assignment_id: int, token: str, count: int, *, everyone: bool
):
    """The gradebook's seconds when each read follows a credit change: not served as cached.
    `everyone`: a change to anyone's credit (as an edit or a problem-wide rejudge makes),
    computed in full; otherwise a new submission by another student each time (what a term
    mostly brings), whose row alone is computed and encoded again."""
    engine = make_engine(url)
    path = f"/api/v1/assignments/{assignment_id}/gradebook"
    latencies = []
    try:
        with make_session_factory(engine)() as session:
            students = list(
                session.scalars(
                    select(User.id).where(User.role == Role.STUDENT).order_by(User.id).limit(count)
                )
            )
            problem = session.scalar(
                select(AssignmentProblem.problem)
                .where(AssignmentProblem.assignment_id == assignment_id)
                .order_by(AssignmentProblem.position)
                .limit(1)
            )
            assert problem is not None
        for i in range(count):
            with make_session_factory(engine)() as session:
                if everyone:
                    credit_versions.bump(session=session, assignment_id=assignment_id, user_id=None)
                else:
                    student = students[i % len(students)]
                    repo.create_submission(
                        session=session, user_id=student, problem=problem, source=SOURCE, seed=1
                    )
                session.commit()
            latencies += _timed(stack, path, token, count=1)
    finally:
        engine.dispose()
    return latencies


def _verdicts_arriving(url: str) -> Callable[[threading.Event], None]:
    """Every 0.2 s a student submits and the oldest waiting submission gets its verdict (what
    a busy worker pool does), so the statistics keep changing."""

    def run(stop: threading.Event) -> None:
        engine = make_engine(url)
        rng = random.Random(7)
        with make_session_factory(engine)() as session:
            template = session.scalar(select(Submission).where(Submission.status == "done"))
            assert template is not None
            while not stop.is_set():
                now = datetime.now(UTC)
                session.execute(
                    insert(Submission).values(
                        user_id=template.user_id,
                        problem=template.problem,
                        source=SOURCE,
                        seed=1,
                        status="queued",
                        created_at=now,
                        enqueued_at=now,
                    )
                )
                oldest = session.scalar(
                    select(Submission.id)
                    .where(Submission.status == "queued")
                    .order_by(Submission.id)
                    .limit(1)
                )
                session.execute(
                    update(Submission)
                    .where(Submission.id == oldest)
                    .values(
                        status="done",
                        verdict=rng.choice(["AC", "WA"]),
                        passed=0,
                        total=TESTS_PER_SUBMISSION,
                        finished_at=now,
                    )
                )
                session.commit()
                time.sleep(0.2)
        engine.dispose()

    return run


def _strength(stack: Stack, teacher: str, report: Callable[[str, str], None], sizes: Sizes) -> None:
    path = f"/api/v1/problems/footholds/strength?seeds={sizes.strength_seeds}&suggestions=true"
    began = time.monotonic()
    first = stack.request("GET", path, teacher)
    answered = time.monotonic() - began
    report(
        "strength report, first request answered", f"{1000 * answered:.1f} ms ({first.status_code})"
    )

    def ready() -> bool:
        response = stack.request("GET", path, teacher)
        return response.status_code == 200 and "mutants" in response.json()

    wait_for(ready, timeout=300, interval=0.2, what="the strength report", context=stack.logs)
    report("strength report ready (computed by the worker)", f"{time.monotonic() - began:.1f} s")
    report("strength report, cached", _ms(_timed(stack, path, teacher, sizes.samples)))
    board = {"input": problems.registry()["footholds"].SAMPLES[0]["input"]}
    check = "/api/v1/problems/footholds/strength/board"
    # The API's first check fills its memory of the mutants' answers in the background (202).
    began = time.monotonic()
    first = stack.request("POST", check, teacher, json=board)
    answered = time.monotonic() - began
    report(
        "board editor's 'would kill' check, first request answered",
        f"{1000 * answered:.1f} ms ({first.status_code})",
    )
    wait_for(
        lambda: stack.request("POST", check, teacher, json=board).status_code == 200,
        timeout=300,
        interval=0.2,
        what="the board check",
        context=stack.logs,
    )
    report("board editor's 'would kill' check ready", f"{time.monotonic() - began:.1f} s")
    kills = _timed(stack, check, teacher, sizes.samples, method="POST", json=board)
    report("board editor's 'would kill' check, memory filled", _ms(kills))


def measure(
    url: str, info: dict[str, Any], report: Callable[[str, str], None], sizes: Sizes = Sizes()
) -> None:
    with tempfile.TemporaryDirectory(prefix="judge-bench-scale-") as tmp:
        env = service_env(
            Path(tmp),
            JUDGE_DATABASE_URL=url,
            JUDGE_BROKER_URL=REDIS_URL,
            JUDGE_BROKER_KEY_PREFIX=f"judge-bench-{uuid.uuid4().hex[:8]}:",
            JUDGE_WORKER_SLOTS="1",
        )
        stack = Stack("scale", Path(tmp), env)
        try:
            stack.setup()
            stack.start_api()
            stack.start_worker()
            teacher = stack.instructor()
            student = stack.login(info["student"], PASSWORD)
            deep_at, deep_id = info["deep"]
            micros = (deep_at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
            history = "/api/v1/submissions?limit=20"
            deep = info["deep_offset"]
            calls = [
                ("instructor: history, newest first", history, teacher),
                ("instructor: history by verdict (WA)", f"{history}&verdict=WA", teacher),
                ("instructor: history by problem", f"{history}&problem=footholds", teacher),
                (
                    "instructor: history of one student",
                    f"{history}&user={info['student']}",
                    teacher,
                ),
                (
                    f"instructor: history at row {deep:,} (cursor)",
                    f"{history}&cursor=o.{micros}.{deep_id}",
                    teacher,
                ),
                (
                    f"instructor: history at row {deep:,} (offset)",
                    f"{history}&offset={deep}",
                    teacher,
                ),
                ("student: own history", history, student),
                (
                    "student: a problem page's recent submissions",
                    "/api/v1/submissions?limit=5&problem=footholds",
                    student,
                ),
                (
                    "student: a submission's detail",
                    f"/api/v1/submissions/{info['student_submission']}",
                    student,
                ),
                ("student: /stats/problems", "/api/v1/stats/problems", student),
                ("student: /problems/footholds/plan", "/api/v1/problems/footholds/plan", student),
                ("student: /problems", "/api/v1/problems", student),
                (
                    "instructor: problem statistics, 30 days",
                    "/api/v1/problems/footholds/stats?days=30",
                    teacher,
                ),
                (
                    "instructor: problem statistics, 366 days",
                    "/api/v1/problems/numbergame/stats?days=366",
                    teacher,
                ),
                ("instructor: course progress (JSON)", "/api/v1/progress", teacher),
                ("instructor: course progress (CSV)", "/api/v1/progress.csv", teacher),
                (
                    "instructor: one student's submissions (CSV)",
                    f"/api/v1/submissions.csv?user={info['student']}",
                    teacher,
                ),
                (
                    "instructor: failures per hidden board",
                    "/api/v1/problems/footholds/boards/report",
                    teacher,
                ),
                (
                    "instructor: an assignment's gradebook (JSON)",
                    f"/api/v1/assignments/{info['assignment']}/gradebook",
                    teacher,
                ),
                ("instructor: gradebook CSV (Canvas)", "/api/v1/gradebook.canvas.csv", teacher),
                ("instructor: gradebook CSV (Moodle)", "/api/v1/gradebook.moodle.csv", teacher),
                ("student: own assignments and scores", "/api/v1/assignments/mine", student),
                ("page: /submissions (HTML)", "/submissions", student),
                ("page: /problems (HTML)", "/problems", student),
            ]
            floor = statistics.median(_timed(stack, "/healthz/api", "", sizes.samples))
            report(
                "floor: GET /healthz/api (HTTP + one database round trip)",
                f"p50 {1000 * floor:.1f} ms",
            )
            for name, path, token in calls:
                first = _timed(stack, path, token, count=1)[0]
                rest = _timed(stack, path, token, sizes.samples)
                ratio = statistics.median(rest) / floor
                report(name, f"{_ms(rest)} ({ratio:.1f}x floor; first {1000 * first:.0f} ms)")
            for everyone, name in (
                (False, "instructor: the gradebook after a student's submission (by rows)"),
                (True, "instructor: the gradebook after a credit change for everyone (computed)"),
            ):
                computed = _gradebook_computed(
                    stack, url, info["assignment"], teacher, sizes.samples, everyone=everyone
                )
                report(name, _ms(computed))
            export = _timed(stack, "/api/v1/submissions.csv", teacher, count=1)[0]
            report("instructor: every submission as CSV (once)", f"{1000 * export:.0f} ms")
            crowd_size, rounds = sizes.crowd, sizes.crowd_rounds
            tokens = [stack.login(f"student{i:05d}", PASSWORD) for i in range(crowd_size)]
            floor_crowd, _ = _crowd(stack, tokens, paths=FLOOR_PAGE, rounds=rounds)
            report(f"floor: {crowd_size} at once, GET /healthz/api x 3 each", _ms(floor_crowd))
            crowd, history = _crowd(stack, tokens, rounds=rounds)
            ratio = percentile(crowd, 0.95) / percentile(floor_crowd, 0.95)
            report(
                f"{crowd_size} students open the problems page at once",
                f"{_ms(crowd)} ({ratio:.1f}x floor p95)",
            )
            report("  meanwhile an instructor's history", _ms(history))
            crowd, history = _crowd(stack, tokens, _verdicts_arriving(url), rounds=rounds)
            report(f"{crowd_size} at once, a verdict stored every 0.2 s", _ms(crowd))
            report("  meanwhile an instructor's history", _ms(history))
            if sizes.strength_seeds:  # 0: left out (the smoke test; the worker computes ~20 s)
                _strength(stack, teacher, report, sizes)
        finally:
            stack.stop()


def run(
    report: Callable[[str, str], None], submissions: int = 200_000, sizes: Sizes = Sizes()
) -> None:
    name = f"judge_scale_{uuid.uuid4().hex[:10]}"
    admin = psycopg.connect(ADMIN_DSN, autocommit=True, connect_timeout=5)
    admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql+psycopg://{PG}/{name}"
    try:
        from store.migrate import upgrade

        upgrade(url)
        info = fill(url, submissions)
        report(
            "filled",
            f"{submissions:,} submissions, {info['tests']:,} test rows, "
            f"{info['students']:,} students in {info['fill_s']:.0f} s",
        )
        measure(url, info, report, sizes)
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()

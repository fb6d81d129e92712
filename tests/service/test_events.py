"""The live-progress stream (GET /submissions/{id}/events) fed by one shared poller.

The real app from the factory is served by uvicorn on a thread of the test process, on a
socket of its own, and read over HTTP by an asyncio client (so a test can hold a hundred
streams open). The database is real (SQLite file and PostgreSQL, migrated), and the test
writes what a worker would through the store's own functions (claim, record_test, finish).
No worker, no broker, no sandbox. Waits are generous and event-driven; nothing asserts a
duration.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import uvicorn
from sqlalchemy import Engine, delete, event

from api.main import create_app
from api.security import create_token, token_user_id
from api.services import services_of
from config import Settings
from store import repo
from store.db import make_engine, make_session_factory
from store.migrate import upgrade
from store.models import Role, Submission, utcnow
from store.outcome import JudgingOutcome

SECRET = "events-test-secret-" + "x" * 32
WAIT_S = 60  # generous: the machine may be busy with other work
SECRET_MESSAGE = "the hidden board said something private"


# ---- database and server ------------------------------------------------------------------


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database(request, tmp_path_factory, postgres) -> str:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('events') / 'judge.sqlite'}"
    else:
        url = postgres()
    upgrade(url)
    return url


@pytest.fixture(scope="module")
def engine(database: str) -> Iterator[Engine]:
    engine = make_engine(database)
    yield engine
    engine.dispose()


def run_async(coroutine):
    """Run a coroutine to its end on a fresh event loop in a thread of its own: the test
    process may already run a loop on this thread (Playwright's, in the browser tests)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class Server:
    """create_app(settings) under uvicorn on a thread, listening on its own free port."""

    def __init__(self, settings: Settings) -> None:
        self.app = create_app(settings, enqueue=lambda *args, **kwargs: True)
        self.hub = services_of(self.app).events
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, log_config=None, timeout_graceful_shutdown=5)
        )
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def start(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + WAIT_S
        while not self.server.started:
            assert self.thread.is_alive(), "the server thread died"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT_S)
        self.sock.close()
        services_of(self.app).engine.dispose()


@pytest.fixture
def serve(database: str, tmp_path: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start(**overrides: Any) -> Server:
        settings = Settings(
            database_url=database,
            data_dir=tmp_path,
            secret_key=SECRET,
            events_poll_s=0.05,
            **overrides,
        )
        server = Server(settings).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


# ---- what a worker would write, through the store's functions ------------------------------


class Store:
    def __init__(self, engine: Engine) -> None:
        self.factory = make_session_factory(engine)

    def user(self, role: Role = Role.STUDENT) -> dict[str, str]:
        """A new user (unique name: the database is shared by the module) and its headers."""
        with self.factory() as session:
            user = repo.create_user(
                session=session,
                username=f"u{uuid.uuid4().hex[:12]}",
                password_hash="not-used",
                role=role,
            )
            session.commit()
            token = create_token(user_id=user.id, secret=SECRET, minutes=30)
        return {"Authorization": f"Bearer {token}"}

    def submission(self, headers: dict[str, str]) -> int:
        user_id = token_user_id(headers["Authorization"].split()[1], SECRET)
        assert user_id is not None
        with self.factory() as session:
            sub = repo.create_submission(
                session=session, user_id=user_id, problem="numbergame", source="x = 1", seed=7
            )
            session.commit()
            return sub.id

    def claim(self, submission_id: int) -> repo.Claim:
        with self.factory() as session:
            claim = repo.claim(session=session, submission_id=submission_id, lease_s=60)
        assert claim is not None
        return claim

    def record(self, claim: repo.Claim, *tests: dict[str, Any]) -> None:
        with self.factory() as session:
            for test in tests:
                assert repo.record_test(session=session, claim_=claim, test=test, lease_s=60)

    def finish(self, claim: repo.Claim, *tests: dict[str, Any], quantum_s: float = 1.0) -> None:
        passed = sum(t["verdict"] == "AC" for t in tests)
        result = JudgingOutcome(
            verdict="AC" if passed == len(tests) else "WA",
            passed=passed,
            total=len(tests),
            judge_version="test",
            tests=list(tests),
        )
        with self.factory() as session:
            assert repo.finish(
                session=session, claim_=claim, outcome=result, release_quantum_s=quantum_s
            )

    def released_at(self, submission_id: int) -> datetime:
        with self.factory() as session:
            sub = session.get(Submission, submission_id)
            assert sub is not None and sub.released_at is not None
            return sub.released_at

    def hold(self, problem: str, until: datetime | None) -> None:
        with self.factory() as session:
            repo.set_hidden_release(session=session, problem=problem, at=until, user_id=None)
            session.commit()

    def rejudge(self, submission_id: int) -> None:
        with self.factory() as session:
            assert repo.rejudge(session=session, submission_ids=[submission_id])
            session.commit()

    def delete(self, submission_id: int) -> None:
        with self.factory() as session:
            session.execute(delete(Submission).where(Submission.id == submission_id))
            session.commit()


@pytest.fixture
def store(engine: Engine) -> Store:
    return Store(engine)


def row_of(index: int, kind: str, verdict: str = "AC") -> dict[str, Any]:
    row: dict[str, Any] = {"index": index, "kind": kind, "verdict": verdict, "time_ms": 1.5}
    if kind == "hidden":
        row.update(message=SECRET_MESSAGE, memory_kb=99, board_id=1)
    else:
        row.update(input={"board": [index, 2]}, expected=2, got=2)
    return row


# ---- reading streams ----------------------------------------------------------------------


async def until(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT_S
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {WAIT_S} s waiting for {what}")
        await asyncio.sleep(0.02)
    return value


class Events:
    """One stream read by a task: its events as (name, data, id), until the server ends it
    (`ended`) or the test closes it (a client disconnect)."""

    def __init__(self, client: httpx.AsyncClient, submission_id: int, headers) -> None:
        self.status_code: int | None = None
        self.response_headers: httpx.Headers | None = None
        self.body: Any = None
        self.items: list[tuple[str, Any, str | None]] = []
        self.comments: list[str] = []
        self.ended = False
        url = f"/api/v1/submissions/{submission_id}/events"
        self.task = asyncio.create_task(self._read(client, url, headers))

    async def _read(self, client: httpx.AsyncClient, url: str, headers) -> None:
        async with client.stream("GET", url, headers=headers) as response:
            self.response_headers = response.headers
            if response.status_code != 200:
                body = await response.aread()
                self.body = (
                    json.loads(body)
                    if response.headers.get("content-type", "").startswith("application/json")
                    else body.decode(errors="replace")
                )
                self.status_code, self.ended = response.status_code, True
                return
            self.status_code = response.status_code
            assert response.headers["content-type"].startswith("text/event-stream")
            name, data, event_id = None, [], None
            async for line in response.aiter_lines():
                if line.startswith(":"):
                    self.comments.append(line)
                elif line.startswith("id:"):
                    event_id = line.split(":", 1)[1].strip()
                elif line.startswith("event:"):
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    data.append(line.split(":", 1)[1].strip())
                elif not line and name:
                    self.items.append((name, json.loads("\n".join(data)), event_id))
                    name, data, event_id = None, [], None
        self.ended = True

    async def started(self) -> int:
        await until(lambda: self.status_code is not None or self.task.done(), "an answer")
        if self.status_code is None:
            self.task.result()  # the reader failed: say why
        assert self.status_code is not None
        return self.status_code

    def names(self) -> list[str]:
        return [name for name, _, _ in self.items]

    def tests(self) -> list[tuple[str | None, dict[str, Any]]]:
        return [(event_id, data) for name, data, event_id in self.items if name == "test"]

    def statuses(self) -> list[str]:
        return [data["status"] for name, data, _ in self.items if name == "status"]

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)

    async def finished(self) -> None:
        await until(self.task.done, "the server to end the stream")
        self.task.result()
        assert self.ended


async def open_when_free(client: httpx.AsyncClient, sid: int, headers) -> Events:
    """Open a stream, again while a 429 says the place is not free yet (the server notices
    a disconnect or ends a stream on its own time)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        stream = Events(client, sid, headers)
        if await stream.started() == 200:
            return stream
        assert stream.status_code == 429
        assert time.monotonic() < deadline, "the place was never freed"
        await asyncio.sleep(0.05)


def client_for(server: Server) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=server.url,
        timeout=httpx.Timeout(WAIT_S, read=None),
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=0),
    )


# ---- the contract, and hidden tests -------------------------------------------------------


def test_students_get_hidden_tests_only_with_the_verdict_instructors_live(serve, store) -> None:
    """status / test (id token:index, the cursor restarting with a new judging) / done with
    the GET body; a student's hidden test events come only just before `done`."""
    server = serve()
    alice, teacher = store.user(), store.user(Role.INSTRUCTOR)
    sid = store.submission(alice)

    tokens: list[int] = []

    async def scenario() -> tuple[Events, Events, dict, dict]:
        async with client_for(server) as client:
            student, instructor = Events(client, sid, alice), Events(client, sid, teacher)
            for stream in (student, instructor):
                assert await stream.started() == 200
                await until(lambda s=stream: s.statuses() == ["queued"], "the first status")

            # A first judging, interrupted by a rejudge after a sample and a hidden test.
            first = store.claim(sid)
            tokens.append(first.token)
            store.record(first, row_of(0, "sample"), row_of(1, "hidden"))
            await until(lambda: len(instructor.tests()) == 2, "the instructor's hidden test")
            await until(student.tests, "the student's sample")
            store.rejudge(sid)
            await until(lambda: student.statuses()[-1:] == ["queued"], "the rejudge")
            await until(lambda: instructor.statuses()[-1:] == ["queued"], "the rejudge")

            # The second judging: sample, hidden, random, then the verdict.
            second = store.claim(sid)
            tokens.append(second.token)
            tests = [row_of(0, "sample"), row_of(1, "hidden"), row_of(2, "random", "WA")]
            store.record(second, *tests)
            await until(lambda: len(instructor.tests()) == 5, "the instructor's tests")
            last = f"{second.token}:2"
            await until(lambda: last in dict(student.tests()), "the student's random test")
            # Both streams were served by the same polls: the student's random test has
            # arrived, and the hidden test recorded before it has not.
            assert [data["index"] for _, data in student.tests()] == [0, 0, 2]
            store.finish(second, *tests)
            await student.finished()
            await instructor.finished()
            as_student = (await client.get(f"/api/v1/submissions/{sid}", headers=alice)).json()
            as_teacher = (await client.get(f"/api/v1/submissions/{sid}", headers=teacher)).json()
            return student, instructor, as_student, as_teacher

    student, instructor, as_student, as_teacher = run_async(scenario())
    one, two = tokens

    # Instructors: everything live, in order, with the hidden test's details.
    assert instructor.names() == [
        *["status", "status", "test", "test"],  # queued, running, #0 and #1 of the first
        *["status", "status", "test", "test", "test"],  # queued, running, #0..#2 again
        *["status", "done"],
    ]
    assert instructor.statuses() == ["queued", "running", "queued", "running", "done"]
    assert [event_id for event_id, _ in instructor.tests()] == [
        f"{one}:0",
        f"{one}:1",
        f"{two}:0",
        f"{two}:1",
        f"{two}:2",
    ]
    assert instructor.tests()[3][1]["message"] == SECRET_MESSAGE
    assert instructor.items[-1][1] == as_teacher

    # Students: the first judging's hidden test never comes (that judging never ended); the
    # second's comes after the later random test, right before `done`, without its details.
    assert student.names() == [
        *["status", "status", "test"],
        *["status", "status", "test", "test"],
        *["status", "test", "done"],
    ]
    assert student.statuses() == ["queued", "running", "queued", "running", "done"]
    assert [event_id for event_id, _ in student.tests()] == [
        f"{one}:0",
        f"{two}:0",
        f"{two}:2",
        f"{two}:1",
    ]
    hidden = student.tests()[-1][1]
    assert {k for k, v in hidden.items() if v is not None} == {"index", "kind", "verdict"}
    assert SECRET_MESSAGE not in json.dumps(student.items)
    assert student.items[-1][1] == as_student and as_student["verdict"] == "WA"
    assert server.hub.open_streams() == 0


def test_a_students_done_comes_when_the_judging_is_released_not_when_it_ended(serve, store) -> None:
    """The status stays `running` for the student from the end of the judging (F) to its
    release (R = S + Q * ceil((F - S) / Q)); the instructor is told at once."""
    server = serve()
    alice, teacher = store.user(), store.user(Role.INSTRUCTOR)
    sid = store.submission(alice)
    seen: dict[str, Any] = {}

    async def scenario() -> tuple[Events, Events]:
        async with client_for(server) as client:
            student, instructor = Events(client, sid, alice), Events(client, sid, teacher)
            for stream in (student, instructor):
                assert await stream.started() == 200
                await until(lambda s=stream: s.statuses() == ["queued"], "the first status")
            claim = store.claim(sid)
            tests = [row_of(0, "sample"), row_of(1, "hidden", "WA")]
            store.record(claim, *tests)
            await until(student.tests, "the student's sample")
            await until(lambda: len(instructor.tests()) == 2, "the instructor's hidden test")
            store.finish(claim, *tests, quantum_s=3.0)
            release = store.released_at(sid)
            await instructor.finished()
            seen["instructor_done_at"] = utcnow()
            seen["student_before"] = list(student.items)
            detail = await client.get(f"/api/v1/submissions/{sid}", headers=alice)
            seen["detail_before"] = detail.json()
            await student.finished()
            seen["student_done_at"] = utcnow()
            seen["release"] = release
            return student, instructor

    student, instructor = run_async(scenario())
    release = seen["release"]
    assert instructor.names()[-1] == "done" and seen["instructor_done_at"] < release
    # Until R the student's stream said nothing of the end, and the detail agreed.
    assert [name for name, _, _ in seen["student_before"]] == ["status", "status", "test"]
    before = seen["detail_before"]
    assert (before["status"], before["verdict"], before["finished_at"]) == ("running", None, None)
    assert before["started_at"] is None and [t["kind"] for t in before["tests"]] == ["sample"]
    assert seen["student_done_at"] >= release
    # The hidden test comes with the verdict, at R.
    assert student.names() == ["status", "status", "test", "status", "test", "done"]
    assert [data["kind"] for _, data in student.tests()] == ["sample", "hidden"]
    assert student.statuses() == ["queued", "running", "done"]
    done = student.items[-1][1]
    assert (done["verdict"], done["passed"], done["total"]) == ("WA", 1, 2)
    assert datetime.fromisoformat(done["finished_at"]) >= release
    assert datetime.fromisoformat(done["finished_at"]).microsecond == 0


def test_while_its_problem_holds_hidden_results_a_students_done_has_none(serve, store) -> None:
    server = serve()
    alice = store.user()
    sid = store.submission(alice)
    store.hold("numbergame", utcnow() + timedelta(hours=1))

    async def scenario() -> Events:
        async with client_for(server) as client:
            student = Events(client, sid, alice)
            assert await student.started() == 200
            claim = store.claim(sid)
            tests = [row_of(0, "sample"), row_of(1, "hidden", "WA"), row_of(2, "random")]
            store.record(claim, *tests)
            await until(lambda: len(student.tests()) == 2, "the visible tests")
            store.finish(claim, *tests, quantum_s=0)
            await student.finished()
            return student

    try:
        student = run_async(scenario())
    finally:
        store.hold("numbergame", None)
    done = student.items[-1][1]
    assert student.names()[-1] == "done"
    assert [data["kind"] for _, data in student.tests()] == ["sample", "random"]
    assert (done["verdict"], done["passed"], done["total"]) == ("AC", 2, 2)
    assert done["hidden_pending"] is True and done["hidden_release_at"] is not None
    assert [t["kind"] for t in done["tests"]] == ["sample", "random"]


def user_id_of(headers: dict[str, str]) -> int:
    user_id = token_user_id(headers["Authorization"].split()[1], SECRET)
    assert user_id is not None
    return user_id


@pytest.mark.parametrize("revoke", ["disable", "new password"])
def test_a_stream_ends_without_a_word_when_its_viewer_is_disabled_or_reset(
    serve, store, revoke: str
) -> None:
    """Streams re-check their viewer on every tick: after PATCH /users/{id} {"disabled":
    true} or POST /users/{id}/password the open stream ends, and nothing recorded after it
    (a test, the verdict) reaches it."""
    server = serve()
    alice, teacher = store.user(), store.user(Role.INSTRUCTOR)
    sid = store.submission(alice)

    async def scenario() -> tuple[Events, Events, int]:
        async with client_for(server) as client:
            student, instructor = Events(client, sid, alice), Events(client, sid, teacher)
            for stream in (student, instructor):
                assert await stream.started() == 200
            claim = store.claim(sid)
            store.record(claim, row_of(0, "sample"))
            await until(student.tests, "the student's sample")
            url = f"/api/v1/users/{user_id_of(alice)}"
            if revoke == "disable":
                answer = await client.patch(url, json={"disabled": True}, headers=teacher)
            else:
                answer = await client.post(f"{url}/password", headers=teacher)
            assert answer.status_code == 200, answer.text
            seen = len(student.items)
            store.record(claim, row_of(1, "random"))
            store.finish(claim, row_of(0, "sample"), row_of(1, "random"), quantum_s=0)
            await student.finished()  # the server ended it: no timeout, no reconnect
            await instructor.finished()
            again = await client.get(f"/api/v1/submissions/{sid}/events", headers=alice)
            assert again.status_code == 401
            return student, instructor, seen

    student, instructor, seen = run_async(scenario())
    # (one status event or two: the poller may see the claim and the first test together)
    assert student.names()[-1] == "test" and student.names().count("test") == 1
    assert "done" not in student.names() and len(student.items) == seen
    assert instructor.names()[-1] == "done"  # the instructor's stream goes on
    assert server.hub.open_streams() == 0


# ---- the per-user limit -------------------------------------------------------------------


def test_the_per_user_limit_answers_429_and_every_end_frees_a_place(serve, store) -> None:
    server = serve(events_per_user=2)
    alice, bob = store.user(), store.user()
    # `third` is alice's oldest: the one a worker may claim while the others wait.
    third, first, second = (store.submission(alice) for _ in range(3))
    bobs = store.submission(bob)

    async def scenario() -> None:
        async with client_for(server) as client:
            a1, a2 = Events(client, first, alice), Events(client, second, alice)
            assert [await a1.started(), await a2.started()] == [200, 200]
            limited = Events(client, third, alice)
            assert await limited.started() == 429
            assert limited.response_headers is not None
            assert int(limited.response_headers["retry-after"]) >= 1
            assert "at most 2 live-progress streams per user" in limited.body["detail"]
            other = Events(client, bobs, bob)
            assert await other.started() == 200  # the limit is per user

            # A client that goes away gives its place back.
            await a1.close()
            a3 = await open_when_free(client, third, alice)
            assert await Events(client, first, alice).started() == 429

            # So does a stream the server ends: `gone` ...
            store.delete(second)
            await a2.finished()
            assert a2.names()[-1] == "gone"
            a4 = await open_when_free(client, first, alice)

            # ... and `done`.
            claim = store.claim(third)
            store.finish(claim, row_of(0, "sample"))
            await a3.finished()
            assert a3.names()[-1] == "done"
            a5 = await open_when_free(client, third, alice)  # done at once
            await a5.finished()
            assert a5.names() == ["status", "done"]
            for stream in (a4, other):
                await stream.close()
            await until(lambda: server.hub.open_streams() == 0, "every place to be free")

    run_async(scenario())


def test_quiet_streams_get_keep_alives_then_time_out_and_free_their_place(serve, store) -> None:
    server = serve(events_per_user=1, events_timeout_s=1.0)
    server.hub.keepalive_s = 0.1
    alice = store.user()
    sid = store.submission(alice)

    async def scenario() -> None:
        async with client_for(server) as client:
            quiet = Events(client, sid, alice)
            assert await quiet.started() == 200
            assert await Events(client, sid, alice).started() == 429
            await quiet.finished()
            assert quiet.comments and set(quiet.comments) == {": keep-alive"}
            assert quiet.names() == ["status", "timeout"]
            assert quiet.items[-1][1] == {"id": sid}
            again = await open_when_free(client, sid, alice)  # the timed-out one's place
            await again.close()

    run_async(scenario())


# ---- many streams -------------------------------------------------------------------------


def test_a_hundred_open_streams_leave_the_pool_to_other_requests(serve, store, caplog) -> None:
    """100 streams (more than the pool's 5 + 10 connections): while they wait, only the
    poller touches the database, one connection and two queries a poll; other requests
    still answer, and every stream still gets its verdict."""
    per_user, users = 4, 25
    server = serve(events_per_user=per_user)
    students = [store.user() for _ in range(users)]
    subs = [(h, store.submission(h)) for h in students for _ in range(per_user)]
    engine = services_of(server.app).engine
    seen: dict[str, Any] = {"in_use": 0, "max_in_use": 0, "statements": []}

    def checkout(*_args) -> None:
        seen["in_use"] += 1
        seen["max_in_use"] = max(seen["max_in_use"], seen["in_use"])

    def checkin(*_args) -> None:
        seen["in_use"] -= 1

    def statement(_conn, _cursor, sql: str, *_args) -> None:
        seen["statements"].append((threading.current_thread().name, sql))

    async def scenario() -> None:
        async with client_for(server) as client:
            streams = [Events(client, sid, headers) for headers, sid in subs]
            assert [await s.started() for s in streams] == [200] * len(subs)
            await until(lambda: all(s.statuses() == ["queued"] for s in streams), "statuses")
            assert server.hub.open_streams() == len(subs)

            # A quiet while with every stream open: count connections and statements.
            event.listen(engine.pool, "checkout", checkout)
            event.listen(engine.pool, "checkin", checkin)
            event.listen(engine, "before_cursor_execute", statement)
            try:
                seen.update(in_use=0, max_in_use=0, statements=[])
                ticks = server.hub.ticks
                await until(lambda: server.hub.ticks >= ticks + 5, "five polls")
                polls = server.hub.ticks - ticks
                window = list(seen["statements"])
                max_in_use = seen["max_in_use"]
            finally:
                event.remove(engine, "before_cursor_execute", statement)
                event.remove(engine.pool, "checkin", checkin)
                event.remove(engine.pool, "checkout", checkout)
            threads = {name for name, _ in window}
            selects = [sql for _, sql in window if sql.lstrip().upper().startswith("SELECT")]
            assert threads <= {"judge-events_0"}, threads
            assert max_in_use <= 1
            # Two queries per poll for all of them (give or take the polls at both edges):
            # their progress, and their viewers' standing (a disabled one's stream ends).
            progress = [sql for sql in selects if "FROM submissions" in sql]
            standings = [sql for sql in selects if "FROM users" in sql]
            assert len(progress) + len(standings) == len(selects), selects
            assert polls - 1 <= len(progress) <= polls + 1, selects
            assert polls - 1 <= len(standings) <= polls + 1, selects

            # Another user's ordinary requests answer.
            outsider = store.user()
            listed = await client.get("/api/v1/submissions", headers=outsider)
            assert listed.status_code == 200 and listed.json()["total"] == 0
            headers, sid = subs[0]
            detail = await client.get(f"/api/v1/submissions/{sid}", headers=headers)
            assert detail.status_code == 200 and detail.json()["status"] == "queued"

            # And every stream still gets its verdict.
            for _, sid in subs:  # released at once: each student's next one is claimed now
                store.finish(store.claim(sid), row_of(0, "sample"), quantum_s=0)
            for stream in streams:
                await stream.finished()
            verdicts = [s.items[-1] for s in streams]
            assert all(name == "done" and data["verdict"] == "AC" for name, data, _ in verdicts)
            await until(lambda: server.hub.open_streams() == 0, "every place to be free")

    with caplog.at_level(logging.WARNING):
        run_async(scenario())
    # No request failed (a QueuePool timeout is logged as an exception in the application)
    # and no poll did.
    trouble = [r for r in caplog.records if r.levelno >= logging.ERROR or r.name == "api.events"]
    assert not trouble, [(r.name, r.getMessage(), r.exc_info and r.exc_info[1]) for r in trouble]


def test_a_burst_of_requests_does_not_starve_the_connection_pool(serve, store) -> None:
    """More requests at once than the pool has connections and the API has threads: none may
    hold a connection while it waits for a thread (that deadlocked until the pool timed out)."""
    server = serve()
    alice = store.user()
    store.submission(alice)

    async def burst() -> list[int]:
        limits = httpx.Limits(max_connections=200)
        async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as client:
            calls = [client.get("/api/v1/submissions", headers=alice) for _ in range(120)]
            return [r.status_code for r in await asyncio.gather(*calls)]

    assert run_async(burst()) == [200] * 120


# ---- the database goes away ---------------------------------------------------------------


def test_streams_open_while_the_database_goes_away_end_asking_to_reconnect(
    postgres, tmp_path: Path, caplog
) -> None:
    """The database stops taking connections (and its open ones are cut) while streams wait:
    each ends with `reconnect`, a new one gets 503, nothing unhandled reaches the log; once
    the database is back, a new stream carries on to the verdict. A database of its own, so
    no other test sees the outage."""
    url = postgres()
    upgrade(url)
    name = url.rsplit("/", 1)[1]
    admin_dsn = "host=127.0.0.1 port=5432 user=postgres dbname=test"
    engine = make_engine(url)
    store = Store(engine)
    server = Server(
        Settings(database_url=url, data_dir=tmp_path, secret_key=SECRET, events_poll_s=0.05)
    ).start()
    alice = store.user()
    first, second = store.submission(alice), store.submission(alice)
    claim = store.claim(first)
    store.record(claim, row_of(0, "sample"))

    def outage(on: bool) -> None:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {"false" if on else "true"}')
            if on:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = %s AND pid <> pg_backend_pid()",
                    (name,),
                )

    async def scenario() -> None:
        async with client_for(server) as client:
            streams = [Events(client, first, alice), Events(client, second, alice)]
            assert [await s.started() for s in streams] == [200, 200]
            await until(lambda: streams[0].tests(), "the first test")
            caplog.clear()
            outage(True)
            try:
                for stream in streams:
                    await stream.finished()
                    name_, data, _ = stream.items[-1]
                    assert name_ == "reconnect" and data["id"] in (first, second)
                again = await client.get(f"/api/v1/submissions/{first}/events", headers=alice)
                assert again.status_code == 503 and "retry-after" in again.headers
            finally:
                outage(False)
            await until(lambda: server.hub.open_streams() == 0, "every place to be free")
            back = Events(client, first, alice)
            assert await back.started() == 200
            store.finish(claim, row_of(0, "sample"), row_of(1, "random"))
            await back.finished()
            assert back.names()[-1] == "done"

    try:
        with caplog.at_level(logging.WARNING):
            run_async(scenario())
    finally:
        server.stop()
        engine.dispose()
    unhandled = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert unhandled == [], [r.getMessage() for r in unhandled]
    assert any("asked 2 streams to reconnect" in r.getMessage() for r in caplog.records)

"""Live progress of submissions (GET /submissions/{id}/events) and runs (GET
/runs/{id}/events) from one shared poller.

One `EventHub` per app (per API process). What a stream follows is an item of a `Feed`
(submissions, runs): the feed says how to read its progress and how to show it to a viewer;
everything else (cursors, the poller, the per-user limit, reconnects) is this module's, the
same for every feed. Each open stream registers with the hub and then only waits on its own
asyncio queue: it holds no database connection and no thread. While any stream is open, one
poller task reads the state of every watched item in one query per feed per tick (a
submission's: `store.repo.progress`, status, lease token, and the test rows after each
submission's `ProgressCursor`, what it has already seen), on one thread
of its own with one short-lived session, and fans the events out to the streams. The database
stays the only source of truth, so this works the same on SQLite and PostgreSQL, with any
number of workers and API processes.

The stream's contract (unchanged): `status` on each change, `test` per finished test (id
`{lease_token}:{index}`; a new judging restarts the cursor), `done` with the same body as GET
/submissions/{id}, then the stream ends; `gone` when the submission disappears, `timeout` after
JUDGE_EVENTS_TIMEOUT_S, and a keep-alive comment after 15 quiet seconds. When the database
cannot be read, every open stream gets `reconnect` (with a `retry` hint) and ends: the client
opens a new one, which answers 503 until the database is back. For a viewer who is
not an instructor, hidden tests are held back and sent just before `done`: their arrival
times would tell how long each hidden test took. What status a viewer is told is the
feed's (`shown_status`): a student's submission stays `running` until its judging is
released (store.release), and `done` comes then.

Every tick also reads the standing of every stream's viewer (one query): a stream whose
viewer was disabled, got a new password (a new token generation) or changed role ends at
once, with no further event, as every request of theirs would be refused.

Each user may hold JUDGE_EVENTS_PER_USER streams at once (per API process); the next one gets
429. A stream's place is freed when it ends or its client disconnects.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
from bisect import bisect_right
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fastapi.responses import JSONResponse, Response
from sqlalchemy.orm import Session, sessionmaker
from starlette.types import Receive, Scope, Send

from config import Settings
from store import repo
from store.models import User, utcnow
from store.transient import first_line

log = logging.getLogger(__name__)

KEEPALIVE_S = 15.0  # a comment line after this long without events keeps proxies from closing
RETRY_AFTER_S = 5  # told to a client over the per-user limit
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
RECONNECT_MS = 2000  # suggested to clients whose stream ended because the database went away


def _never(item: Any, viewer: User) -> bool:
    return False


def _every(items: list[Any], done: Any) -> list[Any]:
    return items


def _as_stored(progress: repo.Progress, viewer: User, now: datetime) -> str:
    return progress.status


@dataclass(frozen=True)
class Feed:
    """One kind of item a stream follows: how the poller reads it and how a viewer sees it."""

    name: str  # also the key of its items in the hub ("submissions", "runs")
    # The items' status, attempt (token) and new entries after each cursor (one query).
    read: Callable[[Session, Mapping[int, repo.ProgressCursor | None]], list[repo.Progress]]
    finished: Callable[[str], bool]  # this status ends the stream with `done`
    present_item: Callable[[Any, User], Any]  # one entry for the viewer, JSON-ready
    present_done: Callable[[Session, int, User], Any]  # the whole item, JSON-ready; None: gone
    item_event: str = "test"  # the event name of one entry
    # Entries kept from a viewer until `done` (their arrival times would tell too much), and
    # which of those kept the viewer is sent with `done` (given the `done` body).
    held_back: Callable[[Any, User], bool] = _never
    released: Callable[[list[Any], Any], list[Any]] = _every
    # The status a viewer is told of the item, at a moment (the stored one by default).
    shown_status: Callable[[repo.Progress, User, datetime], str] = _as_stored


Key = tuple[str, int]  # (feed name, item id)


def sse(event: str, data: Any, event_id: str | None = None, retry_ms: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    if retry_ms is not None:
        head += f"retry: {retry_ms}\n"
    return f"{head}event: {event}\ndata: {json.dumps(data, default=str)}\n\n"


# ---- one open stream ----------------------------------------------------------------------


@dataclass(eq=False)
class Stream:
    feed: Feed
    item_id: int
    viewer: User
    # The viewer's standing when the stream was opened (its token's generation, its role):
    # a change ends the stream.
    standing: repo.Standing
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    # What this stream has been told: the judging (lease token), the last test index, status.
    token: int | None = None
    last: int = -1
    status: str | None = None
    # entries held back until `done` (a submission's hidden tests): (the entry, its event)
    held: list[tuple[Any, str]] = field(default_factory=list)
    ended: bool = False
    closed: bool = False

    @property
    def key(self) -> Key:
        return (self.feed.name, self.item_id)

    @property
    def role(self) -> str:
        return str(self.viewer.role)

    def push(self, chunks: list[str], *, end: bool = False) -> None:
        if self.ended:
            return
        if chunks:
            self.queue.put_nowait("".join(chunks))
        if end:
            self.end()

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.queue.put_nowait(None)

    async def chunks(self, timeout_s: float, keepalive_s: float) -> AsyncIterator[str]:
        """What to write to the client, until the stream ends, times out or is ended."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            wait = min(keepalive_s, deadline - loop.time())
            try:
                chunk = await asyncio.wait_for(self.queue.get(), max(wait, 0.0))
            except TimeoutError:
                if loop.time() >= deadline:
                    yield sse("timeout", {"id": self.item_id})
                    return
                yield ": keep-alive\n\n"
                continue
            if chunk is None:
                return
            yield chunk


# ---- what one poll saw --------------------------------------------------------------------


@dataclass
class Snapshot:
    status: str
    token: int
    rows: list[Any] = field(default_factory=list)  # new entries of the current attempt
    statuses: dict[str, str] = field(default_factory=dict)  # role -> the status it is told
    done: dict[str, Any] = field(default_factory=dict)  # role -> `done` body, when done


@dataclass
class Seen:
    """What one poll read: each watched item's snapshot, and each viewer's standing."""

    items: dict[Key, Snapshot]
    standings: dict[int, repo.Standing | None]  # viewer id -> standing; None: no such user


@dataclass
class Watched:
    """One item with open streams, and the entries of its current attempt seen so far."""

    feed: Feed
    streams: set[Stream] = field(default_factory=set)
    token: int | None = None
    rows: list[Any] = field(default_factory=list)  # ordered by index
    indices: list[int] = field(default_factory=list)


class EventHub:
    def __init__(
        self,
        session_factory: sessionmaker[Session],
        settings: Settings,
        *,
        feeds: list[Feed],
    ) -> None:
        self.session_factory = session_factory
        self.poll_s = settings.events_poll_s
        self.timeout_s = settings.events_timeout_s
        self.per_user = settings.events_per_user
        self.keepalive_s = KEEPALIVE_S
        self.feeds = {feed.name: feed for feed in feeds}
        self.ticks = 0  # polls done so far (diagnostics and tests)
        self._watched: dict[Key, Watched] = {}
        self._open: dict[int, int] = {}  # user id -> open streams
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None

    # ---- streams come and go (event loop only) -------------------------------------------

    def open_streams(self, user_id: int | None = None) -> int:
        if user_id is None:
            return sum(self._open.values())
        return self._open.get(user_id, 0)

    def open(self, feed: str, item_id: int, viewer: User) -> Stream | None:
        """Register a stream, or None when the viewer already holds `per_user` of them (of
        every feed together)."""
        if self._open.get(viewer.id, 0) >= self.per_user:
            return None
        self._open[viewer.id] = self._open.get(viewer.id, 0) + 1
        standing = repo.Standing(bool(viewer.disabled), viewer.token_generation, viewer.role)
        stream = Stream(feed=self.feeds[feed], item_id=item_id, viewer=viewer, standing=standing)
        self._watched.setdefault(stream.key, Watched(stream.feed)).streams.add(stream)
        self._start()
        return stream

    def close(self, stream: Stream) -> None:
        """Forget a stream (idempotent): its place is free again."""
        if stream.closed:
            return
        stream.closed = True
        stream.end()
        self._forget(stream)
        left = self._open.get(stream.viewer.id, 0) - 1
        if left > 0:
            self._open[stream.viewer.id] = left
        else:
            self._open.pop(stream.viewer.id, None)

    def _forget(self, stream: Stream) -> None:
        watched = self._watched.get(stream.key)
        if watched is not None:
            watched.streams.discard(stream)
            if not watched.streams:
                del self._watched[stream.key]
        if not self._watched and self._wake is not None:
            self._wake.set()  # nothing left to watch: the poller stops now

    def response(self, feed: str, item_id: int, viewer: User) -> EventStreamResponse:
        return EventStreamResponse(self, feed, item_id, viewer)

    # ---- the poller ----------------------------------------------------------------------

    def _start(self) -> None:
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="judge-events"
            )
        loop = asyncio.get_running_loop()
        task = self._task
        # One poller at a time, on the loop serving the streams (a test client may run each
        # request on a loop of its own; a poller left on another loop stops by itself).
        if task is None or task.done() or task.get_loop() is not loop:
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._run(), name="judge-events")
        assert self._wake is not None
        self._wake.set()  # a new stream gets its first events without waiting a whole tick

    async def _run(self) -> None:
        assert self._wake is not None
        wake, me = self._wake, asyncio.current_task()
        while self._watched and self._task is me:
            wake.clear()
            pause = self.poll_s
            try:
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # The database went away (restart, network): a stream cannot tell its client
                # anything true any more, so each ends asking the client to come back.
                self._end_all_reconnect(exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), pause)

    async def _tick(self) -> None:
        cursors: dict[Key, repo.ProgressCursor | None] = {}
        viewers: dict[Key, dict[str, User]] = {}
        streams: list[Stream] = []  # the streams this poll checks the viewers of
        for key, watched in self._watched.items():
            last = watched.indices[-1] if watched.indices else -1
            token = watched.token
            cursors[key] = repo.ProgressCursor(token, last) if token is not None else None
            viewers[key] = {s.role: s.viewer for s in watched.streams}
            streams.extend(watched.streams)
        if not cursors:
            return
        assert self._executor is not None
        loop = asyncio.get_running_loop()
        users = {stream.viewer.id for stream in streams}
        seen = await loop.run_in_executor(self._executor, self._read, cursors, viewers, users)
        self.ticks += 1
        self._end_revoked(streams, seen.standings)  # before anything of this poll is sent
        for key in cursors:
            still = self._watched.get(key)
            if still is not None:  # else: all its streams closed while we read
                self._apply(key, still, seen.items.get(key))

    def _end_revoked(
        self, streams: list[Stream], standings: dict[int, repo.Standing | None]
    ) -> None:
        """End, without a word, every stream whose viewer may no longer see anything (the
        account disabled, deleted, its password changed) or now sees differently (its role).
        A stream opened while the poll read is checked by the next one."""
        for stream in streams:
            now = standings.get(stream.viewer.id)
            if not stream.ended and (now is None or now != stream.standing):
                stream.end()
                self._forget(stream)

    # ---- reading (on the poller's thread) ------------------------------------------------

    def _read(
        self,
        cursors: dict[Key, repo.ProgressCursor | None],
        viewers: dict[Key, dict[str, User]],
        users: set[int],
    ) -> Seen:
        seen: dict[Key, Snapshot] = {}
        with self.session_factory() as session:
            now = utcnow()
            for feed in self.feeds.values():
                mine = {
                    item: cursor for (name, item), cursor in cursors.items() if name == feed.name
                }
                if not mine:
                    continue
                for found in feed.read(session, mine):
                    key = (feed.name, found.id)
                    snapshot = seen.get(key)
                    if snapshot is None:
                        snapshot = seen[key] = Snapshot(found.status, found.token)
                        snapshot.statuses = {
                            role: feed.shown_status(found, viewer, now)
                            for role, viewer in viewers[key].items()
                        }
                    if found.test is not None:
                        snapshot.rows.append(found.test)
                for key, snapshot in seen.items():
                    if key[0] != feed.name:
                        continue
                    bodies = {
                        role: feed.present_done(session, key[1], viewer)
                        for role, viewer in viewers[key].items()
                        if feed.finished(snapshot.statuses[role])
                    }
                    if all(body is not None for body in bodies.values()):
                        snapshot.done = bodies  # else deleted just now: `gone` next tick
            # Last: a viewer revoked while this poll read is caught before it sends anything.
            standing = repo.standings(session=session, user_ids=users)
        return Seen(seen, {user_id: standing.get(user_id) for user_id in users})

    # ---- fanning out (event loop) --------------------------------------------------------

    def _apply(self, key: Key, watched: Watched, snapshot: Snapshot | None) -> None:
        if snapshot is None:
            for stream in list(watched.streams):
                stream.push([sse("gone", {"id": key[1]})], end=True)
                self._forget(stream)
            return
        if snapshot.token != watched.token:  # a new judging (rejudge, retry)
            watched.token, watched.rows, watched.indices = snapshot.token, [], []
        for row in snapshot.rows:
            if not watched.indices or row.index > watched.indices[-1]:
                watched.rows.append(row)
                watched.indices.append(row.index)
        for stream in list(watched.streams):
            self._advance(stream, watched, snapshot)

    def _advance(self, stream: Stream, watched: Watched, snapshot: Snapshot) -> None:
        feed = stream.feed
        status = snapshot.statuses.get(stream.role)
        if status is None:
            return  # the stream came in while this tick was reading: the next tick
        done = feed.finished(status)
        body = snapshot.done.get(stream.role) if done else None
        if done and body is None:
            return  # the stream came in while this tick was reading: the next tick
        chunks: list[str] = []
        if stream.token != watched.token:
            stream.token, stream.last, stream.held = watched.token, -1, []
        if status != stream.status:
            stream.status = status
            chunks.append(sse("status", {"id": stream.item_id, "status": status}))
        if done:
            # Held-back entries only together with the result, and only those it shows.
            held = [row for row, _ in stream.held]
            shown = {row.index for row in feed.released(held, body)}
            chunks.extend(chunk for row, chunk in stream.held if row.index in shown)
            stream.held = []
            chunks.append(sse("done", body))
            stream.push(chunks, end=True)
            self._forget(stream)
            return
        for row in watched.rows[bisect_right(watched.indices, stream.last) :]:
            stream.last = row.index
            data = feed.present_item(row, stream.viewer)
            chunk = sse(feed.item_event, data, f"{watched.token}:{row.index}")
            if feed.held_back(row, stream.viewer):
                stream.held.append((row, chunk))
            else:
                chunks.append(chunk)
        stream.push(chunks)

    def _end_all_reconnect(self, exc: Exception) -> None:
        streams = [stream for watched in self._watched.values() for stream in watched.streams]
        log.warning(
            "live-progress poll failed (%s); asked %d streams to reconnect",
            first_line(exc),
            len(streams),
        )
        for stream in streams:
            data = {"id": stream.item_id, "reason": "the judge's database is unavailable"}
            stream.push([sse("reconnect", data, retry_ms=RECONNECT_MS)], end=True)
            self._forget(stream)

    # ---- shutdown ------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop the poller and end every open stream (the app is shutting down)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for watched in list(self._watched.values()):
            for stream in list(watched.streams):
                stream.end()
        self._watched.clear()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


# ---- the HTTP response ----------------------------------------------------------------------


class EventStreamResponse(Response):
    """text/event-stream fed by the hub. It takes the viewer's place when it starts (or
    answers 429), watches for the client's disconnect, and gives the place back at the end
    whatever happens."""

    media_type = "text/event-stream"

    def __init__(self, hub: EventHub, feed: str, item_id: int, viewer: User) -> None:
        self.hub = hub
        self.feed = feed
        self.item_id = item_id
        self.viewer = viewer
        self.status_code = 200
        self.background = None
        self.init_headers(HEADERS)  # no body attribute: no content-length

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hub = self.hub
        stream = hub.open(self.feed, self.item_id, self.viewer)
        if stream is None:
            limited = JSONResponse(
                {
                    "detail": f"at most {hub.per_user} live-progress streams per user; close "
                    f"one (another tab or window) or try again in {RETRY_AFTER_S} s"
                },
                status_code=429,
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
            await limited(scope, receive, send)
            return
        watcher = asyncio.ensure_future(_until_disconnect(receive, stream))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            async for chunk in stream.chunks(hub.timeout_s, hub.keepalive_s):
                await send(
                    {"type": "http.response.body", "body": chunk.encode(), "more_body": True}
                )
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            if self.background is not None:
                await self.background()
        except OSError:
            pass  # the client went away while we wrote (ASGI 2.4 servers say so this way)
        finally:
            watcher.cancel()
            hub.close(stream)


async def _until_disconnect(receive: Receive, stream: Stream) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    stream.end()

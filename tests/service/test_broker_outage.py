"""Redis goes away with submissions queued (its messages are lost: no persistence), comes
back, and every submission still gets exactly one verdict: the database is the source of
truth and the sweeper resends what the broker lost.

Uses a redis-server this test starts on its own loopback port, never the shared one.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.service.redis_server import RedisServer
from tests.service.stack import Stack, free_port, service_env, solution

pytestmark = [pytest.mark.services, pytest.mark.sandbox]


@pytest.fixture
def outage_stack(tmp_path: Path, postgres) -> Iterator[tuple[Stack, RedisServer]]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is required for the broker outage test", pytrace=False)
    server = RedisServer(free_port(), tmp_path / "redis.log")
    server.start()
    env = service_env(
        tmp_path,
        JUDGE_DATABASE_URL=postgres(),
        JUDGE_BROKER_URL=f"redis://127.0.0.1:{server.port}/0",
        # One student's lost messages are resent one at a time, each after the workers have
        # been idle this long: 1 s, not the stacks' 3 s (sooner resends only risk more
        # duplicates, which the test counts).
        JUDGE_RESEND_AFTER_S="1",
    )
    stack = Stack("outage", tmp_path, env)
    try:
        stack.setup()
        stack.start_api()
        stack.start_sweeper()
        yield stack, server
    finally:
        stack.stop()
        server.kill()


def test_nothing_is_lost_when_redis_restarts_with_submissions_queued(outage_stack) -> None:
    stack, server = outage_stack
    token = stack.register("curie")
    # No worker yet: these wait in Redis.
    queued = [stack.submit(token, "numbergame", solution("numbergame_ok")) for _ in range(3)]
    client = redis.Redis(port=server.port)
    assert client.llen("judge") == 3
    client.close()

    server.kill()  # no persistence: the three messages are gone
    # Submitting while the broker is down still works: the row is committed, the publish
    # fails fast, the sweeper sends it later.
    during = [stack.submit(token, "numbergame", solution("numbergame_ok")) for _ in range(2)]
    assert stack.request("GET", "/healthz/api").status_code == 200  # the API, no worker yet

    server.start()
    stack.start_worker()
    for sid in queued + during:
        body = stack.wait_done(token, sid)
        # Named fields: pytest cuts a long dict short, and CI once saw an RE without its message.
        said = {k: body.get(k) for k in ("id", "verdict", "message", "history")}
        assert body["verdict"] == "AC" and len(body["history"]) == 1, (said, stack.logs())

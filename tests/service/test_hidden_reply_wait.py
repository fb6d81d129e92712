"""A grading waits for its hidden tier as long as the tier may take: a hidden worker that
answers after several seconds is answered, not taken for a lost Redis (redis-py 8 reads a
socket for 5 s at most unless told otherwise). Real Redis; the hidden worker's reply is
pushed by hand, late, where the grading waits for it."""

from __future__ import annotations

import json
import threading
import time

import redis

from config import Settings
from judge.grading.hidden_tier import HiddenTier
from worker.hidden import SendToHiddenLane

LATE_S = 7.0  # past redis-py's default socket timeout


class LateHiddenWorker:
    """Takes the tier as Celery would and pushes its (empty) outcomes LATE_S later."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.pushed_at: float | None = None

    def send_task(self, name, args, **options) -> None:
        _, reply_key = args

        def reply() -> None:
            time.sleep(LATE_S)
            # Noted before the push: the grading may return, and the test read this, before
            # rpush has returned here.
            self.pushed_at = time.monotonic()
            self.client.rpush(reply_key, json.dumps({"outcomes": []}))

        threading.Thread(target=reply, daemon=True).start()


def test_a_hidden_tier_slower_than_a_socket_read_is_waited_for(redis_main):
    url, prefix = redis_main()
    settings = Settings(broker_url=url, broker_key_prefix=prefix)
    client = redis.Redis.from_url(url)
    worker = LateHiddenWorker(client)
    away: list[bool] = []
    send = SendToHiddenLane(worker, settings, while_away=away.append)  # type: ignore[arg-type]
    tier = HiddenTier("footholds", "python", "function", "", [], time_s=1.0, budget_s=30.0)
    started = time.monotonic()
    assert send(tier) == []
    assert worker.pushed_at is not None and worker.pushed_at - started >= LATE_S
    assert away == [True, False]
    client.close()

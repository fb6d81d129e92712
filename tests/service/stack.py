"""A real service stack for integration tests: API (uvicorn), Celery worker, the run lane's
worker and the sweeper as separate processes, talking HTTP on a free loopback port.

Everything a stack starts is stopped by `stop()`; logs stay in its temporary directory and
their tails are attached to assertion messages.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.service import stack_database

REPO = Path(__file__).resolve().parents[2]
SOLUTIONS = Path(__file__).resolve().parent / "solutions"
PYTHON = sys.executable
START_TIMEOUT_S = 60
GRADE_TIMEOUT_S = 120
STOP_GRACE_S = 1.0  # see Stack.stop


def solution(name: str) -> str:
    """A submission's source. A file whose first line is `# wraps: OTHER` changes OTHER's
    `solution`, so it is submitted after OTHER's source, as one file."""
    text = (SOLUTIONS / f"{name}.py").read_text()
    first = text.split("\n", 1)[0]
    if first.startswith("# wraps: "):
        return solution(first.removeprefix("# wraps: ").strip()) + "\n\n" + text
    return text


def loopback_client(base_url: str, timeout: float = 30) -> httpx.Client:
    """An HTTP client for a service under test. Its idle connections expire well before
    uvicorn's (5 s, as httpx's default does): with equal expiries a request sent on a
    connection the server is closing that instant is reset (ReadError), as a test that spent
    a few seconds in the browser between two requests saw."""
    return httpx.Client(
        base_url=base_url, timeout=timeout, limits=httpx.Limits(keepalive_expiry=2.0)
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(
    check: Callable[[], Any],
    *,
    timeout: float,
    what: str,
    interval: float = 0.1,
    context: Callable[[], str] = str,
) -> Any:
    """Poll until check() is truthy; generous timeouts, never timed assertions."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{context()}")
        time.sleep(interval)


# New password hashes at OWASP's least argon2id cost (19 MiB, 2 passes, one lane: ~20 ms of
# CPU against the default's ~0.17 s), as Django advises for a test run: the suite makes and
# checks about 500. The default cost has tests of its own (test_accounts.py).
TEST_PASSWORD_COST = {
    "password_hash_memory_kib": 19 * 1024,
    "password_hash_passes": 2,
    "password_hash_lanes": 1,
}


def service_env(tmp: Path, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(
        PYTHONUNBUFFERED="1",
        JUDGE_DATA_DIR=str(tmp),
        JUDGE_SECRET_KEY=os.urandom(24).hex(),
        # Short leases and a fast sweeper, so crash recovery takes seconds in tests. A pass
        # a second: each costs ~35 ms of CPU and a few queries, and the suite keeps several
        # stacks alive on two cores (at 0.5 s the sweepers alone took ~8% of a core each).
        JUDGE_LEASE_S="3",
        JUDGE_SWEEP_INTERVAL_S="1",
        JUDGE_RESEND_AFTER_S="3",
        JUDGE_MAX_ATTEMPTS="3",
        # A stopped worker's locks go within the chaos scenario's wait for the takeover.
        JUDGE_STALLED_TRANSACTION_S="15",
        JUDGE_SUBMIT_RATE_PER_MINUTE="1000",
        JUDGE_MAX_QUEUED_PER_USER="1000",  # tests submit in bursts
        JUDGE_LOGIN_FAILURES_PER_ADDRESS="1000",  # every client is 127.0.0.1
        JUDGE_REGISTRATIONS_PER_ADDRESS_PER_HOUR="1000",
        JUDGE_WORKER_SLOTS="2",
    )
    env.update({f"JUDGE_{name.upper()}": str(value) for name, value in TEST_PASSWORD_COST.items()})
    env.update(overrides)
    return env


class Stack:
    def __init__(self, name: str, tmp: Path, env: dict[str, str]) -> None:
        self.name = name
        self.tmp = tmp
        self.env = env
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.procs: dict[str, subprocess.Popen] = {}
        self.admin = ("teacher", "teacher-" + os.urandom(6).hex())
        self.http = loopback_client(self.base_url)

    # ---- processes ------------------------------------------------------------------------

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [PYTHON, *args], cwd=REPO, env=self.env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def spawn(self, name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "ab")  # noqa: SIM115 (closed with the process)
        # Own process group: a SIGKILL takes the pool children with it, like a dead machine.
        proc = subprocess.Popen(
            [PYTHON, *args],
            cwd=REPO,
            env=self.env | (env or {}),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.procs[name] = proc
        return proc

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.tmp / f"{name}.log"
        if not path.exists():
            return f"({name}: no log)"
        text = path.read_text(errors="replace").splitlines()[-lines:]
        return f"--- {name} log ---\n" + "\n".join(text)

    def logs(self) -> str:
        return "\n".join(self.log_tail(n) for n in ("api", "worker", "runner", "sweeper"))

    def setup(self) -> None:
        """The database: schema via `alembic upgrade head`, the first instructor via the CLI,
        or a copy of what they made for an earlier stack of this process (stack_database)."""
        self.admin = stack_database.set_up(self.env, self.admin, self._set_up_database)

    def _set_up_database(self) -> None:
        self.run("-m", "alembic", "upgrade", "head")
        self.run(
            "-m", "api", "create-user", self.admin[0], "--instructor", "--password", self.admin[1]
        )

    def start_api(self) -> None:
        self._spawn_api()
        self._wait_api()

    def _spawn_api(self) -> None:
        self.spawn("api", "-m", "api", "web", "--host", "127.0.0.1", "--port", str(self.port))

    def _wait_api(self) -> None:
        def healthy() -> bool:
            try:
                return self.http.get("/healthz/api").status_code == 200  # no worker needed
            except httpx.TransportError:
                return False

        wait_for(healthy, timeout=START_TIMEOUT_S, what="the API", context=self.logs)

    def _spawn_celery(
        self, name: str, app: str, *options: str, env: dict[str, str] | None = None
    ) -> None:
        self.spawn(
            name,
            "-m",
            "celery",
            "-A",
            app,
            "worker",
            *options,
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            f"--hostname={self.name}-{name}-{os.getpid()}-{time.monotonic_ns()}@%h",
            env=env,
        )

    def _wait_celery(self, name: str) -> None:
        wait_for(
            lambda: " ready." in (self.tmp / f"{name}.log").read_text(errors="replace"),
            timeout=START_TIMEOUT_S,
            what=f"the {name}",
            context=self.logs,
        )

    def _start_celery(
        self, name: str, app: str, *options: str, env: dict[str, str] | None = None
    ) -> None:
        self._spawn_celery(name, app, *options, env=env)
        self._wait_celery(name)

    def _spawn_worker(self, name: str) -> None:
        self._spawn_celery(name, "worker.main")

    def _spawn_runner(self, env: dict[str, str]) -> None:
        self._spawn_celery("runner", "worker.run_lane", "-Q", "judge.run", env=env)

    def start_worker(self, name: str = "worker") -> None:
        """A grading worker (`name` another than "worker" starts a second one beside it)."""
        self._spawn_worker(name)
        self._wait_celery(name)

    def start_runner(self, **env: str) -> None:
        """The run lane's worker, as docker-compose's `runner` service runs it (with `env`
        added to the stack's)."""
        self._spawn_runner(env)
        self._wait_celery("runner")

    def start_sweeper(self) -> None:
        self.spawn("sweeper", "-m", "worker", "sweep")

    def start(self, *, runner: bool = True) -> Stack:
        """Every process started at once, then each waited for: each spends a second or two
        importing, which need not be one after another."""
        self.setup()
        self._spawn_api()
        self._spawn_worker("worker")
        if runner:
            self._spawn_runner({})
        self.start_sweeper()
        self._wait_api()
        self._wait_celery("worker")
        if runner:
            self._wait_celery("runner")
        return self

    def kill(self, name: str) -> None:
        proc = self.procs.pop(name, None)
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)

    def stop_process(self, name: str) -> None:
        proc = self.procs.get(name)
        if proc is not None and proc.poll() is None:
            proc.terminate()  # the main process only: Celery then stops its own pool
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(20)
        self.kill(name)

    def stop(self) -> None:
        """The end of a stack: every process asked to stop at once, and what has not exited
        within a second killed. A Celery worker's warm shutdown takes ~5 s even idle (its loop
        notices the stop within 2 s, then its pool is closed), longer while it finishes work
        nobody waits for any more; nothing of a stack is kept but its logs. A test of a
        graceful stop uses stop_process()."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + STOP_GRACE_S
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(deadline - time.monotonic(), 0.01))
        for name in list(self.procs):
            self.kill(name)
        self.http.close()

    # ---- HTTP -----------------------------------------------------------------------------

    def request(
        self, method: str, path: str, token: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        headers = kwargs.pop("headers", {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return self.http.request(method, path, headers=headers, **kwargs)

    def login(self, username: str, password: str) -> str:
        response = self.request(
            "POST", "/api/v1/token", data={"username": username, "password": password}
        )
        assert response.status_code == 200, response.text
        return response.json()["access_token"]

    def register(self, username: str, password: str = "correct-horse-1") -> str:
        response = self.request(
            "POST", "/api/v1/users", json={"username": username, "password": password}
        )
        assert response.status_code == 201, response.text
        return self.login(username, password)

    def instructor(self) -> str:
        return self.login(*self.admin)

    def submit(self, token: str, problem: str, source: str) -> int:
        response = self.request(
            "POST", "/api/v1/submissions", token, json={"problem": problem, "source": source}
        )
        assert response.status_code == 202, response.text
        assert response.json()["status"] == "queued"
        return response.json()["id"]

    def detail(self, token: str, submission_id: int) -> dict[str, Any]:
        response = self.request("GET", f"/api/v1/submissions/{submission_id}", token)
        assert response.status_code == 200, response.text
        return response.json()

    def wait_done(
        self, token: str, submission_id: int, *, judgings: int = 1, timeout: float = GRADE_TIMEOUT_S
    ) -> dict[str, Any]:
        """The submission once done with at least `judgings` finished judgings."""

        def done() -> dict[str, Any] | None:
            body = self.detail(token, submission_id)
            ready = body["status"] == "done" and len(body["history"]) >= judgings
            return body if ready else None

        return wait_for(
            done,
            timeout=timeout,
            interval=0.2,
            what=f"submission {submission_id} to be judged",
            context=self.logs,
        )

    def events(
        self, token: str, item_id: int, feed: str = "submissions"
    ) -> Iterator[tuple[str, Any]]:
        """Parsed Server-Sent Events of a submission (or of a run, feed "runs"), until the
        server ends the stream."""
        with self.http.stream(
            "GET",
            f"/api/v1/{feed}/{item_id}/events",
            headers={"Authorization": f"Bearer {token}"},
            timeout=GRADE_TIMEOUT_S,
        ) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            event, data = None, []
            for line in response.iter_lines():
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    data.append(line.split(":", 1)[1].strip())
                elif not line and event:
                    yield event, json.loads("\n".join(data))
                    event, data = None, []

"""`make run`: one command that migrates, then runs the API, a worker, the run lane's worker
and the sweeper.

The workers and the sweeper are child processes (the same commands docker-compose runs as
separate services); Ctrl-C stops the server and then them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import uvicorn

from api.accounts import ensure_admin
from api.main import create_app
from config import Settings
from store.db import make_engine, make_session_factory
from store.files import private_dir, private_file
from store.migrate import upgrade

STOP_GRACE_S = 15  # a grading in progress gets this long to finish on Ctrl-C
READY_WAIT_S = 120  # the credentials wait this long for the workers, then are shown anyway
READY = b" ready."  # what a Celery worker logs once it takes tasks


def local_secret(data_dir: Path) -> str:
    """A per-installation secret kept in the data dir, so tokens survive restarts."""
    path = private_dir(data_dir) / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(48))
    return private_file(path).read_text().strip()


def _die_with_parent() -> None:
    # Linux: the child gets SIGTERM if this process dies without cleaning up.
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def celery_worker(app: str, name: str, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        app,
        "worker",
        *options,
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        f"--hostname={name}-{os.getpid()}@%h",
    ]


class Child:
    """A child process whose output is held back until it says it is ready (Celery's banner
    and its running-as-root warnings would bury the login), then passed through. Everything
    held back is shown after all if the child ends before it is ready."""

    def __init__(self, cmd: list[str], env: dict[str, str], ready: bytes | None) -> None:
        self.proc = subprocess.Popen(
            cmd,
            env={**env, "PYTHONUNBUFFERED": "1"},  # lines arrive in the order they were written
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self.ready = threading.Event()
        if ready is None:
            self.ready.set()
        self._marker = ready
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        out: IO[bytes] = sys.stdout.buffer
        held: list[bytes] = []
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if self.ready.is_set():
                out.write(line)
                out.flush()
            elif self._marker is not None and self._marker in line:
                self.ready.set()
            else:
                held.append(line)
        if not self.ready.is_set():
            out.writelines(held)  # it ended while starting: why is in what it printed
            out.flush()
            self.ready.set()


def start_children(settings: Settings, env: dict[str, str]) -> list[Child]:
    worker = celery_worker("worker.main", "judge")
    # The run lane: judge.run alone, JUDGE_RUN_SLOTS processes (worker/run_lane.py).
    runner = celery_worker("worker.run_lane", "judge-run", "-Q", "judge.run")
    sweeper = [sys.executable, "-m", "worker", "sweep"]  # quiet until it has work
    return [Child(worker, env, READY), Child(runner, env, READY), Child(sweeper, env, None)]


def stop_children(started: list[Child]) -> None:
    children = [c.proc for c in started]
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in children:
        try:
            child.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def port_free(host: str, port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) != 0


def prestart(settings: Settings) -> str | None:
    """Migrate, then make sure the first instructor exists; a password to show, or None."""
    private_dir(settings.data_dir)  # 0700, also when an older version made it 0755
    upgrade(settings.db_url)
    engine = make_engine(settings.db_url)
    try:
        with make_session_factory(engine)() as session:
            return ensure_admin(
                session=session,
                username=settings.admin_user,
                password=settings.admin_password or None,
            )
    finally:
        engine.dispose()


def serve() -> None:
    if "JUDGE_SECRET_KEY" not in os.environ:
        # Set in our environment, so the worker and the sweeper inherit it.
        data_dir = Path(os.environ.get("JUDGE_DATA_DIR", "var"))
        os.environ["JUDGE_SECRET_KEY"] = local_secret(data_dir)
    settings = Settings()
    env = dict(os.environ)
    if not port_free(settings.host, settings.port):
        sys.exit(f"port {settings.port} on {settings.host} is in use; set JUDGE_PORT")
    print(f"database: {settings.db_url}\nbroker:   {settings.broker}", flush=True)
    password = prestart(settings)

    children = start_children(settings, env)
    url = f"http://{settings.host}:{settings.port}"
    # Last on the screen, once everything is up: what a first user needs is not scrolled away.
    threading.Thread(
        target=show_when_ready, args=(settings, url, password, children), daemon=True
    ).start()
    try:
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")
    finally:
        print("stopping the workers and the sweeper...", flush=True)
        stop_children(children)


def show_when_ready(
    settings: Settings, url: str, password: str | None, children: list[Child]
) -> None:
    deadline = time.monotonic() + READY_WAIT_S
    for child in children:
        child.ready.wait(max(0.0, deadline - time.monotonic()))
    while port_free(settings.host, settings.port) and time.monotonic() < deadline:
        time.sleep(0.2)
    waiting = not all(c.ready.is_set() for c in children)
    print(credentials(settings, url, password, waiting), flush=True)


def credentials(settings: Settings, url: str, password: str | None, waiting: bool) -> str:
    """The closing words of start-up: where, who, and how to get back in."""
    user = settings.admin_user
    python = os.path.relpath(sys.executable)
    if python.startswith(".."):
        python = sys.executable
    reset = f"{python} -m api create-user {user} --instructor"
    lines = [f"\nFootholds judge at {url}  (API docs: {url}/docs)"]
    if waiting:
        lines.append("(the workers are still starting: grading begins once they are up)")
    if password and not settings.admin_password:
        lines.append(f"instructor: {user} / {password}   (generated; shown only now)")
        lines.append(f"forgot it? set a new one with: {reset}")
    elif password:
        lines.append(f"instructor: {user} / (JUDGE_ADMIN_PASSWORD)")
    else:
        lines.append(
            f"instructor: {user} (password shown when it was created; reset with: {reset})"
        )
    lines.append("Ctrl-C stops everything.\n")
    return "\n".join(lines)

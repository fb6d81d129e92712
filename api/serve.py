"""`make run`: one command that migrates, then runs the API, a worker, the run lane's worker
and the sweeper (and the hidden lane's worker with JUDGE_HIDDEN_TIERS=queue).

The workers and the sweeper are child processes (the same commands docker-compose runs as
separate services), supervised: one that dies is started again, with backoff, and said so
loudly. The API is this process: if it fails, everything stops and serve exits with an
error. Ctrl-C (or SIGTERM) stops the server and then them, and restarts nothing.
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
from types import FrameType
from typing import IO

import uvicorn

from api.accounts import ensure_admin
from api.main import create_app
from api.security import Passwords
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


# A child that dies is started again after 1 s, then 2, 4 ... at most 30 s while it keeps
# dying; once it has run RESTART_RESET_S it counts as healthy, and the next wait is 1 s again.
RESTART_FIRST_S = 1.0
RESTART_MAX_S = 30.0
RESTART_RESET_S = 60.0


def restart_delay_s(previous_s: float | None, ran_s: float) -> float:
    """The wait before the next start of a child that ran `ran_s` before it died, the last
    wait having been `previous_s` (None: it never died before)."""
    if previous_s is None or ran_s >= RESTART_RESET_S:
        return RESTART_FIRST_S
    return min(previous_s * 2, RESTART_MAX_S)


def describe_exit(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit status {code}"


class Child:
    """A supervised child process, started again with backoff whenever it dies until
    `stop()`. Its output is held back until it says it is ready (Celery's banner and its
    running-as-root warnings would bury the login), then passed through; everything held
    back is shown after all if it ends before it is ready."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], ready: bytes | None) -> None:
        self.name = name
        self.cmd = cmd
        self.env = {**env, "PYTHONUNBUFFERED": "1"}  # lines arrive in the order written
        self._marker = ready
        self.ready = threading.Event()  # the first start is ready (or ended)
        if ready is None:
            self.ready.set()  # nothing to wait for
        self.restarts = 0
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # no start once stop() has begun
        self.proc = self._start()
        threading.Thread(target=self._supervise, name=f"supervise-{name}", daemon=True).start()

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            self.cmd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        first = not self.ready.is_set()
        threading.Thread(target=self._pump, args=(proc, first), daemon=True).start()
        return proc

    def _pump(self, proc: subprocess.Popen[bytes], first: bool) -> None:
        out: IO[bytes] = sys.stdout.buffer
        held: list[bytes] = []
        shown = self._marker is None
        assert proc.stdout is not None
        for line in proc.stdout:
            if shown:
                out.write(line)
                out.flush()
            elif self._marker is not None and self._marker in line:
                shown = True
                if first:
                    self.ready.set()
            else:
                held.append(line)
        if not shown:
            out.writelines(held)  # it ended while starting: why is in what it printed
            out.flush()
        if first:
            self.ready.set()

    def _supervise(self) -> None:
        delay: float | None = None
        while True:
            started = time.monotonic()
            code = self.proc.wait()
            if self._stopping.is_set():
                return
            ran_s = time.monotonic() - started
            delay = restart_delay_s(delay, ran_s)
            self.restarts += 1
            at = time.strftime("%H:%M:%S", time.localtime(time.time() + delay))
            # One line, loud: a dead worker means nothing is graded until it is back.
            print(
                f"serve: ERROR: the {self.name} (pid {self.proc.pid}) died "
                f"({describe_exit(code)}) after {ran_s:.0f} s; "
                f"restarting it at {at} (in {delay:.0f} s, restart {self.restarts})",
                file=sys.stderr,
                flush=True,
            )
            if self._stopping.wait(delay):
                return
            with self._lock:
                if self._stopping.is_set():
                    return
                self.proc = self._start()

    def restart_no_more(self) -> None:
        self._stopping.set()

    def stop(self) -> None:
        """No more restarts; SIGTERM to the running process (waited for by stop_children)."""
        with self._lock:
            self._stopping.set()
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)


def start_children(settings: Settings, env: dict[str, str]) -> list[Child]:
    worker = celery_worker("worker.main", "judge")
    # The run lane: judge.run alone, JUDGE_RUN_SLOTS processes (worker/run_lane.py).
    runner = celery_worker("worker.run_lane", "judge-run", "-Q", "judge.run")
    sweeper = [sys.executable, "-m", "worker", "sweep"]  # quiet until it has work
    children = [
        Child("grading worker", worker, env, READY),
        Child("run lane's worker", runner, env, READY),
        Child("sweeper", sweeper, env, None),
    ]
    if settings.hidden_tiers == "queue":  # the gradings wait for a hidden lane: start one
        hidden = celery_worker("worker.hidden_lane", "judge-hidden", "-Q", "judge.hidden")
        children.insert(2, Child("hidden lane's worker", hidden, env, READY))
    return children


def stop_children(started: list[Child]) -> None:
    for child in started:
        child.stop()
    for child in started:
        try:
            child.proc.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGKILL)
            child.proc.wait()


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
                passwords=Passwords.configured(settings),
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
    server = StoppingServer(
        uvicorn.Config(
            create_app(settings), host=settings.host, port=settings.port, log_level="info"
        ),
        children,
    )
    # uvicorn gives a signal it caught back to the handler it found once it has shut down:
    # ours says "asked to stop" (SIGINT's default raises KeyboardInterrupt).
    signal.signal(signal.SIGTERM, _asked_to_stop)
    asked = False
    failure: BaseException | None = None
    try:
        server.run()
    except (KeyboardInterrupt, AskedToStop):
        asked = True
    except (Exception, SystemExit) as exc:  # the API itself failed (uvicorn exits): below
        failure = exc
    finally:
        print("stopping the workers and the sweeper...", flush=True)
        stop_children(children)
    asked = asked or server.asked
    if failure is not None or not asked:
        # The API is this process: it is not restarted here (a restart loop would hide a bug
        # or a broken setup); serve ends with an error, for whoever started it to see.
        why = f"{type(failure).__name__}({failure})" if failure else "it stopped unasked"
        if not server.started:
            why = f"it did not start ({why})"
        sys.exit(f"serve: ERROR: the API failed: {why}; everything is stopped")


class AskedToStop(Exception):
    """SIGTERM: stop everything, as Ctrl-C does."""


def _asked_to_stop(signum: int, frame: object) -> None:
    raise AskedToStop


class StoppingServer(uvicorn.Server):
    """uvicorn's server; the moment it is asked to stop, the children are restarted no more
    (one that the stop takes down first must not come back while the API shuts down)."""

    def __init__(self, config: uvicorn.Config, children: list[Child]) -> None:
        super().__init__(config)
        self.children = children
        self.asked = False

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.asked = True
        for child in self.children:
            child.restart_no_more()
        super().handle_exit(sig, frame)


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

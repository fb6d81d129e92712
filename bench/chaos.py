"""Chaos: the reliability study's faults, runnable, so the next study starts from them
(`python -m bench --only chaos`, or one scenario: `python -m bench.chaos kill_storm`).

Each scenario starts a real stack (API, grading worker, run lane, sweeper), submits correct
solutions, breaks something for real and puts it back, then asks the API what became of
every submission it accepted. What must be zero in every scenario: `lost` (accepted, no
verdict and not held after the timeout), `ie` (an internal error shown to a student),
`wrong` (a verdict other than AC for a correct solution) and `judged_twice` (a submission
with two finished judgings: a duplicate delivery that was graded). `held` counts
submissions set aside for an instructor after repeated interruptions; a storm of kills can
earn one, fairly, only when the kills land on the same submission's gradings. Nothing is
asserted here: the reliability tests hold these zeros at a smaller size.

- kill_storm: the grading worker SIGKILLed (with its pool, as the OOM killer or a dead
  machine would) and started again, over and over, while a burst is graded.
- stop_past_lease: the worker SIGSTOPped mid-grading for longer than its lease, a second
  worker takes its grading over, then the first is continued: its late verdict must be
  fenced out. Stopped between a write and its commit, it holds its submission's row lock
  until PostgreSQL ends its session (JUDGE_STALLED_TRANSACTION_S); the takeover waits that
  long. The gradings are awaited once it continues: stopped inside a visible run, it holds
  the host's visible phase, and no hidden tier may run beside it meanwhile.
- redis_restart: a Redis of the scenario's own, without persistence, killed with messages
  queued and started again (the sweeper must resend what it lost).
- postgres_restart: a PostgreSQL cluster of the scenario's own, stopped (immediate mode)
  while submissions are graded and started again; the API answers 503 meanwhile.
- full_disk: the embedded setup (SQLite database and broker) on a small tmpfs filled to
  the last byte, then freed: the worker must ride it out, however long. Needs root to mount
  the tmpfs; otherwise reported as not run.

Needs the test suite's PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) for the
scenarios that do not bring their own; each uses a fresh database and key prefix.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.report import Report, print_line, report_numbers
from bench.scaling import fresh_services
from tests.service.redis_server import RedisServer
from tests.service.stack import Stack, free_port, service_env, solution, wait_for

SOURCE = "numbergame_ok"  # a grading of about a second: many fit in a scenario
SETTLE_TIMEOUT_S = 300.0


def _submit_all(stack: Stack, tokens: list[str], each: int) -> tuple[list[tuple[str, int]], int]:
    """Every student submits `each` times; returns the accepted (token, id) and how many
    were refused with 503 (the service said it could not take them: not lost)."""
    source = solution(SOURCE)
    accepted, refused = [], 0
    for _ in range(each):
        for token in tokens:
            code = _post(stack, token, source)
            if isinstance(code, int) and code > 0:
                accepted.append((token, code))
            else:
                refused += 1
    return accepted, refused


def _post(stack: Stack, token: str, source: str) -> int:
    """A submission's id, or 0 when the service refused it (503) or could not answer."""
    try:
        response = stack.request(
            "POST", "/api/v1/submissions", token, json={"problem": "numbergame", "source": source}
        )
    except httpx.TransportError:
        return 0
    if response.status_code == 202:
        return int(response.json()["id"])
    if response.status_code == 503:
        return 0
    raise AssertionError(f"submit answered {response.status_code}: {response.text[:300]}")


def _students(stack: Stack, name: str, count: int) -> list[str]:
    return [stack.register(f"{name}{i}_{os.urandom(3).hex()}") for i in range(count)]


def _settle(stack: Stack, accepted: list[tuple[str, int]], timeout_s: float) -> dict[str, Any]:
    """Wait until every accepted submission is done or held (or the timeout), then tally."""
    teacher = stack.instructor()
    started = time.monotonic()
    bodies: dict[int, dict[str, Any]] = {}
    while time.monotonic() - started < timeout_s:
        for _, sid in accepted:
            if sid in bodies:
                continue
            with contextlib.suppress(httpx.TransportError):
                response = stack.request("GET", f"/api/v1/submissions/{sid}", teacher)
                if response.status_code == 200 and response.json()["status"] in ("done", "held"):
                    bodies[sid] = response.json()
        if len(bodies) == len(accepted):
            break
        time.sleep(0.5)
    verdicts = [body["verdict"] for body in bodies.values() if body["status"] == "done"]
    return {
        "accepted": len(accepted),
        "lost": len(accepted) - len(bodies),
        "held": sum(body["status"] == "held" for body in bodies.values()),
        "ie": verdicts.count("IE"),
        "wrong": sum(v not in ("AC", "IE") for v in verdicts),
        "judged_twice": sum(len(body["history"]) > 1 for body in bodies.values()),
        "settle_s": round(time.monotonic() - started, 1),
    }


def _log(stack: Stack, name: str) -> str:
    path = stack.tmp / f"{name}.log"
    return path.read_text(errors="replace") if path.exists() else ""


@contextlib.contextmanager
def _stack(name: str, tmp: Path, **env: str) -> Iterator[Stack]:
    stack = Stack(name, tmp, service_env(tmp, **env))
    try:
        yield stack
    finally:
        stack.stop()


def _state(stack: Stack, teacher: str, accepted: list[tuple[str, int]]) -> str:
    """Each submission's status and attempts, and the stack's logs: what a timeout shows."""
    rows = []
    for _, sid in accepted:
        body = stack.detail(teacher, sid)
        rows.append(f"{sid}: {body['status']}, attempts {body['attempts']}")
    return "\n".join(rows) + "\n" + stack.logs() + "\n"


# Celery's lines of a task: "received", then "succeeded in ...", "retry: ...", "raised ...".
_TASK_EVENT = re.compile(r"Task [\w.]+\[([0-9a-f-]+)\] (\w+)")


def _all_tasks_ended(log: str) -> bool:
    """Every task a Celery worker's log says it received has ended there (or been retried)."""
    open_tasks: set[str] = set()
    for task, event in _TASK_EVENT.findall(log):
        if event == "received":
            open_tasks.add(task)
        else:
            open_tasks.discard(task)
    return not open_tasks


def kill_storm(students: int = 10, each: int = 3, kills: int = 10) -> dict[str, Any]:
    with (
        fresh_services() as services,
        tempfile.TemporaryDirectory(prefix="judge-chaos-") as tmp,
        _stack("chaos", Path(tmp), JUDGE_LEASE_S="5", **services) as stack,
    ):
        stack.start()
        tokens = _students(stack, "storm", students)
        accepted, refused = _submit_all(stack, tokens, each)
        for n in range(kills):
            time.sleep(0.7 + 0.4 * (n % 3))  # lands at different points of a grading
            stack.kill("worker")
            stack.start_worker()
        tally = _settle(stack, accepted, SETTLE_TIMEOUT_S)
    return {"kills": kills, "refused": refused, **tally}


def stop_past_lease(students: int = 4, lease_s: float = 3.0) -> dict[str, Any]:
    with (
        fresh_services() as services,
        tempfile.TemporaryDirectory(prefix="judge-chaos-") as tmp,
        _stack(
            "chaos",
            Path(tmp),
            JUDGE_LEASE_S=str(lease_s),
            # A phase lock of its own: the stopped worker holds the visible phase while it
            # is stopped, and every hidden run on the machine (another judge's) would wait.
            JUDGE_SANDBOX_PHASE_DIR=str(Path(tmp) / "phase"),
            **services,
        ) as stack,
    ):
        stack.start()
        tokens = _students(stack, "stopped", students)
        teacher = stack.instructor()
        accepted, refused = _submit_all(stack, tokens, 1)
        wait_for(
            lambda: any(stack.detail(teacher, sid)["status"] == "running" for _, sid in accepted),
            timeout=60,
            interval=0.05,
            what="a grading to start",
        )
        frozen = stack.procs["worker"]
        os.killpg(frozen.pid, signal.SIGSTOP)
        try:
            time.sleep(lease_s * 2 + 1)  # its lease runs out while it cannot renew it
            stack.start_worker("worker2")
            # The second worker takes the stopped one's grading over. It may not finish it
            # while the first is stopped: stopped inside a visible run, the first holds the
            # visible phase, and no hidden run may start beside it on this host (phase.py).
            took_over = wait_for(
                lambda: any(stack.detail(teacher, sid)["attempts"] >= 2 for _, sid in accepted),
                timeout=60,
                interval=0.05,
                what="the second worker to claim the stopped one's grading",
                context=lambda: _state(stack, teacher, accepted) + stack.log_tail("worker2"),
            )
        finally:
            os.killpg(frozen.pid, signal.SIGCONT)
        tally = _settle(stack, accepted, SETTLE_TIMEOUT_S)
        # The continued worker finishes what it held (fenced, or nothing), maybe after the
        # second worker's verdicts: its log is read once every task it received has ended.
        wait_for(
            lambda: _all_tasks_ended(_log(stack, "worker")),
            timeout=SETTLE_TIMEOUT_S,
            what="the continued worker to end the gradings it held",
            context=lambda: stack.log_tail("worker"),
        )
        fenced = _log(stack, "worker").count(": claim lost")
    return {
        "refused": refused,
        "taken_over": bool(took_over),
        "stale_writes_fenced": fenced,
        **tally,
    }


def redis_restart(students: int = 5, each: int = 2) -> dict[str, Any]:
    if shutil.which("redis-server") is None:
        return {"not_run": "redis-server is not installed"}
    with (
        fresh_services() as services,
        tempfile.TemporaryDirectory(prefix="judge-chaos-") as tmp,
    ):
        server = RedisServer(free_port(), Path(tmp) / "redis.log")
        server.start()
        env = services | {"JUDGE_BROKER_URL": f"redis://127.0.0.1:{server.port}/0"}
        try:
            with _stack("chaos", Path(tmp), **env) as stack:
                stack.setup()
                stack.start_api()
                stack.start_sweeper()
                tokens = _students(stack, "broker", students)
                queued, _ = _submit_all(stack, tokens, each)  # no worker yet: all in Redis
                server.kill()  # no persistence: every queued message is gone
                during, refused = _submit_all(stack, tokens, 1)  # committed; sent later
                time.sleep(2)
                server.start()
                stack.start_worker()
                stack.start_runner()
                tally = _settle(stack, queued + during, SETTLE_TIMEOUT_S)
        finally:
            server.kill()
    return {"queued_when_killed": len(queued), "refused": refused, **tally}


class PostgresCluster:
    """A PostgreSQL cluster of the scenario's own (initdb, pg_ctl), on a free loopback port;
    as root, run as the postgres user (initdb refuses root)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "pgdata"
        self.port = free_port()
        binaries = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        self.bin = binaries[-1].parent if binaries else None

    def available(self) -> str | None:
        if self.bin is None:
            return "PostgreSQL's server binaries (initdb, pg_ctl) are not installed"
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            return "running as root without runuser to become postgres"
        return None

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.root / "postgres.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"


def postgres_restart(students: int = 5, each: int = 2, down_s: float = 10.0) -> dict[str, Any]:
    with (
        fresh_services() as services,
        tempfile.TemporaryDirectory(prefix="judge-chaos-") as tmp,
    ):
        cluster = PostgresCluster(Path(tmp) / "pg")
        if reason := cluster.available():
            return {"not_run": reason}
        os.chmod(tmp, 0o755)  # the postgres user walks into its cluster's folder
        cluster.init()
        cluster.start()
        try:
            env = services | {"JUDGE_DATABASE_URL": cluster.url}
            with _stack("chaos", Path(tmp) / "stack", **env) as stack:
                stack.tmp.mkdir()
                stack.start()
                tokens = _students(stack, "pg", students)
                accepted, _ = _submit_all(stack, tokens, each)
                time.sleep(1)  # some gradings under way
                cluster.stop()
                statuses = _poll_statuses(stack, tokens[0], down_s)
                cluster.start()
                later, refused = _submit_all(stack, tokens, 1)
                tally = _settle(stack, accepted + later, SETTLE_TIMEOUT_S)
                alive = _alive(stack)
        finally:
            cluster.stop()
    return {
        "down_s": down_s,
        "answers_while_down": statuses,
        "refused_after": refused,
        "processes_alive_after": alive,
        **tally,
    }


def _alive(stack: Stack) -> str:
    """Which of the stack's processes still run (nothing restarts them here, unlike make
    run and compose: a process that died of the fault shows)."""
    return ", ".join(
        f"{name}={'yes' if proc.poll() is None else 'NO'}" for name, proc in stack.procs.items()
    )


def _poll_statuses(stack: Stack, token: str, seconds: float) -> str:
    """What the API answered to a submission and a read, every 0.5 s for `seconds`
    (e.g. "503 x40"): never a 500, never a hang."""
    seen: dict[str, int] = {}
    until = time.monotonic() + seconds
    source = solution(SOURCE)
    while time.monotonic() < until:
        for method, path, body in (
            ("POST", "/api/v1/submissions", {"problem": "numbergame", "source": source}),
            ("GET", "/api/v1/submissions", None),
        ):
            try:
                code = str(stack.request(method, path, token, json=body).status_code)
            except httpx.TransportError as error:
                code = type(error).__name__
            seen[code] = seen.get(code, 0) + 1
        time.sleep(0.5)
    return ", ".join(f"{code} x{count}" for code, count in sorted(seen.items()))


@contextlib.contextmanager
def _tmpfs(path: Path, size_mb: int) -> Iterator[None]:
    path.mkdir(parents=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(path)], check=True
    )
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _fill(path: Path) -> Path:
    """Write zeros under `path` until the disk is full; returns the filler file."""
    filler = path / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 4096):  # megabytes, then the last partial one
            block = b"\0" * size
            with contextlib.suppress(OSError):
                while os.write(fd, block):
                    pass
    finally:
        os.close(fd)  # unbuffered: nothing left to write, so closing cannot fail for space
    return filler


def full_disk(students: int = 3, full_s: float = 20.0) -> dict[str, Any]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return {"not_run": "needs root to mount a small tmpfs as the data disk"}
    with tempfile.TemporaryDirectory(prefix="judge-chaos-") as tmp:
        data = Path(tmp) / "data"
        with _tmpfs(data, 256), _stack("chaos", data) as stack:
            stack.start()
            tokens = _students(stack, "disk", students)
            before, _ = _submit_all(stack, tokens, 1)
            _settle(stack, before, SETTLE_TIMEOUT_S)
            filler = _fill(data)
            statuses = _poll_statuses(stack, tokens[0], full_s)
            filler.unlink()
            time.sleep(5)
            after, refused = _submit_all(stack, tokens, 2)
            tally = _settle(stack, before + after, SETTLE_TIMEOUT_S)
            alive = _alive(stack)
    return {
        "full_s": full_s,
        "answers_while_full": statuses,
        "refused_after": refused,
        "processes_alive_after": alive,
        **tally,
    }


SCENARIOS: dict[str, Callable[..., dict[str, Any]]] = {
    "kill_storm": kill_storm,
    "stop_past_lease": stop_past_lease,
    "redis_restart": redis_restart,
    "postgres_restart": postgres_restart,
    "full_disk": full_disk,
}


def run(
    report: Report | None = None,
    only: list[str] | None = None,
    sizes: dict[str, dict[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Every scenario (or `only` those), with `sizes[name]` as its keyword arguments."""
    results = {}
    for name, scenario in SCENARIOS.items():
        if only is None or name in only:
            numbers = scenario(**(sizes or {}).get(name, {}))
            results[name] = report_numbers(f"chaos {name}", numbers, report)
    return results


if __name__ == "__main__":
    run(print_line, only=sys.argv[1:] or None)

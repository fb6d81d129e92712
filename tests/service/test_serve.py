"""`make run` (python -m api serve) on a fresh data dir with nothing configured: it migrates,
prints the URL and generated instructor credentials, grades, runs, restarts a worker or the
sweeper that dies (with backoff, loudly), runs a hidden lane with JUDGE_HIDDEN_TIERS=queue, and
Ctrl-C or SIGTERM stops everything; the API failing ends it with an error."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from api.serve import RESTART_FIRST_S, RESTART_MAX_S, RESTART_RESET_S, restart_delay_s
from tests.service.stack import REPO, free_port, loopback_client, solution, wait_for

pytestmark = pytest.mark.sandbox

RESTARTED = re.compile(
    r"serve: ERROR: the (?P<name>[\w' ]+) \(pid (?P<pid>\d+)\) died \((?P<how>[^)]+)\) "
    r"after \d+ s; restarting it at \d\d:\d\d:\d\d \(in (?P<delay>\d+) s, restart \d+\)"
)


def start_serve(tmp_path: Path, port: int, **settings: str) -> tuple[subprocess.Popen, Path]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(JUDGE_DATA_DIR=str(tmp_path / "var"), JUDGE_PORT=str(port), PYTHONUNBUFFERED="1")
    env.update(settings)
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "api", "serve"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return proc, log


def children_of(pid: int, running: str) -> list[int]:
    """Pids of `pid`'s children whose command line holds `running`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and running in cmdline:
            found.append(int(stat.parent.name))
    return found


def one_child(pid: int, running: str, log: Path) -> int:
    return wait_for(
        lambda: (found := children_of(pid, running)) and len(found) == 1 and found[0],
        timeout=60,
        what=f"serve's child running {running}",
        context=log.read_text,
    )


def test_the_restart_backoff_doubles_to_its_cap_and_resets_after_good_health() -> None:
    delays, delay = [], None
    for _ in range(8):
        delay = restart_delay_s(delay, ran_s=0.5)
        delays.append(delay)
    assert delays == [1, 2, 4, 8, 16, 30, 30, 30] and RESTART_MAX_S == 30
    assert restart_delay_s(30, ran_s=RESTART_RESET_S) == RESTART_FIRST_S == 1


def test_one_command_runs_the_whole_service(tmp_path) -> None:
    port = free_port()
    proc, log = start_serve(tmp_path, port)
    try:
        found = wait_for(
            lambda: re.search(r"instructor: (\S+) / (\S+)\s+\(generated", log.read_text()),
            timeout=180,  # shown once the workers are up
            what="the credentials",
            context=log.read_text,
        )
        text = log.read_text()
        assert f"http://127.0.0.1:{port}" in text
        # The credentials come last, once the API and the workers are up, with a way back in;
        # the workers' banners and running-as-root warnings are not printed at all.
        before, after = text.split(found[0], 1)
        assert "Uvicorn running on" in before
        assert "create-user admin --instructor" in after
        for noise in ("-------------- ", "superuser", "[queues]", " ready."):
            assert noise not in text, noise
        client = loopback_client(f"http://127.0.0.1:{port}")

        def up() -> bool:
            try:
                return client.get("/healthz").status_code == 200
            except httpx.TransportError:
                return False

        wait_for(up, timeout=60, what="the API", context=log.read_text)
        token = client.post(
            "/api/v1/token", data={"username": found[1], "password": found[2]}
        ).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        sid = client.post(
            "/api/v1/submissions",
            headers=headers,
            json={"problem": "numbergame", "source": solution("numbergame_ok")},
        ).json()["id"]

        def done(path: str) -> dict:
            return wait_for(
                lambda: (b := client.get(path, headers=headers).json())["status"] == "done" and b,
                timeout=120,
                what=path,
                context=log.read_text,
            )

        body = done(f"/api/v1/submissions/{sid}")
        assert body["verdict"] == "AC"
        # The run lane runs too: a run on the samples.
        rid = client.post(
            "/api/v1/runs",
            headers=headers,
            json={"problem": "numbergame", "source": solution("numbergame_ok")},
        ).json()["id"]
        run = done(f"/api/v1/runs/{rid}")
        assert run["results"] and {c["verdict"] for c in run["results"]} == {"AC"}
        assert (tmp_path / "var" / "judge.sqlite").exists()
        assert (tmp_path / "var" / "broker.sqlite").exists()

        # The grading worker dies (the OOM killer, a full disk): serve says so and starts
        # it again, and the next submission is graded.
        worker = one_child(proc.pid, "worker.main", log)
        os.killpg(worker, signal.SIGKILL)
        died = wait_for(
            lambda: RESTARTED.search(log.read_text()),
            timeout=60,
            what="the restart to be announced",
            context=log.read_text,
        )
        assert (died["name"], died["pid"], died["how"]) == (
            "grading worker",
            str(worker),
            "killed by SIGKILL",
        )
        assert died["delay"] == "1"
        wait_for(
            lambda: (found := children_of(proc.pid, "worker.main")) and worker not in found,
            timeout=60,
            what="a new grading worker",
            context=log.read_text,
        )
        again = client.post(
            "/api/v1/submissions",
            headers=headers,
            json={"problem": "numbergame", "source": solution("numbergame_ok")},
        ).json()["id"]
        assert done(f"/api/v1/submissions/{again}")["verdict"] == "AC"

        # The sweeper dies twice in a row: the second wait is twice the first.
        for restart, delay in enumerate(("1", "2"), start=1):
            sweeper = one_child(proc.pid, "worker sweep", log)
            os.kill(sweeper, signal.SIGKILL)
            line = wait_for(
                lambda sweeper=sweeper: [
                    m for m in RESTARTED.finditer(log.read_text()) if m["pid"] == str(sweeper)
                ],
                timeout=60,
                what=f"sweeper restart {restart}",
                context=log.read_text,
            )[0]
            assert (line["name"], line["delay"]) == ("sweeper", delay)
            wait_for(
                lambda sweeper=sweeper: (
                    (found := children_of(proc.pid, "worker sweep")) and sweeper not in found
                ),
                timeout=60,
                what="a new sweeper",
                context=log.read_text,
            )
        client.close()
    finally:
        proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
        proc.wait(60)
    text = log.read_text()
    assert "stopping the workers and the sweeper" in text
    assert not RESTARTED.search(text.split("stopping the workers", 1)[1])  # none restarted
    assert proc.returncode == 0, text[-3000:]
    assert processes_with(f"JUDGE_DATA_DIR={tmp_path / 'var'}") == [], "left running after Ctrl-C"


def test_serve_starts_a_hidden_lane_when_asked_and_sigterm_stops_everything(
    tmp_path, postgres, redis_main
) -> None:
    """With JUDGE_HIDDEN_TIERS=queue (PostgreSQL and Redis, as it needs), serve starts the
    hidden lane's worker too, and a hidden board is graded on it."""
    broker, prefix = redis_main()
    port = free_port()
    proc, log = start_serve(
        tmp_path,
        port,
        JUDGE_HIDDEN_TIERS="queue",
        JUDGE_DATABASE_URL=postgres(),
        JUDGE_BROKER_URL=broker,
        JUDGE_BROKER_KEY_PREFIX=prefix,
    )
    try:
        found = wait_for(
            lambda: re.search(r"instructor: (\S+) / (\S+)\s+\(generated", log.read_text()),
            timeout=180,
            what="serve to be up",
            context=log.read_text,
        )
        # The grading worker, the run lane's, the hidden lane's, the sweeper.
        assert len(children_of(proc.pid, "")) == 4
        assert len(children_of(proc.pid, "worker.hidden_lane")) == 1
        with loopback_client(f"http://127.0.0.1:{port}") as client:
            login = {"username": found[1], "password": found[2]}
            token = client.post("/api/v1/token", data=login).json()["access_token"]
            headers = {"Authorization": f"Bearer {token}"}
            board = {"input": {"board": [4, -2, 7, 1]}}
            path = "/api/v1/problems/numbergame/boards"
            assert client.post(path, headers=headers, json=board).status_code == 201
            source = {"problem": "numbergame", "source": solution("numbergame_ok")}
            sid = client.post("/api/v1/submissions", headers=headers, json=source).json()["id"]
            body = wait_for(
                lambda: (
                    (b := client.get(f"/api/v1/submissions/{sid}", headers=headers).json())[
                        "status"
                    ]
                    == "done"
                    and b
                ),
                timeout=120,
                what="the verdict",
                context=log.read_text,
            )
        assert body["verdict"] == "AC", body
        assert [t["verdict"] for t in body["tests"] if t["kind"] == "hidden"] == ["AC"]
    finally:
        proc.terminate()  # SIGTERM: what a service manager sends
        proc.wait(60)
    text = log.read_text()
    assert proc.returncode == 0, text[-3000:]
    assert "stopping the workers and the sweeper" in text
    assert not RESTARTED.search(text)
    assert processes_with(f"JUDGE_DATA_DIR={tmp_path / 'var'}") == [], "left running"


def test_the_api_failing_ends_serve_with_an_error(tmp_path) -> None:
    """The API is serve's own process: it is not restarted; serve stops the workers and
    exits with an error. Here its port is taken (bound, not listening: serve's check before
    starting anything sees it free, uvicorn cannot bind it)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        proc, log = start_serve(tmp_path, taken.getsockname()[1])
        try:
            proc.wait(180)
        finally:
            if proc.poll() is None:
                proc.kill()
    text = log.read_text()
    assert proc.returncode == 1, text[-3000:]
    assert "serve: ERROR: the API failed: it did not start" in text
    assert "stopping the workers and the sweeper" in text
    assert processes_with(f"JUDGE_DATA_DIR={tmp_path / 'var'}") == [], "left running"


def processes_with(variable: str) -> list[int]:
    """Pids of live processes whose environment holds `variable` (this run's children)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if variable.encode() + b"\0" in environ.read_bytes() + b"\0":
                found.append(int(environ.parent.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found

"""`make run` (python -m api serve) on a fresh data dir with nothing configured: it migrates,
prints the URL and generated instructor credentials, grades, runs, and Ctrl-C stops
everything."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.service.stack import REPO, free_port, loopback_client, solution, wait_for

pytestmark = pytest.mark.sandbox


def test_one_command_runs_the_whole_service(tmp_path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(JUDGE_DATA_DIR=str(tmp_path / "var"), JUDGE_PORT=str(port), PYTHONUNBUFFERED="1")
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
        client.close()
    finally:
        proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
        proc.wait(60)
    assert "stopping the workers and the sweeper" in log.read_text()
    assert processes_with(f"JUDGE_DATA_DIR={tmp_path / 'var'}") == [], "left running after Ctrl-C"


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

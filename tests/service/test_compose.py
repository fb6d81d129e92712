"""docker-compose.yml and the Dockerfile checked against the code (no Docker engine here):
every command exists, env var names are settings fields, services have healthchecks, and
the worker gets the permissions bubblewrap needs."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from store.settings import Settings

REPO = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
JUDGE_SERVICES = [name for name, s in SERVICES.items() if s.get("build")]
SETTINGS_VARS = {f"JUDGE_{name.upper()}" for name in Settings.model_fields}


def test_the_stack_has_its_services_and_one_judge_image() -> None:
    assert {"postgres", "redis", "migrate", "api", "worker", "sweeper"} <= set(SERVICES)
    assert set(JUDGE_SERVICES) == {"migrate", "api", "worker", "sweeper"}
    assert {SERVICES[name]["build"] for name in JUDGE_SERVICES} == {"."}
    assert len({SERVICES[name]["image"] for name in JUDGE_SERVICES}) == 1
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "bubblewrap" in dockerfile and "pip install ." in dockerfile
    for copied in re.findall(r"^COPY (\S+)", dockerfile, flags=re.M):
        assert (REPO / copied).exists(), copied


def test_datastores_persist_and_have_healthchecks() -> None:
    postgres, redis = SERVICES["postgres"], SERVICES["redis"]
    assert any(v.endswith(":/var/lib/postgresql/data") for v in postgres["volumes"])
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert "ping" in redis["healthcheck"]["test"]
    for name in ("api", "worker"):
        assert SERVICES[name]["healthcheck"]["test"], name


def test_services_start_in_order() -> None:
    assert SERVICES["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("api", "worker", "sweeper"):
        depends = SERVICES[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully", name
        assert depends["redis"]["condition"] == "service_healthy", name


def test_environment_names_are_settings_fields() -> None:
    for name in JUDGE_SERVICES:
        env = SERVICES[name]["environment"]
        unknown = {k for k in env if k.startswith("JUDGE_")} - SETTINGS_VARS
        assert not unknown, (name, unknown)
        assert env["JUDGE_ENVIRONMENT"] == "production"
        assert env["JUDGE_DATABASE_URL"].startswith("postgresql+psycopg://")
        assert env["JUDGE_BROKER_URL"].startswith("redis://")
        assert env["JUDGE_REGISTRATION"] == "${JUDGE_REGISTRATION:-open}"


def test_the_worker_may_use_bubblewrap() -> None:
    worker = SERVICES["worker"]
    assert {"seccomp=unconfined", "apparmor=unconfined"} <= set(worker["security_opt"])
    assert "SYS_ADMIN" in worker["cap_add"]
    assert "JUDGE_WORKER_SLOTS" in worker["environment"]
    assert "ports" not in worker  # scaled with --scale worker=N: nothing to collide on


def test_the_file_follows_the_compose_schema() -> None:
    """Debian's docker-compose (v1) checks the file against the compose schema, no engine."""
    tool = shutil.which("docker-compose")
    if tool is None:
        pytest.fail("docker-compose is required (Debian package docker-compose; make setup)")
    env = dict(os.environ, JUDGE_SECRET_KEY="compose-test")
    done = subprocess.run(
        [tool, "-f", str(REPO / "docker-compose.yml"), "config", "-q"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("service", ["migrate", "api", "worker", "sweeper"])
def test_each_command_exists(service: str) -> None:
    """Ask each command for --help: the module imports and the subcommand is real."""
    command = SERVICES[service]["command"]
    if command[0] == "python":
        argv = [sys.executable, *command[1:]]
    else:
        argv = [str(Path(sys.executable).with_name(command[0])), *command[1:]]
    env = dict(os.environ, JUDGE_SECRET_KEY="compose-test", JUDGE_DATA_DIR=str(REPO / "var"))
    done = subprocess.run(
        [*argv, "--help"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{shlex.join(command)}:\n{done.stdout}\n{done.stderr}"

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
import tempfile
import tomllib
from pathlib import Path

import pytest
import yaml
from sqlalchemy.orm import Session

from config import Settings
from store.db import make_engine
from store.repo.uid_blocks import held_blocks
from tests.service.stack import Stack, service_env, wait_for

REPO = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
JUDGE_SERVICES = [name for name, s in SERVICES.items() if s.get("build")]
SETTINGS_VARS = {f"JUDGE_{name.upper()}" for name in Settings.model_fields}


def test_the_stack_has_its_services_and_one_judge_image() -> None:
    assert {"postgres", "redis", "migrate", "api", "worker", "runner", "hidden", "sweeper"} <= set(
        SERVICES
    )
    assert set(JUDGE_SERVICES) == {"migrate", "api", "worker", "runner", "hidden", "sweeper"}
    assert {SERVICES[name]["build"] for name in JUDGE_SERVICES} == {"."}
    assert len({SERVICES[name]["image"] for name in JUDGE_SERVICES}) == 1
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "bubblewrap" in dockerfile and "pip install ." in dockerfile
    # The toolchains of C++, Java and Kotlin submissions, in the one image (the API checks
    # that a submission's language is installed where it runs).
    installs = " ".join(re.findall(r"apt-get install ([^&]+)", dockerfile))
    for package in ("g++", "openjdk-17-jdk-headless", "kotlin"):
        assert package in installs.split(), package
    copied = re.findall(r"^COPY (\S+)", dockerfile, flags=re.M)
    for path in copied:
        assert (REPO / path).exists(), path


def test_the_image_holds_every_package_pip_installs() -> None:
    # `pip install .` in the image installs what was copied: a package the code imports but
    # the Dockerfile forgot (similarity/ once) is an image whose worker cannot start.
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {pattern.removesuffix("*") for pattern in patterns}
    dockerfile = (REPO / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\S+) \1$", dockerfile, flags=re.M))
    assert packages <= copied, sorted(packages - copied)
    # and every top-level package of the project is in that list
    on_disk = {p.parent.name for p in REPO.glob("*/__init__.py")} - {"tests", "bench"}
    assert on_disk <= packages, sorted(on_disk - packages)


def test_datastores_persist_and_have_healthchecks() -> None:
    postgres, redis = SERVICES["postgres"], SERVICES["redis"]
    assert any(v.endswith(":/var/lib/postgresql/data") for v in postgres["volumes"])
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert "ping" in redis["healthcheck"]["test"]
    for name in ("api", "worker", "runner", "hidden", "sweeper"):
        assert SERVICES[name]["healthcheck"]["test"], name


LONG_RUNNING = [name for name in SERVICES if name != "migrate"]


@pytest.mark.parametrize("service", LONG_RUNNING)
def test_every_long_running_service_restarts_and_has_a_healthcheck(service: str) -> None:
    """A service that dies is started again (a worker killed for good stopped all grading),
    and its healthcheck says whether it works, not only whether it runs."""
    spec = SERVICES[service]
    assert spec["restart"] in ("always", "unless-stopped"), service
    assert spec["healthcheck"]["test"], service
    assert SERVICES["migrate"]["restart"] == "no"  # runs once


def test_the_api_healthcheck_asks_for_the_api_alone() -> None:
    """/healthz answers 503 while no grading worker is alive; the API container is not
    unhealthy for that: its check asks /healthz/api (the API and its database)."""
    from api.routers import health

    test = " ".join(SERVICES["api"]["healthcheck"]["test"])
    path = re.search(r"127\.0\.0\.1:8000(/\S+?)'", test)
    assert path is not None and path[1] == "/healthz/api"
    assert {"/healthz", "/healthz/api"} <= {getattr(r, "path", "") for r in health.router.routes}


def test_the_sweeper_healthcheck_command_exists() -> None:
    from store.repo.heartbeats import LANES

    command = SERVICES["sweeper"]["healthcheck"]["test"]
    assert command[:5] == ["CMD", "python", "-m", "worker", "alive"]
    assert command[5] in LANES


def test_services_start_in_order() -> None:
    assert SERVICES["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("api", "worker", "runner", "hidden", "sweeper"):
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


@pytest.mark.parametrize(
    ("service", "slots"), [("worker", "WORKER"), ("runner", "RUN"), ("hidden", "HIDDEN")]
)
def test_the_sandboxing_services_may_use_bubblewrap(service: str, slots: str) -> None:
    worker = SERVICES[service]
    assert {"seccomp=unconfined", "apparmor=unconfined"} <= set(worker["security_opt"])
    assert "SYS_ADMIN" in worker["cap_add"]
    assert f"JUDGE_{slots}_SLOTS" in worker["environment"]
    assert "ports" not in worker  # scaled with --scale worker=N: nothing to collide on
    others = {name for name, s in SERVICES.items() if s.get("cap_add")} - {
        "worker",
        "runner",
        "hidden",
    }
    assert not others  # only they get these permissions
    # One phase lock for every sandboxing service on the host (judge/sandbox/phase.py).
    assert "phase:/run/judge-phase" in worker["volumes"]
    from judge.sandbox.phase import default_phase_dir

    assert default_phase_dir() == "/run/judge-phase" or os.geteuid() != 0


def _queue_option(command: list[str]) -> list[str] | None:
    return command[command.index("-Q") + 1].split(",") if "-Q" in command else None


def test_runs_have_a_lane_of_their_own() -> None:
    """The runner consumes judge.run alone; the grading worker never consumes it (its app
    lists only the grading queues, and its command names no other)."""
    from worker.app import GRADING_QUEUES, RUN_QUEUE, make_celery

    runner, worker = SERVICES["runner"]["command"], SERVICES["worker"]["command"]
    assert runner[runner.index("-A") + 1] == "worker.run_lane"
    assert _queue_option(runner) == [RUN_QUEUE]
    assert worker[worker.index("-A") + 1] == "worker.main"
    assert RUN_QUEUE not in (_queue_option(worker) or GRADING_QUEUES)
    settings = Settings(secret_key="compose-test", run_slots=3, worker_slots=2)
    grading, lane = make_celery(settings), make_celery(settings, run_lane=True)
    assert [q.name for q in grading.conf.task_queues] == list(GRADING_QUEUES)
    assert [q.name for q in lane.conf.task_queues] == [RUN_QUEUE]
    assert (grading.conf.worker_concurrency, lane.conf.worker_concurrency) == (2, 3)


def test_hidden_tiers_have_workers_of_their_own() -> None:
    """The worker sends hidden tiers to judge.hidden, which the hidden service alone
    consumes, and the sandboxing services share one phase lock."""
    from worker.app import GRADING_QUEUES, HIDDEN_QUEUE, RUN_QUEUE, make_celery

    hidden, worker = SERVICES["hidden"]["command"], SERVICES["worker"]["command"]
    assert hidden[hidden.index("-A") + 1] == "worker.hidden_lane"
    assert _queue_option(hidden) == [HIDDEN_QUEUE]
    assert SERVICES["worker"]["environment"]["JUDGE_HIDDEN_TIERS"] == "queue"
    assert HIDDEN_QUEUE not in (_queue_option(worker) or GRADING_QUEUES)
    assert HIDDEN_QUEUE != RUN_QUEUE
    settings = Settings(secret_key="compose-test", hidden_slots=3)
    lane = make_celery(settings, hidden_lane=True)
    assert [q.name for q in lane.conf.task_queues] == [HIDDEN_QUEUE]
    assert lane.conf.worker_concurrency == 3


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


@pytest.mark.parametrize("service", ["migrate", "api", "worker", "runner", "sweeper"])
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


# ---- `docker compose up --scale worker=N`: the worker replicas on one host ---------------

UID_REPORTER = """
import os, time

SLEPT = []


def solution(board):
    if not SLEPT:  # hold the slot a moment, so every worker gets some of the burst
        time.sleep(1)
        SLEPT.append(1)
    return os.getuid()
"""


def test_the_workers_are_identical_replicas() -> None:
    """Nothing in the worker service tells one replica from another: each takes its uid
    block from the database at start (worker/uid_block_lease.py)."""
    worker = SERVICES["worker"]
    assert not {"container_name", "hostname", "ports"} & set(worker)
    env = worker["environment"]
    assert "JUDGE_SANDBOX_SLOT_DIR" not in env  # each replica's /run is its own anyway


def _spawn_replica(stack: Stack, name: str, host_tmp: Path, uid_base: int) -> None:
    """A worker as one more container would run it: the worker service's command and
    settings, its own /run (slot locks) and /tmp, one PostgreSQL and Redis. `uid_base`: the
    replicas' sandbox uids. Their slot locks are their own, so only the lease keeps them
    apart, and only from each other: a uid of the rest of the suite's sandboxes (61000 on,
    locked in /run/judge-slots) would share its run's cgroup with theirs, and the first run
    to end would kill the other's processes (a replica's sample died so, once in CI)."""
    run_dir, tmp_dir = host_tmp / f"{name}-run", host_tmp / f"{name}-tmp"
    run_dir.mkdir()
    tmp_dir.mkdir(mode=0o711)
    tmp_dir.chmod(0o711)
    service_env = {
        k: str(v) for k, v in SERVICES["worker"]["environment"].items() if "${" not in str(v)
    }
    # This host's PostgreSQL and Redis, not the compose network's; not production (the
    # test's secret is generated).
    for key in ("JUDGE_DATABASE_URL", "JUDGE_BROKER_URL", "JUDGE_ENVIRONMENT"):
        service_env.pop(key, None)
    command = SERVICES["worker"]["command"]
    env = dict(stack.env, **service_env, JUDGE_SANDBOX_SLOT_DIR=str(run_dir), TMPDIR=str(tmp_dir))
    env["JUDGE_SANDBOX_UID_BASE"] = str(uid_base)
    log = open(stack.tmp / f"{name}.log", "ab")  # noqa: SIM115 (closed with the process)
    stack.procs[name] = subprocess.Popen(
        [
            str(Path(sys.executable).with_name(command[0])),
            *command[1:],
            "--without-heartbeat",
            f"--hostname={name}-{os.getpid()}@%h",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()


def _leased_uids(stack: Stack, name: str) -> range | None:
    text = (stack.tmp / f"{name}.log").read_text(errors="replace")
    found = re.search(r"sandbox uids (\d+)-(\d+) \(block \d+\)", text)
    if found is None or " ready." not in text:
        return None
    return range(int(found[1]), int(found[2]) + 1)


def test_scaled_workers_never_share_a_sandbox_uid(tmp_path, postgres, redis_main) -> None:
    host_tmp = Path(tempfile.mkdtemp(prefix="judge-test-scale-"))
    host_tmp.chmod(0o711)
    broker, prefix = redis_main()
    database = postgres()
    env = service_env(
        tmp_path,
        JUDGE_DATABASE_URL=database,
        JUDGE_BROKER_URL=broker,
        JUDGE_BROKER_KEY_PREFIX=prefix,
    )
    stack = Stack("scale", tmp_path, env)
    replicas = ("worker-1", "worker-2")
    try:
        stack.setup()
        stack.start_api()
        # Apart from every other sandbox of this suite, and from another run's: far above the
        # judge's default range, as test_sandbox_sharing's bystander.
        uid_base = 600_000 + int.from_bytes(os.urandom(2), "little") * 256
        for name in replicas:
            _spawn_replica(stack, name, host_tmp, uid_base)
        ranges = {
            name: wait_for(
                lambda name=name: _leased_uids(stack, name),
                timeout=60,
                what=f"{name} to start",
                context=lambda: "\n".join(stack.log_tail(n) for n in replicas),
            )
            for name in replicas
        }
        assert not set(ranges["worker-1"]) & set(ranges["worker-2"])

        tokens = [stack.register(f"student{n}") for n in range(8)]
        ids = [stack.submit(token, "numbergame", UID_REPORTER) for token in tokens]
        uids = {}
        for token, sid in zip(tokens, ids, strict=True):
            body = stack.wait_done(token, sid)
            assert body["verdict"] == "WA", (body["message"], body["tests"][:2])
            uids[sid] = body["tests"][0]["got"]

        def graded_by_replica() -> dict[int, str]:
            found = {}
            for name in replicas:
                text = (stack.tmp / f"{name}.log").read_text(errors="replace")
                for sid in map(int, re.findall(r"submission (\d+): finished", text)):
                    found[sid] = name
            return found

        # A worker logs "finished" just after its commit: the API can show the verdict first.
        graded_by = wait_for(
            lambda: (found := graded_by_replica()).keys() >= set(ids) and found,
            timeout=30,
            what="every replica's log to say which submissions it finished",
            context=lambda: repr(graded_by_replica()),
        )
        assert set(graded_by) == set(ids)
        for sid, name in graded_by.items():
            assert uids[sid] in ranges[name], (sid, name, uids[sid], ranges)

        engine = make_engine(database)
        try:
            with Session(engine) as session:
                blocks = held_blocks(session=session)
            assert len(blocks) == 2
            for name in replicas:
                stack.stop_process(name)  # a warm shutdown gives the block back
            with Session(engine) as session:
                assert held_blocks(session=session) == {}
        finally:
            engine.dispose()
    finally:
        stack.stop()
        shutil.rmtree(host_tmp, ignore_errors=True)

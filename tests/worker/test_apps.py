"""One Celery configuration, three apps: the API's loads what enqueues, never the grading task,
the judge's runner or the sandbox; the worker's (worker/main.py) registers the grading tasks;
the run lane's (worker/run_lane.py) the run task alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from worker.app import CHECK_TASK, GRADE_TASK, RUN_TASK, STRENGTH_TASK

# Loaded only by the worker: grading, running submissions, the sandbox and its runtime.
WORKER_ONLY = (
    "worker.tasks",
    "worker.runs",
    "worker.runtime",
    "worker.main",
    "worker.run_lane",
    "worker.strength",  # the strength report's task: the API sends with worker.queue
    "judge.grading.runs",
    "judge.grading.grade",
    "judge.execution.runners.function",
    "judge.grading.shrink",
    "judge.execution.build",
    "judge.execution.runners.stdio",
    # The API lists the languages (GET /languages, the problem pages' templates), whose
    # plug-ins describe their runs with the sandbox's data types (Command, RunLimits): those
    # load, the machinery that starts runs does not.
    *(f"judge.sandbox.{name}" for name in ("front", "jail", "bwrap", "cgroups", "seccomp")),
    *(f"judge.sandbox.{name}" for name in ("processes", "slots", "workdirs", "outputs")),
)


def fresh_python(code: str, data_dir: Path) -> object:
    """What `code` prints last (JSON), run in a fresh interpreter: this test process may have
    loaded the worker's modules already."""
    env = dict(os.environ, JUDGE_DATA_DIR=str(data_dir), JUDGE_SECRET_KEY="apps-" + "x" * 32)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_building_the_api_loads_no_grading_task_runner_or_sandbox(tmp_path: Path):
    code = (
        "import json, sys\n"
        "from fastapi.testclient import TestClient\n"
        "from api.main import create_app\n"
        "listed = TestClient(create_app()).get('/api/v1/languages').json()\n"
        "assert {l['name'] for l in listed} == {'python', 'cpp', 'java', 'kotlin'}, listed\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = set(fresh_python(code, tmp_path))
    assert "worker.queue" in loaded  # the app was built with its enqueuer
    assert "judge.languages.cpp" in loaded  # the languages were listed, with their versions
    leaked = sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in WORKER_ONLY))
    assert leaked == []


def test_the_worker_app_registers_both_tasks(tmp_path: Path):
    code = "import json\nfrom worker.main import app\nprint(json.dumps(sorted(app.tasks)))\n"
    tasks = fresh_python(code, tmp_path)
    assert isinstance(tasks, list)
    assert GRADE_TASK in tasks and STRENGTH_TASK in tasks
    assert RUN_TASK not in tasks  # a run sent to the wrong queue is refused, never run here
    assert CHECK_TASK not in tasks  # likewise a package check (the run lane's)


def test_the_run_lane_app_registers_the_run_task_and_the_package_check_alone(tmp_path: Path):
    code = (
        "import json\nfrom worker.run_lane import app\n"
        "print(json.dumps([sorted(app.tasks), [q.name for q in app.conf.task_queues]]))\n"
    )
    tasks, queues = fresh_python(code, tmp_path)
    assert RUN_TASK in tasks and GRADE_TASK not in tasks and STRENGTH_TASK not in tasks
    assert CHECK_TASK in tasks
    assert queues == ["judge.run"]

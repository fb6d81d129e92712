"""The grading core stands alone: no module of judge/ pulls in the service's packages."""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import judge

SERVICE_PACKAGES = (
    "sqlalchemy",
    "celery",
    "fastapi",
    "redis",
    "pydantic",
    "store",
    "api",
    "worker",
)


def judge_modules() -> list[str]:
    found = [
        info.name
        for info in pkgutil.walk_packages(judge.__path__, prefix="judge.")
        if not info.name.endswith("__main__")  # importing it runs the CLI
    ]
    return sorted(found)


def test_the_walk_finds_the_core_modules():
    found = judge_modules()
    for name in (
        "judge.grading.grade",
        "judge.languages.drivers.harness",
        "judge.sandbox.jail",
        "judge.problems.bind",
    ):
        assert name in found


def test_no_judge_module_imports_a_service_package():
    # A fresh interpreter: this test process has the service packages loaded already.
    code = (
        "import importlib, json, sys\n"
        f"for name in {judge_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "import judge.problems\n"
        "judge.problems.registry()\n"
        f"heavy = {SERVICE_PACKAGES!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(out.stdout) == []


def test_no_function_in_grading_is_longer_than_a_screen():
    # Grading is the room everyone reads first: its steps stay small enough to read whole.
    grading = Path(judge.__file__).parent / "grading"
    long = []
    for path in sorted(grading.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > 60:
                    long.append(f"{path.name}:{node.name} ({length} lines)")
    assert long == []

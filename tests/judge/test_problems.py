"""Both problem plug-ins together: registry, and the standard-library-only rule of judge/."""

from __future__ import annotations

import json
import subprocess
import sys

from judge import problems


def test_registry_has_both_problems():
    found = problems.registry()
    assert {"footholds", "numbergame"} <= set(found)
    for slug in ("footholds", "numbergame"):
        module = problems.get(slug)
        assert slug == module.SLUG
        for sample in module.SAMPLES:
            assert module.reference(sample["input"]) == sample["answer"]
            ok, _ = module.check(sample["input"], sample["answer"], sample["answer"])
            assert ok


def test_importing_the_problems_loads_no_service_dependencies():
    code = (
        "import json, sys, judge, judge.problems, judge.answers\n"
        "from judge.problems import footholds, numbergame\n"
        "judge.problems.registry()\n"
        "heavy = ('sqlalchemy', 'celery', 'fastapi', 'redis', 'pydantic', 'store', 'api',"
        " 'worker')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(out.stdout) == []

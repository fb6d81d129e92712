"""Problem packages: grading against a package whose problem.py is hosted in the sandbox, beside
the same package imported (how the built-ins load), and `problem check` of a built-in package.

Both gradings grade the same correct footholds solution on the same seed, alternating, so the
ratio is measured in one run on one machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from judge import problems
from judge.grading.grade import grade
from judge.problem_check.check import check_package
from judge.problem_check.graded import bound_problem
from judge.problems.package import Package
from judge.sandbox import SandboxConfig, make_sandbox

SLUG = "footholds"
ACCEPTED = "submissions/accepted/footholds_memo.py"
SEED = 5


def _timed(action: Callable[[], object]) -> float:
    began = time.perf_counter()
    action()
    return time.perf_counter() - began


def run(report: Callable[[str, str], None], repeat: int = 5, check: bool = True) -> None:
    sandbox = make_sandbox(SandboxConfig(mode="bwrap"))
    folder = problems.builtin_dir() / SLUG
    package = Package.load(folder)
    source = (folder / ACCEPTED).read_bytes()
    imported = problems.get(SLUG)

    def graded_imported() -> None:
        grade(imported, source, seed=SEED, sandbox=sandbox, diagnose=False)

    def graded_hosted() -> None:
        # A grading of an uploaded package: its host started for it, as a worker would.
        with bound_problem(package, sandbox) as hosted:
            grade(hosted, source, seed=SEED, sandbox=sandbox, diagnose=False)

    # Both must accept it: a benchmark of a wrong grading would mislead.
    with bound_problem(package, sandbox) as hosted:
        verdicts = {
            grade(spec, source, seed=SEED, sandbox=sandbox, diagnose=False).verdict.value
            for spec in (imported, hosted)
        }
    assert verdicts == {"AC"}, verdicts
    times: dict[str, list[float]] = {"imported": [], "hosted": []}
    for _ in range(repeat):
        times["imported"].append(_timed(graded_imported))
        times["hosted"].append(_timed(graded_hosted))
    medians = {kind: sorted(values)[len(values) // 2] for kind, values in times.items()}
    report(f"grade {SLUG} accepted, problem.py imported", f"{medians['imported']:.2f} s")
    report(f"grade {SLUG} accepted, problem.py hosted", f"{medians['hosted']:.2f} s")
    report("hosted / imported", f"{medians['hosted'] / medians['imported']:.2f}x (goal <= 1.1x)")
    if check:
        began = time.perf_counter()
        result = check_package(folder, sandbox)
        elapsed = time.perf_counter() - began
        state = "all checks pass" if result.ok else "FAILED"
        report(f"problem check problems/{SLUG}", f"{elapsed:.1f} s, {state} (goal < 60 s)")

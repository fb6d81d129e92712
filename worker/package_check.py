"""The check of an uploaded problem version, on the run lane (registered by
worker/run_lane.py): its zip unpacked into a private temporary folder, every check of
judge.problem_check but the mutants' (STRENGTH), and the report stored, bounded.

Delivery is at least once: the report is stored only while the version is still `checking`,
so a second delivery checks again and stores nothing. A message lost or a worker that died
mid-check leaves it `checking`: the sweeper sends it again after CHECK_RESEND_S, and fails it
after MAX_SENDS (worker/sweeper.py).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from celery import Celery, Task
from celery.exceptions import SoftTimeLimitExceeded

import judge.grading.grade
from judge.grading.plan import small_positions
from judge.problem_check.check import check_package
from judge.problem_check.graded import bound_problem
from judge.problems.archive import ArchiveError, unpack
from judge.problems.host import ProblemError
from judge.problems.manifest import ManifestError
from judge.problems.package import Package
from judge.sandbox.workdirs import locked_dir
from store.repo import problem_packages
from worker.app import CHECK_TASK
from worker.runtime import Runtime
from worker.startup import CHECK_TMP_PREFIX
from worker.tasks import task_backoff_s, with_retries

log = logging.getLogger(__name__)

# The mutants (the "strength" warning) take 15 times the rest of the check for the
# tic-tac-toe fixture (18.7 s against 1.2 s): too long for the run lane, whose slots serve
# students' runs; `python -m judge problem check` runs them on the instructor's machine.
STRENGTH = False
CHECK_TRIES = 3  # sandbox failures before the version fails with UNAVAILABLE
# Measured without the mutants: 1.2 s for the tic-tac-toe fixture, 28 s for subtraction (ten
# reference submissions, in every language: the compilers take most of it). The hard limit
# stays below the Redis visibility timeout of the run lane's app (worker/app.py), or a
# healthy check would be delivered twice.
CHECK_SOFT_LIMIT_S = 200
CHECK_HARD_LIMIT_S = CHECK_SOFT_LIMIT_S + 30
CHECK_RESEND_S = CHECK_HARD_LIMIT_S + 60  # the sweeper sends a check left `checking` again
MAX_SENDS = 3
MAX_MESSAGE_CHARS = 2000  # of one check's message (it may quote instructor code's output)
MAX_CHECKS = 64
UNAVAILABLE = "the judge's sandbox was unavailable; upload the version again later"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def clean(text: Any, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A report's text as the database and the pages may take it: control characters and
    lone surrogates replaced, cut to `limit` characters."""
    text = _CONTROL.sub("\ufffd", str(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bounded(report: dict[str, Any]) -> dict[str, Any]:
    checks = [
        {"name": clean(c["name"], 80), "ok": bool(c["ok"]), "message": clean(c["message"])}
        for c in report["checks"][:MAX_CHECKS]
    ]
    return {"ok": all(c["ok"] for c in checks), "checks": checks}


def failed_report(name: str, message: str) -> dict[str, Any]:
    return {"ok": False, "checks": [{"name": name, "ok": False, "message": clean(message)}]}


def check_archive(runtime: Runtime, archive: bytes) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The report of the zip `archive`, and what the API shows of it that only its code
    knows: the styles it offers and the size of its test plan (None unless every check
    passed). Raises the sandbox's infrastructure errors."""
    # Locked while it is used: what a killed check leaves, the sweeper removes (startup.py).
    box = locked_dir(CHECK_TMP_PREFIX)
    try:
        return _check_in(runtime, archive, Path(box.path, "package"))
    finally:
        box.remove()


def _check_in(
    runtime: Runtime, archive: bytes, dest: Path
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The checks of the zip `archive` unpacked into `dest` (see check_archive)."""
    try:
        folder = unpack(archive, dest)
    except ArchiveError as exc:  # the API unpacked the same zip: not expected
        return failed_report("files", str(exc)), None
    report = bounded(check_package(folder, runtime.sandbox, strength=STRENGTH).to_json())
    if not report["ok"]:
        return report, None
    try:  # the spec a grading will build: what it offers (write_input: stdio)
        package = Package.load(folder)
        with bound_problem(package, runtime.sandbox) as spec:
            plan = {
                "small_positions": len(small_positions(spec)),
                "worst": len(spec.WORST_CASES),
                "hidden": len(package.boards),
            }
            return report, {"styles": list(spec.styles), "plan": plan}
    except (ProblemError, ManifestError, ArchiveError) as exc:
        text = exc.message if isinstance(exc, ProblemError) else str(exc)
        report["checks"].append({"name": "spec", "ok": False, "message": clean(text)})
        report["ok"] = False
        return report, None


def carry_out(runtime: Runtime, version_id: int) -> str:
    """Check one version if it is still `checking`; returns what happened."""
    with runtime.session() as session:
        job = problem_packages.check_job(session=session, version_id=version_id)
    if job is None:
        return "not checking"
    try:
        report, learned = check_archive(runtime, job.archive)
    except SoftTimeLimitExceeded:
        report = failed_report("check", f"the check took over {CHECK_SOFT_LIMIT_S} s")
        learned = None

    def store() -> bool:
        with runtime.session() as session:
            return problem_packages.finish_check(
                session=session,
                version_id=version_id,
                passed=report["ok"],
                report=report,
                learned=learned,
            )

    stored = with_retries(f"problem version {version_id}: storing the report", store)
    outcome = "passed" if report["ok"] else "failed"
    return outcome if stored else "stored already"


def register(app: Celery, runtime: Runtime) -> None:
    @app.task(
        name=CHECK_TASK,
        bind=True,
        max_retries=CHECK_TRIES - 1,
        soft_time_limit=CHECK_SOFT_LIMIT_S,
        time_limit=CHECK_HARD_LIMIT_S,
    )
    def check_problem_version(self: Task, version_id: int) -> str:
        try:
            outcome = carry_out(runtime, version_id)
        except judge.grading.grade.INFRASTRUCTURE_ERRORS as exc:
            if self.request.retries >= CHECK_TRIES - 1:
                log.warning("problem version %s: the sandbox kept failing: %s", version_id, exc)
                with runtime.session() as session:
                    problem_packages.finish_check(
                        session=session,
                        version_id=version_id,
                        passed=False,
                        report=failed_report("check", UNAVAILABLE),
                    )
                return "sandbox unavailable"
            countdown = task_backoff_s(self.request.retries)
            raise self.retry(exc=exc, countdown=countdown) from exc
        log.info("problem version %s: %s", version_id, outcome)
        return outcome

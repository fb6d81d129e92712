"""Uploaded problem packages end to end, on a real stack (API, grading worker, run lane,
sweeper; PostgreSQL and Redis): an instructor uploads the tic-tac-toe fixture package, the
run lane checks it in the sandbox, the instructor publishes it, and a student sees it,
submits to it and runs on it, graded against the published package."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.service.packages import TICTACTOE, package_zip, unique_slug
from tests.service.stack import Stack, wait_for

pytestmark = pytest.mark.run_lane  # a package is checked, and a student runs code, there

CHECK_TIMEOUT_S = 120
GOOD = "def solution(board):\n    return 0\n"


def upload(stack: Stack, token: str, data: bytes) -> dict[str, Any]:
    files = {"file": ("package.zip", data, "application/zip")}
    response = stack.request("POST", "/api/v1/problems", token, files=files)
    assert response.status_code == 202, response.text
    return response.json()


def checked(stack: Stack, token: str, version: dict[str, Any]) -> dict[str, Any]:
    path = f"/api/v1/problems/{version['slug']}/versions/{version['id']}"

    def done() -> dict[str, Any] | None:
        body = stack.request("GET", path, token).json()
        return None if body["status"] == "checking" else body

    return wait_for(
        done, timeout=CHECK_TIMEOUT_S, interval=0.2, what="the check", context=stack.logs
    )


@pytest.fixture(scope="module")
def published(stack: Stack) -> dict[str, Any]:
    """The fixture package uploaded, checked and published once for the module."""
    teacher = stack.instructor()
    started = time.monotonic()
    version = upload(stack, teacher, package_zip(unique_slug()))
    report = checked(stack, teacher, version)
    assert report["status"] == "passed", report["report"]
    slug = version["slug"]
    response = stack.request(
        "POST", f"/api/v1/problems/{slug}/versions/{version['id']}/publish", teacher
    )
    assert response.status_code == 200, response.text
    print(f"upload to published: {time.monotonic() - started:.2f} s")
    return {"slug": slug, "digest": version["digest"], "report": report["report"]}


def test_a_student_sees_submits_and_runs_an_uploaded_problem(stack, published) -> None:
    slug = published["slug"]
    names = [c["name"] for c in published["report"]["checks"]]
    assert "samples" in names and "submissions" in names and "strength" not in names
    student = stack.register(f"s_{slug[-12:]}")
    assert slug in {p["slug"] for p in stack.request("GET", "/api/v1/problems", student).json()}
    page = stack.request("GET", f"/api/v1/problems/{slug}", student).json()
    assert page["title"] == "Tic-tac-toe" and page["params"] == ["board"]
    assert stack.request("GET", f"/problems/{slug}").status_code == 200
    plan = stack.request("GET", f"/api/v1/problems/{slug}/plan", student).json()
    assert plan["hidden"] == 2 and plan["worst"] == 1 and plan["small_positions"] > 0, plan

    solutions = TICTACTOE / "submissions"
    accepted = stack.submit(student, slug, (solutions / "accepted" / "minimax.py").read_text())
    wrong = stack.submit(student, slug, (solutions / "wrong_answer" / "one_ply.py").read_text())
    ac = stack.wait_done(student, accepted)
    wa = stack.wait_done(student, wrong)
    assert ac["verdict"] == "AC", ac["message"]
    assert wa["verdict"] == "WA", wa["message"]
    assert ac["problem_version"] == published["digest"] == wa["problem_version"]
    assert ac["history"][0]["problem_version"] == published["digest"]
    assert any(t["kind"] == "hidden" for t in ac["tests"])  # the package's boards/

    # A case of the right types that the package's validate() refuses: its message.
    invalid = {"board": [[1, 1, 1], [1, 1, 1], [0, 0, 0]]}
    run = stack.request(
        "POST",
        "/api/v1/runs",
        student,
        json={"problem": slug, "source": GOOD, "cases": [invalid]},
    )
    assert run.status_code == 202, run.text

    def run_done() -> dict[str, Any] | None:
        body = stack.request("GET", f"/api/v1/runs/{run.json()['id']}", student).json()
        return body if body["status"] in ("done", "error") else None

    result = wait_for(run_done, timeout=60, interval=0.2, what="the run", context=stack.logs)
    assert result["outcome"] == "invalid_case", result
    assert "X moves first" in result["message"]


def test_a_package_whose_reference_disagrees_with_a_sample_fails(stack) -> None:
    sample = b"[2, 2, 0], [0, 0, 0]] }\nanswer = "

    def wrong_sample(name: str, data: bytes) -> bytes:
        if name != "problem.toml":
            return data
        assert sample + b"1" in data
        return data.replace(sample + b"1", sample + b"0")  # X to move wins: 1, not 0

    teacher = stack.instructor()
    data = package_zip(unique_slug("bad"), edit=wrong_sample)
    version = checked(stack, teacher, upload(stack, teacher, data))
    assert version["status"] == "failed"
    failing = {c["name"]: c["message"] for c in version["report"]["checks"] if not c["ok"]}
    assert "samples" in failing, version["report"]
    publish = stack.request(
        "POST", f"/api/v1/problems/{version['slug']}/versions/{version['id']}/publish", teacher
    )
    assert publish.status_code == 409 and "samples" in publish.json()["detail"]

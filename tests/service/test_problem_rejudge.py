"""Publishing a new version of an uploaded problem with submissions, on a real stack: the
rejudge preview names exactly the submission whose verdict the version changes, publishing
without rejudge leaves the verdicts, publishing with rejudge regrades that one."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.service.packages import TICTACTOE, package_zip, skewed_zip, unique_slug
from tests.service.stack import Stack, wait_for
from tests.service.test_problem_packages import checked, upload

pytestmark = pytest.mark.run_lane  # an uploaded package is checked on the run lane


def test_the_preview_names_the_changed_verdict_and_publishing_applies_it(stack: Stack) -> None:
    teacher = stack.instructor()
    slug = unique_slug("rj")
    first = checked(stack, teacher, upload(stack, teacher, package_zip(slug)))
    assert first["status"] == "passed", first["report"]
    base = f"/api/v1/problems/{slug}/versions"
    assert stack.request("POST", f"{base}/{first['id']}/publish", teacher).status_code == 200

    solutions = TICTACTOE / "submissions"
    ada, bob = stack.register(f"ada_{slug[-8:]}"), stack.register(f"bob_{slug[-8:]}")
    good = stack.submit(ada, slug, (solutions / "accepted" / "minimax.py").read_text())
    bad = stack.submit(bob, slug, (solutions / "wrong_answer" / "one_ply.py").read_text())
    assert stack.wait_done(ada, good)["verdict"] == "AC"
    assert stack.wait_done(bob, bad)["verdict"] == "WA"

    files = {"file": ("package.zip", skewed_zip(slug), "application/zip")}
    put = stack.request("PUT", f"/api/v1/problems/{slug}", teacher, files=files)
    assert put.status_code == 202, put.text
    second = checked(stack, teacher, put.json())
    assert second["status"] == "passed", second["report"]
    preview = f"{base}/{second['id']}/preview"
    assert stack.request("GET", preview, teacher).status_code == 404
    rejudge = {"rejudge": True}
    early = stack.request("POST", f"{base}/{second['id']}/publish", teacher, json=rejudge)
    assert early.status_code == 409 and "preview" in early.json()["detail"]

    started = time.monotonic()
    assert stack.request("POST", preview, teacher).status_code == 202

    def ready() -> dict[str, Any] | None:
        body = stack.request("GET", preview, teacher).json()
        assert body["status"] != "failed", body
        return body if body["status"] == "ready" else None

    body = wait_for(ready, timeout=120, interval=0.3, what="the preview", context=stack.logs)
    print(f"preview of 2 submissions: {time.monotonic() - started:.2f} s")
    assert (body["done"], body["total"], body["changed"]) == (2, 2, 1), body
    change = body["changes"][0]
    assert change["submission_id"] == good and change["changed"]
    assert (change["old_verdict"], change["new_verdict"]) == ("AC", "WA")
    assert change["user"].startswith("ada_") and change["language"] == "python"
    assert change["new_passed"] == change["new_total"] - 1
    assert not body["changes"][1]["changed"] and body["changes"][1]["submission_id"] == bad
    assert stack.request("POST", preview, teacher).status_code == 200  # the same set: as is

    # Without rejudge: published, the verdicts as they were.
    only = stack.request("POST", f"{base}/{second['id']}/publish", teacher, json={})
    assert only.status_code == 200 and only.json()["rejudged"] == []
    kept = stack.detail(ada, good)
    assert kept["verdict"] == "AC" and kept["problem_version"] == first["digest"]

    # With rejudge: the changed one regraded against version 2, its old verdict in history.
    applied = stack.request("POST", f"{base}/{second['id']}/publish", teacher, json=rejudge)
    assert applied.status_code == 200, applied.text
    assert applied.json()["rejudged"] == [good]

    def regraded() -> dict[str, Any] | None:
        found = stack.detail(ada, good)
        return found if found["status"] == "done" else None

    after = wait_for(regraded, timeout=120, interval=0.3, what="the rejudge", context=stack.logs)
    assert after["verdict"] == "WA" and after["problem_version"] == second["digest"], after
    assert sorted((j["reason"], j["verdict"]) for j in after["history"]) == [
        ("live", "AC"),
        ("rejudge", "WA"),
    ]
    assert stack.detail(bob, bad)["verdict"] == "WA"

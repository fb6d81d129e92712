"""An instructor uploads a problem package in the browser: a broken zip is refused with the
judge's own words; the tic-tac-toe package is checked (the report arrives on its versions
page while the page polls), published, and a student finds it in the problem list; then it is
hidden, retired (asked twice) and published again from the problem packages page. A new
version of a problem with a submission is published through its rejudge preview."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    GRADE_TIMEOUT_MS,
    OVERFLOW,
    PHONE,
    UNLABELLED,
    axe_violations,
    log_in,
    shot,
    unique,
)
from tests.service.packages import TICTACTOE, package_zip, skewed_zip, unique_slug
from tests.service.test_problem_packages import checked, upload

pytestmark = pytest.mark.e2e

BROKEN = b"PK\x03\x04 this is not a zip at all"


def zip_file(name: str, data: bytes) -> dict:
    return {"name": name, "mimeType": "application/zip", "buffer": data}


def test_an_uploaded_package_is_checked_published_and_listed(service, open_page):
    slug = unique_slug()  # a problem of its own per run: an existing slug is refused (409)
    title = "Tic-tac-toe"
    admin = service.instructor()
    # What the judge says of a broken zip: the page must show these words.
    refused = service.request(
        "POST", "/api/v1/problems", admin, files={"file": ("broken.zip", BROKEN)}
    )
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"]
    assert isinstance(detail, str) and detail

    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor")
    page.get_by_role("link", name="Problem packages").click()
    page.wait_for_url("**/instructor/problems")
    table = page.locator("#packages-table")
    footholds = table.locator('tr[data-slug="footholds"]')
    expect(footholds).to_contain_text("Built-in")
    expect(footholds.locator("[data-state]")).to_have_text("Published")
    expect(footholds.locator("button")).to_have_count(0)  # a built-in is not hidden or retired

    # A broken zip: the judge's refusal, in the form's error box, the file field marked.
    upload = page.get_by_label(re.compile("^Package"))
    upload.set_input_files(zip_file("broken.zip", BROKEN))
    page.get_by_role("button", name="Upload and check").click()
    error = page.locator("#upload-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text(re.compile(re.escape(detail.rstrip(".")), re.IGNORECASE))
    expect(error).not_to_contain_text("{")
    expect(upload).to_have_attribute("aria-invalid", "true")
    assert axe_violations(page) == []
    shot(page, "packages-01-refused")

    # The package: its versions page shows the check running, then its report.
    archive = zip_file(f"{slug}.zip", package_zip(slug))
    upload.set_input_files(archive)
    page.get_by_role("button", name="Upload and check").click()
    page.wait_for_url(f"**/instructor/problems/{slug}/versions#version-*")
    rows = page.locator("#versions-body tr[data-id]")
    expect(rows).to_have_count(1)
    expect(page.locator("h1")).to_contain_text(title)
    report = page.locator("details.report").first
    expect(report).to_have_attribute("open", "")
    expect(page.locator("#check-live")).to_contain_text(re.compile(r"Checking version 1|passed"))
    expect(rows.first.locator("[data-status]")).to_have_text("Passed", timeout=GRADE_TIMEOUT_MS)
    expect(page.locator("#check-live")).to_have_text(
        "Version 1 passed every check: it can be published."
    )
    checks = report.locator(".check-list li")
    expect(report.locator(".check-failed")).to_have_count(0)
    expect(report.locator('li[data-check="samples"]')).to_contain_text("ok")
    assert checks.count() >= 5  # the report itself is checked by test_quality's walk
    shot(page, "packages-02-passed")

    rows.first.get_by_role("button", name="Publish version 1").click()
    expect(page.locator("#versions-note")).to_contain_text("Version 1 is published")
    expect(rows.first.locator("[data-col=published]")).to_have_text("Published")
    expect(rows.first.get_by_role("button", name="Publish version 1")).to_have_count(0)
    expect(page.locator("#problem-state [data-state]")).to_have_text("Published")

    # A student sees it among the problems and opens it.
    student, password = unique("pkgs"), "packages password 1"
    service.register(student, password)
    pupil = open_page()
    log_in(pupil, student, password)
    listed = pupil.locator(f'#problem-table tr[data-slug="{slug}"]')
    listed.get_by_role("link", name=title).click()
    expect(pupil.get_by_role("heading", level=1)).to_contain_text(title)

    # The instructor page has a card for it, with the way back to its versions (its boards
    # are its package's: no board editor).
    page.goto("/instructor")
    expect(
        page.locator('.problem-card[data-slug="footholds"]').get_by_role("link", name="Versions")
    ).to_have_count(0)
    card = page.locator(f'.problem-card[data-slug="{slug}"]')
    expect(card.get_by_role("link", name="Board editor")).to_have_count(0)  # boards/ instead
    card.get_by_role("link", name="Versions").click()
    page.wait_for_url(f"**/instructor/problems/{slug}/versions")
    expect(rows.first.locator("[data-col=published]")).to_have_text("Published")

    # Hidden: off the students' list; retired after a second click; published again.
    page.goto("/instructor/problems")
    row = page.locator(f'#packages-body tr[data-slug="{slug}"]')
    expect(row.locator("[data-state]")).to_have_text("Published")
    expect(row.locator("[data-col=published]")).to_have_text("v1")
    expect(row.locator("[data-col=latest]")).to_contain_text("v1 Passed")
    row.get_by_role("button", name=f"Hide {slug}").click()
    expect(row.locator("[data-state]")).to_have_text("Hidden")
    expect(page.locator("#packages-note")).to_contain_text("is hidden")
    pupil.goto("/problems")
    expect(pupil.locator("#problem-table tr[data-slug=footholds]")).to_be_visible()
    expect(pupil.locator(f'#problem-table tr[data-slug="{slug}"]')).to_have_count(0)

    retire = row.get_by_role("button", name=f"Retire {slug}")
    retire.click()
    confirm = row.get_by_role("button", name=f"Confirm: retire {slug}")
    expect(confirm).to_be_visible()
    expect(row.locator("[data-state]")).to_have_text("Hidden")  # nothing yet
    confirm.click()
    expect(row.locator("[data-state]")).to_have_text("Retired")
    row.get_by_role("button", name=f"Publish again {slug}").click()
    expect(row.locator("[data-state]")).to_have_text("Published")
    pupil.goto("/problems")
    expect(pupil.locator(f'#problem-table tr[data-slug="{slug}"]')).to_be_visible()
    shot(page, "packages-03-published-again")

    # Uploaded again as a new problem: refused, with the way to its versions page, where the
    # same content is recognised as version 1 (nothing stored, nothing checked).
    upload.set_input_files(archive)
    page.get_by_role("button", name="Upload and check").click()
    expect(error).to_contain_text(f"'{slug}' exists")
    error.get_by_role("link", name=f"Upload it as a new version of {slug}").click()
    page.wait_for_url(f"**/instructor/problems/{slug}/versions")
    page.get_by_label(re.compile("^Package")).set_input_files(archive)
    page.get_by_role("button", name="Upload and check").click()
    expect(page.locator("#versions-note")).to_have_text(
        "This package is the same as version 1: nothing new was uploaded."
    )
    expect(rows).to_have_count(1)


def test_the_versions_page_answers_for_a_slug_only(service):
    """A draft is not listed anywhere a student looks, so its versions page answers for any
    slug of a package's form; what is no slug is no page."""
    assert service.http.get("/instructor/problems").status_code == 200
    assert service.http.get("/instructor/problems/some_draft/versions").status_code == 200
    missing = service.http.get(
        "/instructor/problems/Not-A-Slug/versions", headers={"Accept": "text/html"}
    )
    assert missing.status_code == 404 and "Page not found" in missing.text


def test_publishing_a_new_version_previews_and_applies_the_rejudge(service, open_page):
    """A problem with a submission: Publish shows which verdict the new version changes (at
    phone width, checked as the quality walk checks pages), then publishes and rejudges."""
    slug = unique_slug("rjp")
    teacher = service.instructor()
    first = checked(service, teacher, upload(service, teacher, package_zip(slug)))
    base = f"/api/v1/problems/{slug}/versions"
    assert service.request("POST", f"{base}/{first['id']}/publish", teacher).status_code == 200
    now = datetime.now(UTC)
    week = {
        "title": f"Week {slug}",
        "release_at": (now - timedelta(days=1)).isoformat(),
        "due_at": (now + timedelta(days=1)).isoformat(),
        "problems": [{"problem": slug, "points": 10}],
    }
    made = service.request("POST", "/api/v1/assignments", teacher, json=week)
    assert made.status_code == 201, made.text
    name = unique("rjp")
    student = service.register(name)
    accepted = (TICTACTOE / "submissions" / "accepted" / "minimax.py").read_text()
    submission = service.submit(student, slug, accepted)
    assert service.wait_done(student, submission)["verdict"] == "AC"
    files = {"file": ("v2.zip", skewed_zip(slug), "application/zip")}
    put = service.request("PUT", f"/api/v1/problems/{slug}", teacher, files=files)
    assert checked(service, teacher, put.json())["status"] == "passed"

    page = open_page(PHONE)
    log_in(page, *service.admin)
    page.goto(f"/instructor/problems/{slug}/versions")
    page.get_by_role("button", name="Publish version 2").click()
    preview = page.locator("#preview")
    expect(preview).to_be_visible()
    expect(page.locator("#preview-title")).to_be_focused()
    expect(page.locator("#preview-live")).to_have_text(
        "1 of 1 verdicts change. 1 assignment score changes.", timeout=GRADE_TIMEOUT_MS
    )
    score = preview.locator("#scores-body tr")
    expect(score).to_have_count(1)
    expect(score).to_contain_text(f"Week {slug}")
    expect(score).to_contain_text(name)
    expect(score).to_contain_text("10 → 0")
    row = preview.locator(f'#preview-body tr[data-submission="{submission}"]')
    expect(row).to_contain_text("AC")
    expect(row).to_contain_text("WA")
    expect(row.get_by_role("link", name=f"#{submission}")).to_be_visible()
    assert page.evaluate(UNLABELLED) == [] and page.evaluate(OVERFLOW) <= 1
    assert axe_violations(page) == []
    shot(page, "packages-04-rejudge-preview")

    page.get_by_role("button", name="Publish and rejudge").click()
    expect(page.locator("#versions-note")).to_contain_text("1 submission sent to be rejudged")
    expect(preview).to_be_hidden()
    assert service.wait_done(student, submission, judgings=2)["verdict"] == "WA"
    # The assignment's gradebook keeps the score the regrade replaced.
    page.goto(f"/instructor/assignments/{made.json()['id']}/gradebook")
    regraded = page.locator("#rg-body tr")
    expect(regraded).to_have_count(1)
    expect(regraded).to_contain_text(name)
    expect(regraded).to_contain_text("10 → 0")

"""Issue 12, "wrong or lost": the places where a page said something wrong, lost a user's work
or left the user stuck, one test each, with screenshots in tests/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import GRADE_TIMEOUT_MS, SOLUTIONS, log_in, shot, unique

pytestmark = pytest.mark.e2e

PASSWORD = "a long enough password"


def student(service) -> tuple[str, str]:
    """A fresh student account: (username, token)."""
    username = unique("fix")
    return username, service.register(username, PASSWORD)


def submit(service, token: str, problem: str, source: str) -> int:
    response = service.request(
        "POST", "/api/v1/submissions", token, json={"problem": problem, "source": source}
    )
    assert response.status_code == 202, response.text
    return response.json()["id"]


def open_graded(page, username: str, sid: int, verdict: str):
    log_in(page, username, PASSWORD)
    page.goto(f"/submissions/{sid}")
    expect(page.locator("#sub-verdict")).to_have_attribute(
        "data-verdict", verdict, timeout=GRADE_TIMEOUT_MS
    )


def test_time_limit_shows_the_limit_not_the_cpu_time(service, open_page):
    username, token = student(service)
    sid = submit(service, token, "numbergame", (SOLUTIONS / "numbergame_endless.py").read_text())
    page = open_page()
    open_graded(page, username, sid, "TLE")
    row = page.locator('#tests-body tr[data-verdict="TLE"]')
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(3)).to_have_text("> 2 s (limit)")
    slowest = page.locator("#summary .stat").filter(has_text="Slowest test")
    expect(slowest.locator(".stat-value")).to_have_text("> 2 s (limit)")
    expect(page.locator("#summary")).not_to_contain_text("< 1 ms")
    expect(page.locator("#detail .detail-meta")).to_contain_text("> 2 s (limit)")
    page.goto("/submissions")
    expect(page.locator(f'#history-body tr[data-id="{sid}"]')).to_contain_text("> 2 s (limit)")
    shot(page, "fix-01-tle-history")


def test_runtime_error_traceback_keeps_its_lines(service, open_page):
    username, token = student(service)
    source = (SOLUTIONS / "numbergame_raises_deep.py").read_text()
    sid = submit(service, token, "numbergame", source)
    page = open_page()
    open_graded(page, username, sid, "RE")
    message = page.locator("#detail .test-message")
    expect(message).to_contain_text("IndexError")
    # innerText follows the rendering: collapsed white space would make it one line.
    lines = message.inner_text().splitlines()
    assert len(lines) >= 3, lines
    assert any("line 4" in line and "pick" in line for line in lines), lines
    shot(page, "fix-02-traceback")

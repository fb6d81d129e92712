"""A problem holding its hidden results back: the submission page and the history say when
they come, where the verdict is shown, and say nothing of them before."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from playwright.sync_api import expect

from tests.e2e.helpers import log_in, shot, unique
from tests.service.stack import solution

PROBLEM = "numbergame"


def test_the_pages_say_when_held_back_hidden_results_come(service, open_page) -> None:
    teacher = service.instructor()
    until = (datetime.now(UTC) + timedelta(hours=3)).replace(microsecond=0)
    url = f"/api/v1/problems/{PROBLEM}/release"
    held = service.request("PUT", url, teacher, json={"hidden_release_at": until.isoformat()})
    assert held.status_code == 200, held.text
    try:
        username, password = unique("held"), "held password 1"
        token = service.register(username, password)
        sid = service.submit(token, PROBLEM, solution("numbergame_wrong"))
        result = service.wait_done(token, sid)
        assert result["hidden_pending"] is True
        assert all(t["kind"] != "hidden" for t in result["tests"])

        page = open_page()
        log_in(page, username, password)
        page.goto(f"/submissions/{sid}")
        note = page.locator("#sub-verdict .hidden-pending")
        expect(note).to_contain_text("hidden tests: results at")
        expect(page.locator("#sub-verdict")).to_have_attribute("data-verdict", result["verdict"])
        shot(page, "desktop-hidden-results-held")
        page.goto("/submissions")
        expect(page.locator(f"tr[data-id='{sid}'] .hidden-pending")).to_contain_text(
            "hidden tests: results at"
        )
    finally:
        service.request("PUT", url, teacher, json={"hidden_release_at": None})
    page.goto(f"/submissions/{sid}")
    expect(page.locator("#sub-verdict")).to_have_attribute("data-verdict", "WA")
    expect(page.locator("#sub-verdict .hidden-pending")).to_have_count(0)

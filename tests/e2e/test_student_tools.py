"""What a student reaches for between submissions: the problems open without an account,
a past submission loaded back into the editor (the draft it replaces kept, not lost), and the
line diff between two of one's own submissions."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import DASH, log_in, shot, unique

pytestmark = pytest.mark.e2e

PASSWORD = "correct-horse-1"
FIRST = "def solution(board):\n    return 0\n"
SECOND = "def solution(board):\n    # the second try\n    return sum(board)\n"
DRAFT = "def solution(board):\n    return 42  # a draft not submitted yet\n"


def test_problem_pages_open_without_logging_in(service, open_page):
    page = open_page()
    page.goto("/problems")
    expect(page).to_have_url(re.compile(r"/problems$"))
    expect(page.locator("#nav-login")).to_be_visible()
    row = page.locator('tr[data-slug="footholds"]')
    expect(row.locator("[data-col=acceptance]")).not_to_have_text(DASH)
    row.get_by_role("link", name="Vanishing footholds").click()
    expect(page).to_have_url(re.compile(r"/problems/footholds$"))
    expect(page.get_by_role("heading", name="Vanishing footholds", level=1)).to_be_visible()
    expect(page.locator(".sample-card")).to_have_count(4)
    note = page.locator("#login-needed")
    expect(note).to_be_visible()
    expect(note.get_by_role("link", name="Log in")).to_have_attribute(
        "href", "/login?next=%2Fproblems%2Ffootholds"
    )
    expect(page.get_by_role("button", name="Submit", exact=True)).to_be_disabled()
    shot(page, "tools-01-problem-without-login")


def test_load_into_editor_keeps_the_draft_and_two_submissions_compare(service, open_page):
    username = unique("loader")
    token = service.register(username, PASSWORD)
    first = service.submit(token, "numbergame", FIRST)
    second = service.submit(token, "numbergame", SECOND)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/problems/numbergame")
    source = page.locator("#source")
    page.get_by_label("Your code").fill(DRAFT)

    # --- from the history: the first submission into the editor, the draft kept aside -------
    page.goto("/submissions")
    page.get_by_role("link", name=f"Load into editor: submission {first}").click()
    expect(page).to_have_url(re.compile(r"/problems/numbergame$"))
    expect(source).to_have_value(FIRST)
    note = page.locator("#kept-note")
    expect(note).to_contain_text(f"Submission #{first} is in the editor.")
    expect(note).to_contain_text("The draft you had is kept in this browser.")
    shot(page, "tools-02-loaded-into-editor")
    note.get_by_role("button", name="Put it back in the editor").click()
    expect(source).to_have_value(DRAFT)
    # The loaded code was not edited: the history has it, nothing more is kept.
    expect(page.locator("#kept-text")).to_have_text("Your draft is back in the editor.")
    expect(note.get_by_role("button", name="Put it back in the editor")).to_be_hidden()
    page.reload()
    expect(source).to_have_value(DRAFT)
    expect(note).to_be_hidden()

    # --- from a submission's page: load it, and compare it with the other one ----------------
    page.goto(f"/submissions/{second}")
    expect(page.locator("#load-source")).to_have_attribute(
        "href", f"/problems/numbergame?load={second}"
    )
    page.get_by_label("Compare with", exact=True).select_option(str(first))
    expect(page.locator("#compare-summary")).to_have_text(
        f"#{first} → #{second}: 1 line removed, 2 lines added."
    )
    expect(page.locator(".diff-del")).to_have_count(1)
    expect(page.locator(".diff-del .diff-text")).to_have_text("    return 0")
    expect(page.locator(".diff-add .diff-text")).to_have_text(
        ["    # the second try", "    return sum(board)"]
    )
    shot(page, "tools-03-diff")
    page.locator("#load-source").click()
    expect(source).to_have_value(SECOND)
    expect(page.locator("#kept-note")).to_contain_text("The draft you had is kept")

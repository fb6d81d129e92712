"""An instructor reads a problem's test strength (the mutation analysis of its samples, hidden
boards and random plan), sees in the board editor which surviving mutants a drawn board would
kill, and adds a suggested board. Everything the page should say is taken from the API's answer
to the same request, so the test holds whatever hidden boards the session already has."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import DESKTOP, OVERFLOW, PHONE, UNLABELLED, log_in, shot
from tests.service.stack import wait_for

pytestmark = pytest.mark.e2e

SLUG = "numbergame"  # its analysis takes under a second; footholds' first one takes ~10 s
REPORT = f"/api/v1/problems/{SLUG}/strength?seeds=20&suggestions=true"


def percent(x: float) -> str:
    """As the page writes a rate: 1.0 -> 100%, 0.955 -> 95.5%."""
    return f"{round(x * 100, 1):g}%"


def fits(page, name: str) -> None:
    """At phone width too: nothing wider than the screen, every control labelled."""
    page.set_viewport_size(PHONE)
    assert page.evaluate(OVERFLOW) <= 1, f"{name}: wider than the phone screen"
    assert page.evaluate(UNLABELLED) == [], f"{name}: unlabelled controls"
    shot(page, f"phone-{name}")
    page.set_viewport_size(DESKTOP)


def ready_report(service, token) -> dict:
    """The report once a worker has computed it (202 "computing" until then)."""

    def ready():
        response = service.request("GET", REPORT, token)
        return response.json() if response.status_code == 200 else None

    return wait_for(ready, timeout=120, interval=0.5, what="the strength report")


def board_check(service, token, case) -> dict:
    """What a board would kill (202 "computing" while this API's first check fills its memory
    of the mutants' answers)."""

    def ready():
        url = f"/api/v1/problems/{SLUG}/strength/board"
        response = service.request("POST", url, token, json={"input": case})
        return response.json() if response.status_code == 200 else None

    return wait_for(ready, timeout=120, interval=0.5, what="the board check")


def test_strength_report_suggestion_and_board_editor(service, open_page):
    token = service.login(*service.admin)
    expected = ready_report(service, token)

    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor")
    card = page.locator(f'.problem-card[data-slug="{SLUG}"]')
    card.get_by_role("link", name="Test strength").click()
    page.wait_for_url(f"**/instructor/problems/{SLUG}/strength")

    # --- the report ---------------------------------------------------------------------------
    rows = page.locator("#mutant-body tr")
    expect(rows).to_have_count(expected["mutant_count"])
    expect(page.locator("#kill-probability .stat-value")).to_have_text(
        percent(expected["kills_all"])
    )
    expect(page.locator("#survivor-count .stat-value")).to_have_text(
        str(len(expected["survivors"]))
    )
    expect(page.locator("#mutant-body tr.row-survivor")).to_have_count(len(expected["survivors"]))
    for mutant in expected["mutants"]:
        row = page.locator(f'#mutant-body tr[data-name="{mutant["name"]}"]')
        expect(row).to_contain_text(mutant["description"])
        if mutant["random_rate"] is not None:
            expect(row.locator(".meter-text")).to_have_text(percent(mutant["random_rate"]))
    suggestions = page.locator(".suggestion")
    expect(suggestions).to_have_count(len(expected["suggestions"]))
    if expected["suggestions"]:
        expect(suggestions.first.locator(".ng-row .ng-tile")).to_have_count(
            len(expected["suggestions"][0]["input"]["board"])
        )
    else:  # everything is already killed: the page says so instead
        expect(page.locator("#all-killed")).to_contain_text("nothing to suggest")
    shot(page, "strength-01-report")
    fits(page, "strength")

    # --- the board editor: which survivors a drawn board would kill ---------------------------
    case = expected["suggestions"][0]["input"] if expected["suggestions"] else {"board": [3, -1, 4]}
    what_if = board_check(service, token, case)
    page.goto(f"/instructor/problems/{SLUG}/boards")
    page.get_by_role("textbox", name="Numbers").fill(" ".join(map(str, case["board"])))
    expect(page.locator("#preview-answer")).to_have_text(str(what_if["answer"]))
    line = page.locator("#preview-kills")
    hits = what_if["kills_survivors"]
    if hits:
        noun = "surviving mutant" if len(hits) == 1 else "surviving mutants"
        expect(line).to_contain_text(f"This board would kill {len(hits)} {noun}: {', '.join(hits)}")
    elif what_if["survivors"]:
        expect(line).to_contain_text("This board kills none of the")
    else:
        expect(line).to_contain_text("No mutant survives the tests of every plan")
    shot(page, "strength-02-board-editor")
    fits(page, "boards-would-kill")

    # --- back to the report; add the first suggestion as a hidden board ------------------------
    page.get_by_role("link", name="Test strength →").click()
    page.wait_for_url(f"**/instructor/problems/{SLUG}/strength")
    expect(rows).to_have_count(expected["mutant_count"])
    if not expected["suggestions"]:
        expect(page.locator("#all-killed")).to_be_visible()
        return
    suggestions.first.get_by_role("button", name="Add as hidden board").click()
    note = page.locator("#suggest-note")
    expect(note).to_contain_text("Added as hidden board #")
    board_id = int(re.search(r"#(\d+)", note.inner_text()).group(1))
    try:
        after = ready_report(service, token)
        assert after["hidden_count"] == expected["hidden_count"] + 1
        # The refreshed report: the new board kills what the suggestion said it would.
        for name in expected["suggestions"][0]["kills"]:
            row = page.locator(f'#mutant-body tr[data-name="{name}"]')
            expect(row.locator("td").nth(3)).to_contain_text(f"#{board_id}")  # hidden boards
            expect(row).not_to_have_class(re.compile("row-survivor"))
        expect(page.locator("#survivor-count .stat-value")).to_have_text(
            str(len(after["survivors"]))
        )
        expect(suggestions).to_have_count(len(after["suggestions"]))
        if not after["survivors"]:
            expect(page.locator("#all-killed")).to_contain_text("nothing to suggest")
        shot(page, "strength-03-board-added")
    finally:  # the session's other tests see the hidden boards as they were
        service.request("DELETE", f"/api/v1/problems/{SLUG}/boards/{board_id}", token)

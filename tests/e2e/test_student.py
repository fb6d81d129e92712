"""A student in the browser: registers, submits a wrong solution and watches it fail live,
studies the drawn counterexample move by move, submits a correct one as a file, and finds
both in the history."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import DASH, GRADE_TIMEOUT_MS, PACKAGED, SOLUTIONS, shot, unique

pytestmark = pytest.mark.e2e

WRONG = SOLUTIONS / "footholds_depth_capped_slow.py"
RIGHT = PACKAGED / "footholds/submissions/accepted/footholds_memo.py"


def submission_id(page) -> int:
    page.wait_for_url(re.compile(r"/submissions/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def cell(board, r: int, c: int):
    return board.locator(f'.fh-cell[data-r="{r}"][data-c="{c}"]')


def test_student_journey(service, open_page):
    page = open_page()
    username, password = unique("student"), "a long enough password"

    # --- register: lands on the problem list, logged in --------------------------------------
    page.goto("/register")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Repeat the password").fill(password)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/problems")
    expect(page.locator("#account-user")).to_have_text(username)
    footholds_row = page.locator('tr[data-slug="footholds"]')
    expect(footholds_row.locator("[data-col=acceptance]")).not_to_have_text(DASH)
    shot(page, "student-01-problems")

    # --- the problem: statement from markdown, sample boards drawn as grids -------------------
    footholds_row.get_by_role("link", name="Vanishing footholds").click()
    expect(page.get_by_role("heading", name="Vanishing footholds", level=1)).to_be_visible()
    expect(page.locator(".markdown table")).to_be_visible()  # the examples table
    samples = page.locator(".sample-card")
    expect(samples).to_have_count(4)
    first = samples.nth(0).locator(".fh-board")
    expect(first.locator(".fh-cell")).to_have_count(9)
    expect(cell(first, 1, 0).locator(".piece-a")).to_have_count(1)
    expect(cell(first, 1, 2).locator(".piece-b")).to_have_count(1)
    expect(cell(samples.nth(1).locator(".fh-board"), 1, 1)).to_have_class(re.compile("fh-off"))
    expect(samples.nth(3).locator(".fh-shared .piece")).to_have_count(2)  # A and B share a cell
    samples.nth(0).get_by_text("Optimal line of play").click()
    expect(samples.nth(0).locator(".replay-moves li")).to_have_count(5)
    shot(page, "student-02-problem")

    # --- a wrong solution, pasted into the editor ---------------------------------------------
    editor = page.get_by_label("Your code")
    editor.fill(WRONG.read_text())
    expect(page.locator(".ce-highlight .tok-keyword").first).to_be_visible()
    lines = len(WRONG.read_text().splitlines())
    expect(page.locator(".ce-gutter")).to_contain_text(str(lines))
    page.get_by_role("button", name="Submit", exact=True).click()
    wrong_id = submission_id(page)

    # --- watched live: a failing test appears while the judging is still running --------------
    page.wait_for_function(
        """() => document.querySelector('#tests-body tr.row-failed')
                 && !document.querySelector('#sub-verdict').dataset.verdict""",
        timeout=GRADE_TIMEOUT_MS,
    )
    expect(page.locator("#live")).to_be_visible()
    graded = int(page.locator("#progress").get_attribute("aria-valuenow"))
    planned = int(page.locator("#progress").get_attribute("aria-valuemax"))
    assert 0 < graded <= planned
    expect(page.locator(".test-strip .tick-wa").first).to_be_visible()
    shot(page, "student-03-judging-live")

    verdict = page.locator("#sub-verdict")
    expect(verdict).to_have_attribute("data-verdict", "WA", timeout=GRADE_TIMEOUT_MS)
    expect(page.locator("#live")).to_be_hidden()

    token = service.login(username, password)
    result = service.request("GET", f"/api/v1/submissions/{wrong_id}", token).json()
    assert result["verdict"] == "WA"
    expect(page.locator("#tests-body tr")).to_have_count(result["total"])
    failing = next(t for t in result["tests"] if t["verdict"] != "AC")
    # The samples pass; the depth cap fails first on a small position (every board up to 3x3
    # is tried, fewest footholds first), the smallest counterexample there is.
    assert failing["kind"] == "small" and failing["positions"] >= 1
    board = failing["input"]["board"]
    assert len(board) <= 3 and len(board[0]) <= 3
    row = page.locator(f'#tests-body tr[data-index="{failing["index"]}"]')
    expect(row.locator("[data-positions]")).to_have_text(
        f" failed at position {failing['positions']}"
    )

    # --- the failing test: board drawn, expected vs returned ----------------------------------
    detail = page.locator("#detail")
    title = f"First failing test: #{failing['index'] + 1}"
    expect(detail.locator("#detail-title")).to_have_text(title)
    expect(detail.locator(".detail-board .fh-board")).to_be_visible()
    expect(detail.locator(".compare-expected")).to_contain_text(str(failing["expected"]))
    expect(detail.locator(".compare-got")).to_contain_text(str(failing["got"]))
    rows, cols = len(board), len(board[0])
    expect(detail.locator(".detail-board .fh-cell")).to_have_count(rows * cols)
    # Nothing smaller to shrink to: no separate counterexample, the line of play is open here.
    expect(page.locator("#counterexample")).to_be_hidden()

    # --- the failing small position, stepped through move by move ------------------------------
    cx = failing["counterexample"]
    assert cx is not None and cx["input"] == failing["input"]
    section = detail
    replay = section.locator(".replay")
    moves = cx["explanation"]["moves"]
    assert len(moves) > 7, "a counterexample of a depth cap at 7 is a longer game"
    expect(replay).to_have_attribute("data-step", "0")
    stage = replay.locator(".replay-stage")
    move = moves[0]
    piece = ".piece-a" if move["player"] == "A" else ".piece-b"
    expect(cell(stage, *move["from"]).locator(piece)).to_have_count(1)
    replay.get_by_role("button", name="Next move").click()
    expect(replay).to_have_attribute("data-step", "1")
    expect(replay.locator(".replay-caption")).to_contain_text(f"Move 1 of {len(moves)}")
    expect(cell(stage, *move["to"]).locator(piece)).to_have_count(1)
    expect(cell(stage, *move["from"])).to_have_class(re.compile("fh-gone"))  # it vanished
    replay.focus()
    page.keyboard.press("End")
    expect(replay).to_have_attribute("data-step", str(len(moves)))
    expect(replay.locator(".replay-caption")).to_contain_text(cx["explanation"]["summary"])
    page.keyboard.press("ArrowLeft")
    expect(replay).to_have_attribute("data-step", str(len(moves) - 1))
    replay.get_by_role("button", name="First position").click()
    expect(replay).to_have_attribute("data-step", "0")
    section.scroll_into_view_if_needed()
    shot(page, "student-04-counterexample")

    # --- the source, highlighted ----------------------------------------------------------------
    expect(page.locator("#source-body .tok-keyword").first).to_have_text("import")
    expect(page.locator("#source-body .code-gutter")).to_contain_text(str(lines))

    # --- a correct solution, uploaded as a file -----------------------------------------------
    page.goto("/problems/footholds")
    page.get_by_label("Or upload a .py file").set_input_files(str(RIGHT))
    expect(page.locator("#file-note")).to_contain_text(RIGHT.name)
    page.get_by_role("button", name="Submit", exact=True).click()
    right_id = submission_id(page)
    page.wait_for_function(
        "() => document.querySelector('#sub-verdict').dataset.verdict",
        timeout=GRADE_TIMEOUT_MS,
    )
    accepted = service.request("GET", f"/api/v1/submissions/{right_id}", token).json()
    failed = [(t["index"], t["kind"], t["verdict"], t["message"]) for t in accepted["tests"]]
    assert accepted["verdict"] == "AC", [f for f in failed if f[2] != "AC"]
    expect(verdict).to_have_attribute("data-verdict", "AC")
    expect(page.locator("#detail")).to_be_hidden()
    expect(page.locator("#counterexample")).to_be_hidden()
    expect(page.locator("#tests-body tr.row-failed")).to_have_count(0)
    shot(page, "student-05-accepted")

    # --- history: both, newest first; filters ------------------------------------------------
    page.locator(".mainnav").get_by_role("link", name="Submissions").click()
    history = page.locator("#history-body tr")
    expect(history).to_have_count(2)
    expect(history.nth(0)).to_have_attribute("data-id", str(right_id))
    expect(history.nth(0)).to_have_attribute("data-verdict", "AC")
    expect(history.nth(1)).to_have_attribute("data-id", str(wrong_id))
    expect(history.nth(1)).to_have_attribute("data-verdict", "WA")
    shot(page, "student-06-history")

    # One a page: the pager walks from the newest to the oldest.
    page.goto("/submissions?size=1")
    expect(page.locator("#page-info")).to_have_text(f"1{DASH}1 of 2")
    expect(history.nth(0)).to_have_attribute("data-id", str(right_id))
    page.get_by_role("link", name="Older →").click()
    expect(page.locator("#page-info")).to_have_text(f"2{DASH}2 of 2")
    expect(history.nth(0)).to_have_attribute("data-id", str(wrong_id))
    expect(page.locator("#next-page")).to_have_attribute("aria-disabled", "true")
    page.get_by_role("link", name="← Newer").click()
    expect(page.locator("#page-info")).to_have_text(f"1{DASH}1 of 2")

    page.goto("/submissions")
    page.get_by_label("Verdict").select_option("WA")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"verdict=WA"))
    expect(history).to_have_count(1)
    expect(history.nth(0)).to_have_attribute("data-id", str(wrong_id))

    page.goto("/submissions?problem=numbergame")
    expect(page.locator("#history-body")).to_contain_text("No submissions match these filters")
    page.goto("/submissions?to=2000-01-01")
    expect(page.locator("#history-body")).to_contain_text("No submissions match these filters")

    # --- the problem list now says the student solved it --------------------------------------
    page.goto("/problems")
    expect(footholds_row.locator("[data-col=mine]")).to_have_text("Solved")

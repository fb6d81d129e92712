"""A student tries code before submitting it: runs a solution that prints on the samples and
on a board drawn in the case editor, reads what it printed beside the expected answers, then
submits a wrong solution (min and max swapped) and reads where the bug is, with the position
and the positions one move later drawn."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from judge.problems import get
from tests.e2e.helpers import CORPUS, GRADE_TIMEOUT_MS, PACKAGED, log_in, shot, unique

pytestmark = pytest.mark.e2e

PASSWORD = "correct-horse-1"
PRINTING = (
    (PACKAGED / "footholds/submissions/accepted/footholds_memo.py")
    .read_text()
    .replace(
        "    rows, cols = len(board), len(board[0])\n",
        "    rows, cols = len(board), len(board[0])\n    print('size', rows, cols)\n",
        1,
    )
)
SWAPPED = (
    (CORPUS / "wrong_answer" / "footholds_minmax_swapped.py")
    .read_text()
    .replace(
        "    n, m = len(board), len(board[0])\n",
        "    n, m = len(board), len(board[0])\n    print('A at', aloc)\n",
        1,
    )
)


def test_run_with_prints_then_where_is_the_bug(service, open_page):
    username = unique("runner")
    token = service.register(username, PASSWORD)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/problems/footholds")
    assert "size" in PRINTING and "A at" in SWAPPED
    page.get_by_label("Your code").fill(PRINTING)

    # --- the samples: answers, expected answers and what the code printed ---------------------
    page.get_by_role("button", name="Run", exact=True).click()
    cards = page.locator("#run-results .run-case")
    status = page.locator("#run-status")
    expect(status).to_contain_text(
        "Done: 4 of 4 boards answered as expected", timeout=GRADE_TIMEOUT_MS
    )
    expect(cards).to_have_count(4)
    first = cards.nth(0)
    expect(first.locator(".fh-board")).to_be_visible()
    expect(first.locator(".compare-expected")).to_contain_text("5")
    expect(first.locator(".compare-ok")).to_contain_text("5")
    expect(first.locator(".printed-stdout .printed-text")).to_have_text("size 3 3\n")
    expect(cards.nth(2).locator(".printed-stdout .printed-text")).to_have_text("size 1 5\n")
    shot(page, "run-01-samples")

    # --- a board of one's own, drawn in the editor with its reference answer previewed -------
    page.get_by_role("button", name="My own boards").click()
    page.get_by_label("Rows", exact=True).select_option("2")
    page.get_by_label("Columns", exact=True).select_option("3")
    answer = page.locator("#case-preview #preview-answer")
    expect(answer).to_be_visible()
    expect(page.locator("#case-preview .replay")).to_be_visible()  # the optimal line
    page.get_by_role("button", name="Add this board").click()
    expect(page.locator("#case-list .case-item")).to_have_count(1)
    # The answer shown is the 2x3 board's (previewed at the latest when it was added).
    expected = answer.inner_text()
    expect(page.locator("#case-list .case-item")).to_contain_text(f"expected {expected}")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(status).to_contain_text(
        "Done: 1 of 1 board answered as expected", timeout=GRADE_TIMEOUT_MS
    )
    own = page.locator("#run-results .run-case")
    expect(own).to_have_count(1)
    expect(own.locator(".fh-cell")).to_have_count(6)
    expect(own.locator(".compare-expected")).to_contain_text(expected)
    expect(own.locator(".printed-stdout .printed-text")).to_have_text("size 2 3\n")
    shot(page, "run-02-own-board")
    # A run is not a submission: the history is still empty.
    assert service.request("GET", "/api/v1/submissions", token).json()["total"] == 0

    # --- a wrong submission, and where its bug is ----------------------------------------------
    page.get_by_label("Your code").fill(SWAPPED)
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_url(re.compile(r"/submissions/\d+$"))
    sid = int(page.url.rsplit("/", 1)[1])
    # While it waits or is judged, the tab says so: "(queued: 1) ..." or "(12/47) ...".
    expect(page).to_have_title(re.compile(rf"^\((queued(: \d+)?|\d+/\d+)\) Submission #{sid} "))
    expect(page.locator("#sub-verdict")).to_have_attribute(
        "data-verdict", "WA", timeout=GRADE_TIMEOUT_MS
    )
    expect(page).to_have_title(f"WA · Submission #{sid} · Footholds Judge")
    result = service.request("GET", f"/api/v1/submissions/{sid}", token).json()
    failing = next(t for t in result["tests"] if t["verdict"] != "AC")
    diagnosis = failing["diagnosis"]
    assert diagnosis is not None and diagnosis["children"]
    assert all(child["got"] == child["expected"] for child in diagnosis["children"])
    section = page.locator("#diagnosis")
    expect(section.locator("#diagnosis-summary")).to_have_text(diagnosis["summary"])
    wrong = section.locator(".diag-wrong")
    expect(wrong.locator(".fh-board")).to_be_visible()
    expect(wrong).to_contain_text(f"expected {diagnosis['expected']}, returned {diagnosis['got']}")
    children = section.locator(".diag-right")
    expect(children).to_have_count(len(diagnosis["children"]))
    for k, child in enumerate(diagnosis["children"]):
        expect(children.nth(k)).to_contain_text(
            f"expected {child['expected']}, returned {child['got']}"
        )
        expect(children.nth(k).locator(".fh-board")).to_be_visible()
    # The failing board as a ready call, in the order of solution's parameters.
    case = failing["input"]
    call = f"solution({case['board']}, {case['aloc']}, {case['bloc']})"
    expect(page.locator("#detail .detail-info .copy-call")).to_have_attribute("data-call", call)
    # What it printed on that visible test, and which tests printed anything.
    assert failing["stdout"] == f"A at {case['aloc']}\n"
    expect(page.locator("#detail .test-output .printed-stdout .printed-text")).to_have_text(
        failing["stdout"]
    )
    row = page.locator(f'#tests-body tr[data-index="{failing["index"]}"]')
    expect(row.locator(".printed-tag")).to_have_text(" printed")
    shot(page, "run-03-where-is-the-bug")


def test_own_rows_typed_and_pasted_and_an_error_with_its_traceback(service, open_page):
    username = unique("rows")
    service.register(username, PASSWORD)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/problems/numbergame")
    page.get_by_label("Your code").fill(
        "def solution(board):\n"
        "    print('got', board)\n"
        "    if len(board) == 2:\n"
        "        raise KeyError('two')\n"
        "    return 0\n"
    )
    page.get_by_role("button", name="My own boards").click()
    page.get_by_role("textbox", name="Numbers").fill("3 -1 4")
    answer = str(get("numbergame").reference({"board": [3, -1, 4]}))
    expect(page.locator("#case-preview #preview-answer")).to_have_text(answer)
    page.get_by_role("button", name="Add this board").click()
    page.get_by_text("Or paste boards as JSON").click()
    pasted = page.get_by_label(re.compile("One board, or a list of boards"))
    pasted.fill('{"board": [5000]}')
    page.get_by_role("button", name="Add these boards").click()
    expect(page.locator("#cases-error")).to_contain_text("between")
    pasted.fill('[{"board": [1, 2]}, {"board": [0]}]')
    page.get_by_role("button", name="Add these boards").click()
    items = page.locator("#case-list .case-item")
    expect(items).to_have_count(3)
    expect(items.nth(0)).to_contain_text(f"expected {answer}")

    # The solution returns 0 and raises on rows of two.
    right = sum(get("numbergame").reference({"board": row}) == 0 for row in ([3, -1, 4], [0]))
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#run-status")).to_contain_text(
        f"Done: {right} of 3 boards answered as expected", timeout=GRADE_TIMEOUT_MS
    )
    cards = page.locator("#run-results .run-case")
    expect(cards).to_have_count(3)
    expect(cards.nth(0).locator(".compare-expected")).to_contain_text(answer)
    expect(cards.nth(0).locator(".printed-stdout .printed-text")).to_have_text("got [3, -1, 4]\n")
    crashed = cards.nth(1)
    expect(crashed.locator(".run-error")).to_contain_text("KeyError")
    expect(crashed.locator(".traceback")).to_contain_text("raise KeyError('two')")
    expect(crashed.locator(".copy-call")).to_have_attribute("data-call", "solution([1, 2])")
    shot(page, "run-04-own-rows-and-an-error")


def test_the_untouched_template_runs_on_the_samples(service, open_page):
    # A newcomer presses Run before writing anything: the template is code, it runs.
    username = unique("template")
    service.register(username, PASSWORD)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/problems/numbergame")
    expect(page.get_by_label("Your code")).to_have_value(re.compile(r"def solution\(board\)"))
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#run-status")).to_contain_text("Done:", timeout=GRADE_TIMEOUT_MS)
    expect(page.locator("#submit-form .form-error")).to_be_hidden()

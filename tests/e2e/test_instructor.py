"""An instructor in the browser: draws a board, sees its validation, answer and optimal line,
saves it, and the next submission is graded on it; then the instructor's other pages (all
submissions by user, rejudging, statistics, the number-game row editor, deleting a board)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import update

from config import Settings
from judge.problems import get
from store.db import make_engine
from store.models import Submission
from tests.e2e.helpers import CORPUS, DASH, GRADE_TIMEOUT_MS, PACKAGED, log_in, shot, unique

pytestmark = pytest.mark.e2e

RIGHT = PACKAGED / "footholds/submissions/accepted/footholds_memo.py"
NUMBERGAME_RIGHT = CORPUS / "accepted" / "numbergame_dp.py"
SUBTRACTION_RIGHT = PACKAGED / "subtraction/submissions/accepted/subtraction_grundy.py"
MAX_N = get("numbergame").VIEW.bounds["max_length"]  # the editor's bound on a row


def cell(board, r: int, c: int):
    return board.locator(f'.fh-cell[data-r="{r}"][data-c="{c}"]')


def test_instructor_board_is_used_by_the_next_submission(service, open_page):
    student, student_password = unique("pupil"), "pupil password 123"
    student_token = service.register(student, student_password)
    admin_token = service.login(*service.admin)

    page = open_page()
    log_in(page, *service.admin)
    expect(page.locator(".role-badge")).to_have_text("instructor")
    page.locator(".mainnav").get_by_role("link", name="Instructor").click()
    card = page.locator('.problem-card[data-slug="footholds"]')
    expect(card.locator("[data-stat=boards]")).not_to_have_text(DASH)
    shot(page, "instructor-01-overview")
    card.get_by_role("link", name="Board editor").click()
    page.wait_for_url("**/instructor/problems/footholds/boards")

    # --- draw a 3 x 3 board ---------------------------------------------------------------------
    editor = page.locator("#board-editor")
    expect(editor.get_by_label("Rows").locator("option")).to_have_count(
        get("footholds").VIEW.bounds["max_side"]
    )
    editor.get_by_label("Rows").select_option("3")
    editor.get_by_label("Columns").select_option("3")
    grid = editor.locator(".fh-editor")
    expect(grid.locator("button.fh-cell")).to_have_count(9)
    expect(cell(grid, 2, 2).locator(".piece-b")).to_have_count(1)  # B kept inside the board
    cell(grid, 1, 1).click()  # toggle the centre foothold off
    cell(grid, 2, 2).click()  # ... but not the one under B: the editor says why
    expect(editor.locator(".editor-notice")).to_have_text(
        "B stands on row 2, column 2: move it first to remove this foothold."
    )
    expect(cell(grid, 2, 2)).to_have_class(re.compile("fh-on"))
    expect(page.locator("#preview-error")).to_have_count(0)
    save = page.get_by_role("button", name="Save as hidden board")
    shot(page, "instructor-02-foothold-under-a-piece")

    editor.get_by_text("places B").click()
    cell(grid, 0, 0).click()  # B joins A on (0, 0): sharing a cell is allowed
    expect(cell(grid, 0, 0)).to_have_class(re.compile("fh-shared"))
    expect(page.locator("#preview-answer")).to_be_visible()
    cell(grid, 2, 1).click()  # B moves to (2, 1)
    editor.get_by_text("toggles a foothold").click()
    cell(grid, 2, 2).click()  # B has left (2, 2): its foothold can go now
    expect(cell(grid, 2, 2)).to_have_class(re.compile("fh-off"))
    # By keyboard: from (0, 0) one step right, then the A key puts A there.
    cell(grid, 0, 0).focus()
    page.keyboard.press("ArrowRight")
    expect(cell(grid, 0, 1)).to_be_focused()
    page.keyboard.press("a")
    expect(cell(grid, 0, 1).locator(".piece-a")).to_have_count(1)
    expect(cell(grid, 0, 1)).to_have_attribute("aria-label", "Row 0, column 1, foothold, A")

    case = {"board": [[1, 1, 1], [1, 0, 1], [1, 1, 0]], "aloc": [0, 1], "bloc": [2, 1]}
    answer = get("footholds").reference(case)
    explanation = get("footholds").explain(case)
    expect(page.locator("#preview-answer")).to_have_text(str(answer))
    expect(page.locator("#preview-winner")).to_have_text(f"{explanation['winner']} wins")
    # An earlier board may have had the same answer: Save waits for this board's preview,
    # which waits behind the mutant checks of every edit on a busy judge.
    expect(save).to_be_enabled(timeout=GRADE_TIMEOUT_MS)
    replay = page.locator("#preview .replay")
    # The optimal line plays by itself on the drawn board.
    expect(replay).to_have_attribute("data-step", str(len(explanation["moves"])), timeout=15_000)
    replay.get_by_role("button", name="First position").click()
    expect(replay).to_have_attribute("data-step", "0")
    replay.get_by_role("button", name="Next move").click()
    expect(replay).to_have_attribute("data-step", "1")
    shot(page, "instructor-03-board-preview")

    # --- save it ----------------------------------------------------------------------------------
    plan = service.request("GET", "/api/v1/problems/footholds/plan", admin_token).json()
    assert plan["hidden"] == 0
    save.click()
    expect(page.locator("#save-note")).to_contain_text("Saved as hidden board #")
    board_id = int(re.search(r"#(\d+)", page.locator("#save-note").inner_text()).group(1))
    item = page.locator(f'.board-item[data-id="{board_id}"]')
    expect(item).to_be_visible()
    expect(item).to_contain_text(f"answer {answer}")
    expect(item.locator(".fh-board.fh-small .fh-cell")).to_have_count(9)
    shot(page, "instructor-04-board-saved")
    stored = service.request("GET", "/api/v1/problems/footholds/boards", admin_token).json()
    assert {"id": board_id, "input": case, "answer": answer}.items() <= next(
        b for b in stored if b["id"] == board_id
    ).items()

    # --- the next submission is graded on it ---------------------------------------------------
    submitted = service.request(
        "POST",
        "/api/v1/submissions",
        student_token,
        json={"problem": "footholds", "source": RIGHT.read_text()},
    )
    assert submitted.status_code == 202, submitted.text
    sid = submitted.json()["id"]
    page.goto(f"/submissions/{sid}")
    verdict = page.locator("#sub-verdict")
    expect(verdict).to_have_attribute("data-verdict", "AC", timeout=GRADE_TIMEOUT_MS)
    # Graded last, after the samples and random boards, on the one hidden board there is: ours.
    boards = service.request("GET", "/api/v1/problems/footholds/boards", admin_token).json()
    assert [b["id"] for b in boards] == [board_id]
    tests = service.request("GET", f"/api/v1/submissions/{sid}", admin_token).json()["tests"]
    hidden = [t for t in tests if t["kind"] == "hidden"]
    assert [t["index"] for t in hidden] == [len(tests) - 1]
    ours = hidden[0]
    assert ours["input"] == case and ours["expected"] == answer  # instructors see it all
    row = page.locator(f'#tests-body tr[data-index="{ours["index"]}"]')
    expect(row).to_contain_text("hidden")
    expect(row).to_have_attribute("data-verdict", "AC")
    shot(page, "instructor-05-graded-on-hidden-board")

    # The student sees that a hidden board was graded, never the board itself.
    student_page = open_page()
    log_in(student_page, student, student_password)
    student_page.goto(f"/submissions/{sid}")
    student_row = student_page.locator(f'#tests-body tr[data-index="{ours["index"]}"]')
    expect(student_row).to_contain_text("hidden")
    expect(student_row.get_by_role("button")).to_have_count(0)

    # --- all submissions, filtered by user ----------------------------------------------------
    page.goto("/submissions")
    expect(page.get_by_role("heading", name="All submissions")).to_be_visible()
    page.get_by_label("User").fill(student)
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("heading", name=f"Submissions by {student}")).to_be_visible()
    rows = page.locator("#history-body tr")
    expect(rows).to_have_count(1)
    expect(rows.nth(0)).to_have_attribute("data-id", str(sid))
    shot(page, "instructor-06-submissions-by-user")

    # --- rejudge one submission: live again, and the old verdict stays in its history ---------
    # A subtraction submission (graded in well under a second; footholds' full plan is the
    # slowest grading there is, and the one above proved what it had to).
    rejudged = service.submit(student_token, "subtraction", SUBTRACTION_RIGHT.read_text())
    page.goto(f"/submissions/{rejudged}")
    expect(verdict).to_have_attribute("data-verdict", "AC", timeout=GRADE_TIMEOUT_MS)
    # Every verdict the page shows from the click on, recorded as it changes: a rejudge of
    # subtraction can end within the tenth of a second the page is live again, too briefly
    # for a polled expectation to see.
    page.evaluate(
        """() => {
          const box = document.querySelector("#sub-verdict");
          window.shownVerdicts = [];
          new MutationObserver(() => window.shownVerdicts.push(box.dataset.verdict ?? null))
            .observe(box, { attributes: true, attributeFilter: ["data-verdict"] });
        }"""
    )
    page.get_by_role("button", name="Rejudge").click()
    judgings = page.locator("#judgings-body tr")
    expect(judgings).to_have_count(2, timeout=GRADE_TIMEOUT_MS)
    expect(verdict).to_have_attribute("data-verdict", "AC")
    shown = page.evaluate("window.shownVerdicts")
    assert shown and shown[0] != "AC" and shown[-1] == "AC", shown  # live again, then graded
    # Newest first, each with why it ran, in words (not the queue's name "live").
    expect(judgings.nth(0)).to_contain_text("rejudged")
    expect(judgings.nth(1)).to_contain_text("submitted")

    # --- rejudge a whole problem -------------------------------------------------------------
    # subtraction again: every submission of the problem is graded again, and the shared
    # service holds few of subtraction's (many of numbergame's, a time-out among them).
    page.goto("/instructor")
    card = page.locator('.problem-card[data-slug="subtraction"]')
    rejudge = card.get_by_role("button", name="Rejudge all")
    rejudge.click()
    expect(rejudge).to_have_text("Click again to rejudge all")
    rejudge.click()
    expect(card.locator("[data-note]")).to_contain_text("Rejudged")

    # --- statistics -------------------------------------------------------------------------------
    page.goto("/instructor/problems/footholds/stats")
    expect(page.locator("svg.chart-bars")).to_be_visible()
    expect(page.locator("svg.chart-days")).to_be_visible()
    expect(page.locator("#stats-summary")).to_contain_text("Finished submissions")
    page.get_by_label("Range").select_option("7")
    expect(page.locator("svg.chart-days .chart-day")).to_have_count(7)
    shot(page, "instructor-07-statistics")

    # --- delete the board (asks once more on the same button, for as long as it takes) ---------
    page.clock.install()  # the page's timers run on a clock the test moves
    page.goto("/instructor/problems/footholds/boards")
    item = page.locator(f'.board-item[data-id="{board_id}"]')
    delete = item.get_by_role("button", name=f"Delete hidden board {board_id}")
    confirm = item.get_by_role("button", name=f"Confirm: delete hidden board {board_id}")
    # The preview above the list settles first (its answer, then which mutants the board
    # kills, a line that grows): a click aimed while it grew landed beside the button once.
    expect(page.locator("#preview-answer")).to_be_visible()
    expect(page.locator("#preview-kills")).not_to_have_class(re.compile("is-loading"))
    expect(page.locator("#preview-kills")).not_to_contain_text("Working out")
    delete.click()
    expect(confirm).to_have_text("Confirm delete")
    page.keyboard.press("Escape")  # changed my mind: the button is put back
    expect(delete).to_have_text("Delete")
    delete.click()
    page.locator("#board-count").click()  # so is a click anywhere else
    expect(delete).to_be_visible()
    delete.click()
    page.clock.fast_forward("01:00")  # no timer takes the question back while it is read
    expect(confirm).to_be_visible()
    confirm.click()
    expect(item).to_have_count(0)
    stored = service.request("GET", "/api/v1/problems/footholds/boards", admin_token).json()
    assert board_id not in [b["id"] for b in stored]


def test_numbergame_row_preview(service, open_page):
    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor/problems/numbergame/boards")
    numbers = page.get_by_role("textbox", name="Numbers")
    numbers.fill("3 x 4")
    expect(page.locator("#preview-error")).to_contain_text("“x” is not a whole number")
    numbers.fill("100, -1000, -1000, 100, -1000, -1000")
    case = {"board": [100, -1000, -1000, 100, -1000, -1000]}
    expect(page.locator("#preview-answer")).to_have_text(str(get("numbergame").reference(case)))
    expect(page.locator("#preview .ng-row .ng-tile")).to_have_count(6)
    # Out of range: the editor says why, with the bounds the problem declares.
    numbers.fill("5000")
    expect(page.locator("#preview-error")).to_contain_text(
        "Number 1 is 5000: each number must be between -1000 and 1000."
    )
    numbers.fill(" ".join(["1"] * (MAX_N + 1)))
    expect(page.locator("#preview-error")).to_contain_text(
        f"That is {MAX_N + 1} numbers: at most {MAX_N}."
    )
    expect(page.get_by_role("button", name="Save as hidden board")).to_be_disabled()
    numbers.fill("7 -5 8 5 1 -4 -8 6 7 9")
    expect(page.locator("#preview-answer")).to_have_text("7")
    shot(page, "instructor-08-numbergame-preview")


def test_a_held_submission_shows_its_reason_to_instructors_only_and_rejudges(service, open_page):
    """A submission whose grading kept being interrupted is held (the service tests kill real
    workers to get there; here the row is put in that state directly): the student reads
    "held for review" and no verdict, the instructor reads why and rejudges it in one click."""
    student, password = unique("held"), "held password 123"
    token = service.register(student, password)
    sid = service.submit(token, "numbergame", NUMBERGAME_RIGHT.read_text())
    service.wait_done(token, sid)
    reason = "grading was interrupted 3 times; the last interruption: OperationalError: test"
    engine = make_engine(Settings(data_dir=service.tmp, secret_key="unused" * 8).db_url)
    with engine.begin() as connection:
        connection.execute(
            update(Submission)
            .where(Submission.id == sid)
            .values(status="held", verdict=None, passed=None, total=None, hold_reason=reason)
        )
    engine.dispose()

    student_page = open_page()
    log_in(student_page, student, password)
    student_page.goto(f"/submissions/{sid}")
    verdict = student_page.locator("#sub-verdict")
    expect(verdict).to_contain_text("Held for review")
    expect(verdict).to_contain_text("not by your code")
    expect(student_page.locator("#hold")).to_be_hidden()
    expect(student_page.get_by_text("OperationalError")).to_have_count(0)
    shot(student_page, "held-01-student")
    student_page.goto("/submissions")
    expect(student_page.locator(f'#history-body tr[data-id="{sid}"] .badge-held')).to_have_text(
        "Held"
    )

    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor")  # the overview lists what is held, with the reason
    row = page.locator(f'#held-body tr[data-id="{sid}"]')
    expect(row).to_contain_text(reason)
    expect(row.get_by_role("button", name="Rejudge")).to_be_visible()
    shot(page, "held-02-instructor-overview")
    row.get_by_role("link", name=f"#{sid}").click()
    page.wait_for_url(f"**/submissions/{sid}")
    hold = page.locator("#hold")
    expect(hold).to_be_visible()
    expect(hold).to_contain_text(reason)
    shot(page, "held-03-instructor")
    hold.get_by_role("button", name="Rejudge now", exact=True).click()
    expect(page.locator("#sub-verdict")).to_have_attribute(
        "data-verdict", "AC", timeout=GRADE_TIMEOUT_MS
    )
    expect(hold).to_be_hidden()

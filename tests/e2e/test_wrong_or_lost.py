"""Issue 12, "wrong or lost": the places where a page said something wrong, lost a user's work
or left the user stuck, one test each, with screenshots in tests/artifacts/."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    DASH,
    DESKTOP,
    GRADE_TIMEOUT_MS,
    OVERFLOW,
    PHONE,
    SOLUTIONS,
    log_in,
    shot,
    unique,
)
from tests.e2e.test_strength import ready_report

pytestmark = pytest.mark.e2e

PASSWORD = "a long enough password"
SUBTRACTION = Path(__file__).resolve().parents[2] / "problems" / "subtraction"


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
    # stonegame: the shortest limit of the built-in problems (1 s; numbergame's is 2 s), and
    # the grading spends it in full.
    sid = submit(service, token, "stonegame", (SOLUTIONS / "stonegame_endless.py").read_text())
    page = open_page()
    open_graded(page, username, sid, "TLE")
    row = page.locator('#tests-body tr[data-verdict="TLE"]')
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(3)).to_have_text("> 1 s (limit)")
    slowest = page.locator("#summary .stat").filter(has_text="Slowest test")
    expect(slowest.locator(".stat-value")).to_have_text("> 1 s (limit)")
    expect(page.locator("#summary")).not_to_contain_text("< 1 ms")
    expect(page.locator("#detail .detail-meta")).to_contain_text("> 1 s (limit)")
    page.goto("/submissions")
    expect(page.locator(f'#history-body tr[data-id="{sid}"]')).to_contain_text("> 1 s (limit)")
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


def py_file(name: str, text: str) -> dict:
    return {"name": name, "mimeType": "text/x-python", "buffer": text.encode()}


MINE = "def solution(board):\n    # my own work\n    return max(board)\n"
FROM_FILE = "def solution(board):\n    # from a file\n    return sum(board)\n"


def test_drafts_survive_files_resets_and_submits(service, open_page):
    username, _ = student(service)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/problems/numbergame")
    editor = page.get_by_label("Your code")
    editor.fill(MINE)
    upload = page.get_by_label("Or upload a .py file")
    note = page.locator("#draft-note")

    # A chosen file replaces the code, and one click brings the code back.
    upload.set_input_files(py_file("other.py", FROM_FILE))
    expect(editor).to_have_value(FROM_FILE)
    expect(note).to_be_visible()
    expect(note).to_contain_text("replaced by “other.py”")
    shot(page, "fix-03-file-replaced-undo")
    note.get_by_role("button", name="Undo").click()
    expect(editor).to_have_value(MINE)
    expect(note).to_be_hidden()
    expect(page.locator("#file-note")).to_be_hidden()  # Submit sends the editor again

    # So does "Reset to template".
    page.get_by_role("button", name="Reset to template").click()
    expect(editor).not_to_have_value(MINE)
    expect(note).to_contain_text("reset to the template")
    note.get_by_role("button", name="Undo").click()
    expect(editor).to_have_value(MINE)

    # An edit still waiting for its paint when the code is replaced in the same moment (a
    # file chosen right after typing, on a busy machine) is reported before the replacement,
    # so its late report does not hide the replacement's Undo.
    page.evaluate("""() => {
        const source = document.querySelector("#source");
        source.value += "# typed";
        source.dispatchEvent(new Event("input", { bubbles: true }));
        document.querySelector("#reset-code").click();
    }""")
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    expect(note).to_be_visible()
    note.get_by_role("button", name="Undo").click()
    expect(editor).to_have_value(MINE + "# typed")
    editor.fill(MINE)

    # After a submit the draft is the code that was sent, typed or uploaded.
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_url("**/submissions/*")
    page.goto("/problems/numbergame")
    expect(editor).to_have_value(MINE)
    upload.set_input_files(py_file("other.py", FROM_FILE))
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_url("**/submissions/*")
    page.goto("/problems/numbergame")
    expect(editor).to_have_value(FROM_FILE)
    expect(note).to_be_hidden()


def test_refused_and_empty_files_block_submit(service, open_page):
    username, token = student(service)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/problems/numbergame")
    upload = page.get_by_label("Or upload a .py file")
    submit_button = page.get_by_role("button", name="Submit", exact=True)
    error = page.locator(".form-error")

    # Too large: refused, and Submit cannot send the untouched template instead.
    upload.set_input_files(py_file("big.py", "# padding\n" * 7000))
    expect(error).to_contain_text("the limit is 64 KB")
    expect(submit_button).to_be_disabled()
    shot(page, "fix-04-file-too-large")

    # Empty (or blank): refused like an empty editor.
    upload.set_input_files(py_file("empty.py", ""))
    expect(error).to_contain_text("“empty.py” is empty")
    expect(submit_button).to_be_disabled()
    upload.set_input_files(py_file("blank.py", "\n  \n"))
    expect(error).to_contain_text("“blank.py” is empty")

    # Editing the code is a new decision: Submit comes back, but the untouched template is
    # still not sent.
    editor = page.get_by_label("Your code")
    editor.press("End")
    editor.press_sequentially(" ")
    expect(submit_button).to_be_enabled()
    page.get_by_role("button", name="Reset to template").click()
    submit_button.click()
    expect(error).to_contain_text("Write your solution")
    listing = service.request("GET", "/api/v1/submissions", token).json()
    assert listing["total"] == 0, listing


def test_a_refused_file_stays_refused_when_the_sign_in_check_answers_late(service, open_page):
    # The page asks who is signed in as it starts; a file refused before that answer came
    # back had its Submit turned on again by it.
    username, _ = student(service)
    page = open_page()
    log_in(page, username, PASSWORD)
    held = []
    page.route("**/api/v1/users/me", lambda route: held.append(route))
    page.goto("/problems/numbergame")
    page.get_by_label("Or upload a .py file").set_input_files(py_file("empty.py", ""))
    expect(page.locator(".form-error")).to_contain_text("“empty.py” is empty")
    while not held:
        page.wait_for_timeout(50)
    # The page lists the student's recent submissions once it knows who is signed in.
    with page.expect_request(re.compile(r"/api/v1/submissions\?problem=numbergame")):
        held[0].continue_()
    expect(page.get_by_role("button", name="Submit", exact=True)).to_be_disabled()


ZERO = "def solution(board):\n    return 0\n"


def test_first_failure_is_a_visible_one_and_hidden_failures_are_counted(service, open_page):
    admin = service.login(*service.admin)
    # A board whose answer is not 0, unlike any other: `return 0` fails it.
    case = {"board": [secrets.randbelow(400) + 600, -3, secrets.randbelow(500) + 1]}
    added = service.request(
        "POST", "/api/v1/problems/numbergame/boards", admin, json={"input": case}
    )
    assert added.status_code == 201, added.text
    try:
        username, token = student(service)
        sid = submit(service, token, "numbergame", ZERO)
        page = open_page()
        open_graded(page, username, sid, "WA")
        result = service.request("GET", f"/api/v1/submissions/{sid}", token).json()
        failed = [t for t in result["tests"] if t["verdict"] != "AC"]
        visible = next(t for t in failed if t["kind"] != "hidden")
        hidden = sum(1 for t in failed if t["kind"] == "hidden")
        assert hidden >= 1
        detail = page.locator("#detail")
        expect(detail.locator("#detail-title")).to_have_text(
            f"First failing test: #{visible['index'] + 1}"
        )
        expect(detail.locator(".detail-board")).to_be_visible()
        boards = "hidden board" if hidden == 1 else "hidden boards"
        expect(detail.locator("#hidden-failures")).to_have_text(
            f"{hidden} {boards} also failed (listed in the tests below)."
        )
        shot(page, "fix-05-first-visible-failure")
    finally:
        board_id = added.json()["id"]
        service.request("DELETE", f"/api/v1/problems/numbergame/boards/{board_id}", admin)


# Line 3 lacks its colon.
SYNTAX_ERROR = (
    "def solution(board):\n    best = 0\n    for x in board\n        best += x\n    return best\n"
)


def test_compile_error_marks_its_line_and_shows_no_test_figures(service, open_page):
    username, token = student(service)
    sid = submit(service, token, "numbergame", SYNTAX_ERROR)
    page = open_page()
    open_graded(page, username, sid, "CE")
    summary = page.locator("#summary")
    expect(summary).to_contain_text("None run")
    expect(summary).not_to_contain_text("Slowest test")
    expect(summary).not_to_contain_text("passed")
    expect(page.locator("#sub-verdict")).to_contain_text("No test was run")
    expect(page.locator(".message-text")).to_contain_text("line 3")
    expect(page.locator("#error-line-link")).to_have_text("Line 3 is marked in the source below")
    source = page.locator("#source-body .code-view")
    expect(source).to_have_attribute("data-mark-line", "3")
    expect(source.locator(".code-gutter .code-mark")).to_have_text("3")
    # The band behind line 3 starts two lines (40 px) down.
    top = source.locator(".code-body").evaluate(
        "(pre) => getComputedStyle(pre).getPropertyValue('--mark-top').trim()"
    )
    assert top == "40px", top
    shot(page, "fix-12-compile-error-line")
    page.goto("/submissions")
    row = page.locator(f'#history-body tr[data-id="{sid}"]')
    expect(row.locator("td").nth(4)).to_have_text("CE")  # after the language's column
    expect(row.locator("td").nth(5)).to_have_text(DASH)
    expect(row.locator("td").nth(7)).to_have_text(DASH)  # no memory either
    # The problem page's recent list: the verdict, no pass count of 0/N.
    page.goto("/problems/numbergame")
    recent = page.locator("#recent-list li").first
    expect(recent).to_contain_text("CE")
    expect(recent).not_to_contain_text(re.compile(r"\d+/\d+"))


def test_history_filters_follow_the_address(service, open_page):
    username, token = student(service)
    submit(service, token, "numbergame", ZERO)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/submissions")
    expect(page.locator("#history-body tr[data-id]")).to_have_count(1)
    verdict = page.get_by_label("Verdict")
    verdict.select_option("TLE")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**verdict=TLE")
    expect(verdict).to_have_value("TLE")
    page.go_back()
    page.wait_for_url("**/submissions")
    # Back: the address has no filter, and neither has the form (its fields usable again).
    expect(verdict).to_have_value("")
    expect(page.get_by_label("Problem", exact=True)).to_be_enabled()
    expect(page.locator("#history-body tr[data-id]")).to_have_count(1)
    page.go_forward()
    page.wait_for_url("**verdict=TLE")
    expect(verdict).to_have_value("TLE")

    # Dates the wrong way round, typed into the address: said, with the way out.
    page.goto("/submissions?from=2030-05-02&to=2030-05-01")
    expect(page.locator("#inverted-range")).to_contain_text(
        "The “From” date (2030-05-02) is after the “To” date (2030-05-01)"
    )
    shot(page, "fix-06-inverted-dates")
    page.get_by_role("link", name="Swap the dates").click()
    page.wait_for_url("**from=2030-05-01**")
    expect(page.locator("#history-body")).to_contain_text("No submissions match these filters")


def test_a_filter_chosen_before_the_sign_in_check_answers_is_kept(service, open_page):
    # The form was filled from the address only once the page knew who was signed in: a
    # verdict chosen before that answer came back was reset under the user's hand.
    username, token = student(service)
    submit(service, token, "numbergame", ZERO)
    page = open_page()
    log_in(page, username, PASSWORD)
    held = []
    page.route("**/api/v1/users/me", lambda route: held.append(route))
    page.goto("/submissions")
    page.get_by_label("Verdict").select_option("WA")
    while not held:
        page.wait_for_timeout(50)
    held[0].continue_()
    expect(page.locator("#history-body tr[data-id]")).to_have_count(1)
    expect(page.get_by_label("Verdict")).to_have_value("WA")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"/submissions\?verdict=WA$"))


def test_a_student_on_an_instructor_page_gets_a_plain_not_allowed_page(service, open_page):
    username, _ = student(service)
    page = open_page()
    log_in(page, username, PASSWORD)
    for path in (
        "/instructor",
        "/instructor/problems/footholds/boards",
        "/instructor/problems/numbergame/stats",
        "/instructor/problems/numbergame/strength",
        "/instructor/problems",
        "/instructor/problems/tictactoe/versions",
    ):
        page.goto(path)
        expect(page.get_by_role("heading", name="Not allowed", level=1)).to_be_visible()
        expect(page.locator("#not-allowed")).to_contain_text(f"logged in as {username}")
        expect(page).to_have_title("Not allowed · Footholds Judge")
        # Nothing of the instructor page shows: one heading, no red banner, no form.
        expect(page.locator("main h1:visible")).to_have_count(1)
        expect(page.locator("#page-alert")).to_be_hidden()
        expect(page.locator("main form:visible, main button:visible")).to_have_count(0)
    shot(page, "fix-09-not-allowed")


def test_board_editor_speaks_plainly_and_sends_no_invalid_board(service, open_page):
    page = open_page()
    refused, console_errors = [], []
    page.on("response", lambda r: r.status == 422 and refused.append(r.url))
    page.on("console", lambda m: m.type == "error" and console_errors.append(m.text))
    log_in(page, *service.admin)
    page.goto("/instructor/problems/footholds/boards")
    editor = page.locator("#board-editor")
    grid = editor.locator(".fh-editor")
    notice = editor.locator(".editor-notice")
    expect(page.locator("#preview-answer")).to_be_visible()

    def cell(r: int, c: int):
        return grid.locator(f'.fh-cell[data-r="{r}"][data-c="{c}"]')

    # The foothold under A stays, and the editor says why in the page's own counting.
    cell(0, 0).click()
    expect(notice).to_have_text(
        "A stands on row 0, column 0: move it first to remove this foothold."
    )
    expect(cell(0, 0)).to_have_class(re.compile("fh-on"))
    shot(page, "fix-10-foothold-under-a")

    # "No footholds" keeps the two under the pieces; a piece placed on a hole gets one; a
    # smaller board moves B onto a foothold. Every board the editor holds is valid.
    editor.get_by_role("button", name="No footholds").click()
    expect(grid.locator(".fh-on")).to_have_count(2)
    editor.get_by_text("places A").click()
    cell(1, 2).click()
    expect(cell(1, 2)).to_have_class(re.compile("fh-on"))
    editor.get_by_label("Rows").select_option("2")
    editor.get_by_label("Columns").select_option("2")
    expect(cell(1, 1).locator(".piece-b")).to_have_count(1)
    expect(cell(1, 1)).to_have_class(re.compile("fh-on"))
    expect(page.locator("#preview-answer")).to_be_visible()
    expect(page.locator("#preview-error")).to_have_count(0)

    # A number out of range is said before any request. (The footholds checks above may keep
    # the judge busy for a while: the page waits for its answer.)
    page.goto("/instructor/problems/numbergame/boards")
    expect(page.get_by_role("textbox", name="Numbers")).to_be_visible(timeout=GRADE_TIMEOUT_MS)
    page.get_by_role("textbox", name="Numbers").fill("3 5000 2")
    expect(page.locator("#preview-error")).to_contain_text(
        "Number 2 is 5000: each number must be between -1000 and 1000."
    )
    page.wait_for_load_state("networkidle", timeout=GRADE_TIMEOUT_MS)
    assert refused == [], refused
    assert not [m for m in console_errors if "422" in m], console_errors


def test_counts_are_worded_in_the_singular_and_names_are_read_apart(service, open_page):
    page = open_page()
    log_in(page, *service.admin)
    # One number: one move in the line, said so in the caption and the summary.
    page.goto("/instructor/problems/numbergame/boards")
    page.get_by_role("textbox", name="Numbers").fill("5")
    expect(page.locator("#preview-answer")).to_have_text("5")
    preview = page.locator("#preview")
    expect(preview).to_contain_text("The first player wins by 5 after 1 move")
    replay = preview.locator(".replay")
    expect(replay).to_have_attribute("data-step", "1")  # the line plays by itself
    replay.get_by_role("button", name="First position").click()
    expect(replay.locator(".replay-caption")).to_contain_text("1 move in this line.")

    # The editor's status line: "1 line".
    page.goto("/problems/numbergame")
    page.get_by_label("Your code").fill("x = 1")
    expect(page.locator(".ce-status")).to_contain_text("· 1 line ·")

    # Test strength: the random-board card says only what some plans miss, and each
    # surviving mutant's name is a word apart from its badge.
    report = ready_report(service, service.login(*service.admin))
    page.goto("/instructor/problems/numbergame/strength")
    expect(page.locator("#mutant-body tr")).to_have_count(report["mutant_count"])
    rates = [m["random_rate"] for m in report["mutants"] if m["random_rate"] is not None]
    if rates:
        always = sum(1 for r in rates if r >= 1)
        more = sum(1 for r in rates if r > 0) - always
        card = page.locator("#strength-summary .stat").filter(has_text="Killed by random boards")
        expect(card.locator(".stat-value")).to_have_text(f"{always} / {report['mutant_count']}")
        wanted = f"in every plan; {more} more in some plans" if more else "in every plan"
        expect(card.locator(".stat-extra")).to_have_text(wanted)
    for name in report["survivors"]:
        head = page.locator(f'#mutant-body tr[data-name="{name}"] .mutant-cell > div').first
        assert head.text_content() == f"{name} survivor"
    shot(page, "fix-11-strength-wording")


OVERLAP = """([a, b]) => {
  const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
  return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
}"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_deleting_a_board_keeps_the_card_readable_and_the_focus(service, open_page, viewport):
    admin = service.login(*service.admin)
    ids = []
    for _ in range(3):
        case = {"board": [secrets.randbelow(2000) - 1000 for _ in range(7)]}
        added = service.request(
            "POST", "/api/v1/problems/numbergame/boards", admin, json={"input": case}
        )
        assert added.status_code == 201, added.text
        ids.append(added.json()["id"])
    try:
        page = open_page(viewport)
        log_in(page, *service.admin)
        page.goto("/instructor/problems/numbergame/boards")
        middle = page.locator(f'.board-item[data-id="{ids[1]}"]')
        middle.get_by_role("button", name=f"Delete hidden board {ids[1]}").click()
        confirm = middle.get_by_role("button", name=f"Confirm: delete hidden board {ids[1]}")
        expect(confirm).to_have_text("Confirm delete")
        meta = middle.locator(".board-meta")
        assert not page.evaluate(OVERLAP, [confirm.element_handle(), meta.element_handle()])
        # The title line is not squeezed: it fits its box on one line.
        title = meta.locator("div").first
        assert title.evaluate("(d) => d.scrollWidth <= d.clientWidth")
        assert title.evaluate("(d) => d.getBoundingClientRect().height < 30")
        shot(page, f"fix-07-confirm-delete-{'phone' if viewport is PHONE else 'desktop'}")
        confirm.click()
        expect(middle).to_have_count(0)
        # The focus moved to the board that took its place, not to the top of the page.
        focused = page.evaluate("document.activeElement.dataset.delete")
        expect(page.locator("#save-note")).to_have_text(f"Deleted hidden board #{ids[1]}.")
        assert focused is not None and int(focused) != ids[1], focused
    finally:
        for board_id in ids:
            service.request("DELETE", f"/api/v1/problems/numbergame/boards/{board_id}", admin)


def test_a_board_already_tested_is_not_saved_again(service, open_page):
    admin = service.login(*service.admin)
    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor/problems/numbergame/boards")
    save = page.get_by_role("button", name="Save as hidden board")
    note = page.locator("#duplicate-note")
    numbers = page.get_by_role("textbox", name="Numbers")
    # The editor starts on sample 3's row.
    numbers.fill("7 -5 8 5 1 -4 -8 6 7 9")
    expect(note).to_have_text(
        "This board is the same as sample 3: saving it again would test nothing new."
    )
    expect(save).to_be_disabled()
    shot(page, "fix-08-duplicate-of-sample")

    row = [secrets.randbelow(2000) - 1000 for _ in range(9)]
    numbers.fill(" ".join(map(str, row)))
    expect(page.locator("#preview-answer")).to_be_visible()
    expect(note).to_have_count(0)
    expect(save).to_be_enabled()
    save.click()
    saved = page.locator("#save-note")
    expect(saved).to_contain_text("Saved as hidden board #")
    board_id = int(re.search(r"#(\d+)", saved.inner_text()).group(1))
    try:
        # The same row again: said, and Save stays off.
        expect(note).to_have_text(
            f"This board is the same as hidden board #{board_id}: saving it again would test "
            "nothing new."
        )
        expect(save).to_be_disabled()
        stored = service.request("GET", "/api/v1/problems/numbergame/boards", admin).json()
        assert [b["input"] for b in stored].count({"board": row}) == 1
    finally:
        service.request("DELETE", f"/api/v1/problems/numbergame/boards/{board_id}", admin)


LONG_ROW = "7 -5 8 5 1 -4 -8 6 7 9 3"  # a line of several moves (not a sample)


def test_preview_line_respects_reduced_motion_and_is_not_read_move_by_move(service, open_page):
    page = open_page()
    log_in(page, *service.admin)
    page.emulate_media(reduced_motion="reduce")
    page.goto("/instructor/problems/numbergame/boards")
    page.get_by_role("textbox", name="Numbers").fill(LONG_ROW)
    replay = page.locator("#preview .replay")
    # The preview of this row, not of the row the editor started with.
    expect(replay.locator(".replay-stage .ng-tile")).to_have_count(len(LONG_ROW.split()))
    # Reduced motion: the line waits at its start for the Play button.
    expect(replay).to_have_attribute("data-step", "0")
    expect(replay.get_by_role("button", name="Play the moves")).to_be_visible()
    caption = replay.locator(".replay-caption")
    expect(caption).to_have_attribute("aria-live", "polite")

    # Playing: the caption is not announced move by move; stopped, it is again.
    replay.get_by_role("button", name="Play the moves").click()
    expect(replay.get_by_role("button", name="Pause")).to_be_visible()
    expect(caption).to_have_attribute("aria-live", "off")
    replay.get_by_role("button", name="Pause").click()
    expect(caption).to_have_attribute("aria-live", "polite")
    replay.get_by_role("button", name="Next move").click()
    expect(caption).to_contain_text("Move ")
    expect(caption).to_have_attribute("aria-live", "polite")
    shot(page, "fix-13-reduced-motion")

    # Without the request the preview plays by itself, silently until it stops.
    page.emulate_media(reduced_motion="no-preference")
    page.get_by_role("textbox", name="Numbers").fill("9 -5 8 5 1 -4 -8 6 7 9 3")
    expect(replay.get_by_role("button", name="Pause")).to_be_visible()
    expect(caption).to_have_attribute("aria-live", "off")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_replay_controls_are_distinct_stay_on_one_row_and_draw_the_board_once(
    service, open_page, viewport
):
    username, _ = student(service)
    page = open_page(viewport)
    log_in(page, username, PASSWORD)
    page.goto("/problems/footholds")
    card = page.locator(".sample-card").first
    expect(card.locator(".fh-board")).to_have_count(1)
    card.get_by_text("Optimal line of play").click()
    replay = card.locator(".replay")
    expect(replay).to_be_visible()
    # One board drawn: the replay's, which starts on the sample.
    expect(card.locator(".fh-board:visible")).to_have_count(1)
    expect(replay.locator(".replay-stage .fh-board")).to_be_visible()
    # Back/Next do not look like First/Last.
    shapes = {
        name: replay.get_by_role("button", name=name).locator("path").get_attribute("d")
        for name in ("First position", "Previous move", "Next move", "Last position")
    }
    assert len(set(shapes.values())) == 4, shapes
    # The five controls on one row, inside the card.
    tops = replay.locator(".replay-controls button").evaluate_all(
        "(buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top))"
    )
    assert len(tops) == 5 and len(set(tops)) == 1, tops
    right = replay.locator(".replay-controls button").last.bounding_box()
    edge = card.bounding_box()
    assert right["x"] + right["width"] <= edge["x"] + edge["width"] + 1
    shot(page, f"fix-15-replay-{'phone' if viewport is PHONE else 'desktop'}")
    card.get_by_text("Optimal line of play").click()  # closed: the sample's board is back
    expect(card.locator(".fh-board:visible")).to_have_count(1)


def test_a_new_board_offers_a_rejudge_and_the_rejudge_shows_progress(service, open_page):
    """subtraction, as below: "Rejudge all" grades every submission of the problem again, and
    numbergame has many in the shared service (this module's time-out among them)."""
    admin = service.login(*service.admin)
    _, token = student(service)
    accepted = SUBTRACTION / "submissions" / "accepted" / "subtraction_grundy.py"
    sid = submit(service, token, "subtraction", accepted.read_text())
    service.wait_done(token, sid)
    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor/problems/subtraction/boards")
    editor = page.locator("#board-editor")
    editor.get_by_role("button", name="JSON", exact=True).click()
    case = {"piles": [secrets.randbelow(500) + 1 for _ in range(3)], "moves": [1, 2, 5]}
    editor.get_by_label("The whole case as JSON").fill(json.dumps(case))
    save = page.get_by_role("button", name="Save as hidden board")
    expect(save).to_be_enabled()
    offer = page.locator("#rejudge-offer")
    expect(offer).to_be_hidden()
    save.click()
    saved = page.locator("#save-note")
    expect(saved).to_contain_text("Saved as hidden board #")
    board_id = int(re.search(r"#(\d+)", saved.inner_text()).group(1))
    try:
        expect(offer).to_contain_text("have not been tested on it")
        offer.get_by_role("button", name="Rejudge all submissions").click()
        progress = offer.locator("progress")
        expect(progress).to_be_visible()
        total = int(progress.get_attribute("max"))
        assert total >= 1
        shot(page, "fix-16-rejudge-progress")
        expect(offer).to_contain_text("Rejudged all", timeout=GRADE_TIMEOUT_MS)
        expect(progress).to_have_attribute("value", str(total))
        # The student's submission was graded again, on the new board too.
        result = service.wait_done(token, sid, judgings=2)
        hidden = [t for t in result["tests"] if t["kind"] == "hidden"]
        assert len(hidden) >= 1
    finally:
        service.request("DELETE", f"/api/v1/problems/subtraction/boards/{board_id}", admin)


def test_a_new_board_offers_a_preview_of_what_a_rejudge_changes(service, open_page):
    """subtraction: few submissions in the shared service, so the preview grades few."""
    admin = service.login(*service.admin)
    _, token = student(service)
    accepted = SUBTRACTION / "submissions" / "accepted" / "subtraction_grundy.py"
    sid = submit(service, token, "subtraction", accepted.read_text())
    before = service.wait_done(token, sid)["verdict"]
    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor/problems/subtraction/boards")
    editor = page.locator("#board-editor")
    editor.get_by_role("button", name="JSON", exact=True).click()
    piles = [secrets.randbelow(500) + 1 for _ in range(3)]
    case = {"piles": piles, "moves": [1, 3, 4]}
    editor.get_by_label("The whole case as JSON").fill(json.dumps(case))
    save = page.get_by_role("button", name="Save as hidden board")
    expect(save).to_be_enabled()
    save.click()
    saved = page.locator("#save-note")
    expect(saved).to_contain_text("Saved as hidden board #")
    board_id = int(re.search(r"#(\d+)", saved.inner_text()).group(1))
    try:
        offer = page.locator("#rejudge-offer")
        offer.get_by_role("button", name="Preview what changes").click()
        # Graded again, nothing stored: the summary, then the offer to apply it.
        expect(offer.locator("#regrade-live")).to_have_text(
            re.compile(r"^0 of \d+ verdicts? change; 0 assignment scores change\.$"),
            timeout=GRADE_TIMEOUT_MS,
        )
        expect(offer.get_by_role("button", name="Rejudge the changed ones")).to_be_disabled()
        assert service.detail(token, sid)["verdict"] == before  # nothing rejudged
    finally:
        service.request("DELETE", f"/api/v1/problems/subtraction/boards/{board_id}", admin)


def test_login_and_register_say_who_is_logged_in(service, open_page):
    username, _ = student(service)
    page = open_page()
    page.goto("/login")
    expect(page.locator("#logged-in-note")).to_have_count(0)  # nobody yet
    log_in(page, username, PASSWORD)
    for path in ("/login", "/register"):
        page.goto(path)
        note = page.locator("#logged-in-note")
        expect(note).to_have_text(
            f"You are logged in as {username}. Go to the problems, or log out to use another "
            "account."
        )
        note.get_by_role("link", name="Go to the problems").click()
        page.wait_for_url("**/problems")
    page.goto("/login")
    shot(page, "fix-17-logged-in-notice")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/login")
    expect(page.locator("#logged-in-note")).to_have_count(0)


def test_the_user_filter_suggests_names_and_says_when_nobody_has_one(service, open_page):
    stem = unique("pfx")
    for suffix in ("ann", "annabel"):
        service.register(f"{stem}{suffix}", PASSWORD)
    page = open_page()
    log_in(page, *service.admin)
    page.goto("/submissions")
    field = page.get_by_label("User")
    field.fill(f"{stem}an")
    options = page.locator("#user-suggestions option")
    expect(options).to_have_count(2)
    assert sorted(options.evaluate_all("(os) => os.map((o) => o.value)")) == [
        f"{stem}ann",
        f"{stem}annabel",
    ]
    # A name nobody has: said, with the names that start with it.
    page.goto(f"/submissions?user={stem}an")
    hint = page.locator("#user-hint")
    expect(hint).to_contain_text(f"No user is named {stem}an.")
    shot(page, "fix-17-user-suggestions")
    hint.get_by_role("link", name=f"{stem}annabel").click()
    page.wait_for_url(f"**user={stem}annabel")
    expect(page.locator("#history-body")).to_contain_text("No submissions match these filters")
    expect(page.locator("#user-hint")).to_have_count(0)  # that user exists


FITS = "(el) => el.scrollWidth <= el.clientWidth + 1"


def test_tables_fit_a_phone_and_the_signature_fits_the_desktop(service, open_page):
    username, token = student(service)
    submit(service, token, "numbergame", ZERO)
    page = open_page(PHONE)
    log_in(page, username, PASSWORD)
    page.goto("/problems")
    mine = page.locator('tr[data-slug="footholds"] [data-col=mine]')
    box = mine.bounding_box()
    assert box["x"] + box["width"] <= PHONE["width"], box  # the "You" column is on screen
    assert page.locator("#problem-table").evaluate(
        "(t) => t.getBoundingClientRect().right <= window.innerWidth"
    )
    shot(page, "fix-14-phone-problems")

    teacher = open_page(PHONE)
    log_in(teacher, *service.admin)
    teacher.goto("/submissions")
    first = teacher.locator("#history-body tr[data-id]").first
    expect(first).to_be_visible()
    # The history keeps one line per cell and scrolls sideways inside its container (wrapped
    # to fit, it read one letter a line); the page itself stays as wide as the screen.
    assert teacher.evaluate(OVERFLOW) <= 1
    heights = first.locator("td").evaluate_all("(cells) => cells.map((c) => c.offsetHeight)")
    assert max(heights) < 48, heights
    shot(teacher, "fix-14-phone-all-submissions")
    report = ready_report(service, service.login(*service.admin))
    teacher.goto("/instructor/problems/numbergame/strength")
    expect(teacher.locator("#mutant-body tr")).to_have_count(report["mutant_count"])
    assert (
        teacher.locator(".table-scroll").filter(has=teacher.locator(".mutant-table")).evaluate(FITS)
    )
    shot(teacher, "fix-14-phone-mutants")

    desk = open_page(DESKTOP)
    log_in(desk, username, PASSWORD)
    desk.goto("/problems/footholds")
    signature = desk.locator(".markdown pre").filter(has_text="-> int").first
    expect(signature).to_be_visible()
    assert signature.evaluate(FITS)

"""The instructor's course view in the browser: three students created from a CSV file
(their passwords shown once and downloaded as a CSV), each logs in and submits, and the
instructor reads the progress table (filtered, sorted) and downloads it as CSV, parsed and
checked here; a new password shown beside its user."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from judge.problems import get, registry
from tests.e2e.helpers import CORPUS, GRADE_TIMEOUT_MS, axe_violations, log_in, shot, unique

pytestmark = pytest.mark.e2e

RIGHT = CORPUS / "accepted" / "numbergame_dp.py"
WRONG = CORPUS / "wrong_answer" / "numbergame_greedy.py"


def submit_as(open_page, username: str, password: str, solution, verdict: str) -> None:
    page = open_page()
    log_in(page, username, password)
    page.goto("/problems/numbergame")
    page.get_by_label("Or upload a .py file").set_input_files(str(solution))
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_url("**/submissions/*")
    expect(page.locator("#sub-verdict")).to_have_attribute(
        "data-verdict", verdict, timeout=GRADE_TIMEOUT_MS
    )


def test_course_journey_students_from_a_csv_to_the_progress_csv(service, open_page):
    prefix = unique("crs")  # other tests share the service: only this course's rows count
    names = [f"{prefix}-ann", f"{prefix}-bob", f"{prefix}-cid"]

    # --- the instructor creates three students from a CSV file -------------------------------
    teacher = open_page()
    log_in(teacher, *service.admin)
    teacher.goto("/instructor")
    teacher.get_by_role("link", name="Users").click()
    teacher.wait_for_url("**/instructor/users")
    roster = "username,full name\n" + "".join(f"{n},Student {n}\n" for n in names)
    teacher.get_by_label("or a CSV file").set_input_files(
        {"name": "class.csv", "mimeType": "text/csv", "buffer": roster.encode()}
    )
    teacher.get_by_role("button", name="Create accounts").click()
    created = teacher.locator("#created-body tr")
    expect(created).to_have_count(3)
    expect(teacher.locator("#created-note")).to_contain_text("shown only this once")
    passwords = {
        created.nth(i).locator("td").nth(0).inner_text(): created.nth(i)
        .locator("td")
        .nth(2)
        .inner_text()
        for i in range(3)
    }
    assert sorted(passwords) == names
    assert all(len(p) >= 12 for p in passwords.values())
    # The same credentials as a file to hand out (made in the page from the answer).
    with teacher.expect_download() as info:
        teacher.get_by_role("button", name="Download usernames and passwords (CSV)").click()
    assert info.value.suggested_filename == "accounts.csv"
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert rows == [{"username": n, "password": passwords[n], "role": "student"} for n in names]
    teacher.get_by_label("Search").fill(prefix)
    expect(teacher.locator("#users-body tr")).to_have_count(3)
    assert axe_violations(teacher) == []
    shot(teacher, "course-01-users-created")

    # --- each student logs in with the printed password and submits --------------------------
    ann, bob, cid = names
    submit_as(open_page, ann, passwords[ann], RIGHT, "AC")
    submit_as(open_page, bob, passwords[bob], WRONG, "WA")
    submit_as(open_page, cid, passwords[cid], RIGHT, "AC")

    # --- the progress table ------------------------------------------------------------------
    teacher.goto("/instructor")
    teacher.get_by_role("link", name="Course progress").click()
    teacher.wait_for_url("**/instructor/progress")
    teacher.get_by_label("Student", exact=True).fill(prefix)
    rows = teacher.locator("#progress-body tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_have_attribute("data-user", ann)
    column = 1 + sorted(registry()).index("numbergame")  # after the student's name
    numbergame = teacher.locator(f'#progress-body tr[data-user="{bob}"] td').nth(column)
    expect(numbergame.locator(".badge")).to_have_text("WA")
    expect(numbergame).to_contain_text("1 attempt")
    ann_cell = teacher.locator(f'#progress-body tr[data-user="{ann}"] td').nth(column)
    expect(ann_cell.locator(".badge")).to_have_text("AC")
    expect(ann_cell).to_contain_text("first AC")
    # Sorted by the numbergame column: solved first, the one who did not last.
    teacher.get_by_role("button", name="numbergame").click()
    expect(rows.nth(2)).to_have_attribute("data-user", bob)
    teacher.get_by_label("Showing").select_option("unsolved")
    expect(rows).to_have_count(1)
    expect(rows.nth(0)).to_have_attribute("data-user", bob)
    # The sort and the filters are in the address: a link or a reload keeps them, and Back
    # and Forward step through them.
    expect(teacher).to_have_url(re.compile(r"state=unsolved"))
    query = parse_qs(urlsplit(teacher.url).query)
    assert query == {"student": [prefix], "sort": ["numbergame"], "state": ["unsolved"]}
    teacher.reload()
    expect(rows).to_have_count(1)
    expect(teacher.get_by_label("Showing")).to_have_value("unsolved")
    expect(teacher.get_by_label("Student", exact=True)).to_have_value(prefix)
    sorted_head = teacher.locator("#progress-head th", has_text="numbergame")
    expect(sorted_head).to_have_attribute("aria-sort", "ascending")
    teacher.go_back()  # sorted by numbergame, every student
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_have_attribute("data-user", bob)
    expect(teacher.get_by_label("Showing")).to_have_value("")
    teacher.go_back()  # sorted by name
    expect(rows.nth(0)).to_have_attribute("data-user", ann)
    expect(sorted_head).to_have_attribute("aria-sort", "none")
    teacher.go_forward()
    teacher.go_forward()
    expect(rows).to_have_count(1)
    teacher.get_by_label("Showing").select_option("")
    assert axe_violations(teacher) == []
    shot(teacher, "course-02-progress")

    # --- the CSV download, parsed --------------------------------------------------------------
    with teacher.expect_download() as info:
        teacher.get_by_role("button", name="Download progress (CSV)").click()
    download = info.value
    assert download.suggested_filename == "progress.csv"
    text = Path(download.path()).read_text(encoding="utf-8")
    table = {row["username"]: row for row in csv.DictReader(io.StringIO(text))}
    ours = {name: table[name] for name in names}
    assert ours[ann]["numbergame verdict"] == "AC"
    assert ours[bob]["numbergame verdict"] == "WA"
    assert ours[cid]["numbergame verdict"] == "AC"
    assert all(ours[n]["numbergame attempts"] == "1" for n in names)
    assert ours[ann]["numbergame first AC"] and not ours[bob]["numbergame first AC"]
    assert all(ours[n]["footholds attempts"] == "0" for n in names)
    assert ours[ann]["solved"] == "1" and ours[bob]["solved"] == "0"

    with teacher.expect_download() as info:
        teacher.get_by_role("button", name="Download all submissions (CSV)").click()
    submissions = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text())))
    mine = sorted((r["username"], r["verdict"]) for r in submissions if r["username"] in names)
    assert mine == [(ann, "AC"), (bob, "WA"), (cid, "AC")]


def test_hidden_board_failures_notes_and_loading_a_board_into_the_editor(service, open_page):
    admin = service.instructor()
    case = {"board": [4, 7, 1, 9]}
    boards = "/api/v1/problems/numbergame/boards"
    made = service.request("POST", boards, admin, json={"input": case})
    assert made.status_code == 201, made.text
    board_id = made.json()["id"]
    try:
        student = service.register(unique("weak"))
        wrong = "def solution(board):\n    return -999999\n"
        sid = service.submit(student, "numbergame", wrong)
        service.wait_done(student, sid)

        page = open_page()
        log_in(page, *service.admin)
        page.goto("/instructor/problems/numbergame/boards")
        item = page.locator(f"#board-{board_id}")
        expect(item.locator(".board-fails")).to_contain_text(re.compile(r"Fails \d+ of"))
        # No label or note yet: nothing where they go (not "nullnull").
        expect(item.locator(".board-notes-shown")).not_to_contain_text("null")
        item.locator("summary", has_text="Label and note").click()
        item.get_by_label("Label").fill("four numbers")
        item.get_by_label("Note").fill("made by the course test")
        item.get_by_role("button", name="Save label and note").click()
        expect(item.get_by_role("status")).to_have_text("Saved.")
        page.reload()
        expect(item.locator(".board-label")).to_have_text("four numbers")
        expect(item.locator(".board-note")).to_have_text("made by the course test")

        item.get_by_role("button", name=f"Load into editor: hidden board {board_id}").click()
        expect(page.locator("#board-editor").get_by_label("Numbers")).to_have_value("4 7 1 9")
        expect(page.locator("#preview-answer")).to_have_text(str(get("numbergame").reference(case)))
        assert axe_violations(page) == []
        shot(page, "course-03-board-notes")

        # The instructor's view of the failing submission links the hidden test to its board.
        page.goto(f"/submissions/{sid}")
        expect(page.locator("#sub-verdict")).to_have_attribute("data-verdict", "WA")
        shot(page, "course-04-hidden-test")
        row = page.locator("#tests-body tr", has_text=re.compile(rf"board #{board_id}(?!\d)"))
        row.get_by_role("button").click()
        link = page.get_by_role("link", name=f"Hidden board #{board_id} in the board editor")
        link.click()
        page.wait_for_url(re.compile(rf"/boards#board-{board_id}$"))
        expect(page.locator(f"#board-{board_id}")).to_have_class(re.compile("board-item-new"))
    finally:
        service.request("DELETE", f"{boards}/{board_id}", admin)


def test_a_new_password_appears_beside_its_user(service, open_page):
    username, old_password = unique("forgot"), "forgotten password 1"
    service.register(username, old_password)
    teacher = open_page()
    log_in(teacher, *service.admin)
    teacher.goto("/instructor/users")
    teacher.get_by_label("Search").fill(username)
    # The search's answer replaces the whole list's rows: act on the row it draws.
    expect(teacher.locator("#users-body tr")).to_have_count(1)
    row = teacher.locator(f'#users-body tr[data-user="{username}"]')
    row.get_by_role("button", name="New password").click()
    row.get_by_role("button", name=f"Confirm new password for {username}").click()
    shown = row.locator(".new-password")
    expect(shown).to_contain_text(f"New password for {username}")
    new_password = shown.locator("code").inner_text()
    assert len(new_password) >= 12
    # Not under "Create accounts", where it read as the account's initial password.
    expect(teacher.locator("#created")).to_be_hidden()
    assert service.request(
        "POST", "/api/v1/token", data={"username": username, "password": new_password}
    ).is_success
    assert axe_violations(teacher) == []
    shot(teacher, "course-05-new-password")


def test_a_search_is_not_undone_by_the_first_listing_answering_late(service, open_page):
    username = unique("late")
    service.register(username, "late listing password")
    teacher = open_page()
    log_in(teacher, *service.admin)
    held = []

    def hold_the_first_listing(route):
        if "search=" in route.request.url or held:
            route.continue_()
        else:
            held.append(route)  # answered only once the search has been drawn

    teacher.route("**/api/v1/users*", hold_the_first_listing)
    teacher.goto("/instructor/users")
    teacher.get_by_label("Search").fill(username)
    rows = teacher.locator("#users-body tr")
    expect(rows).to_have_count(1)
    assert len(held) == 1
    # The page gave up on the listing the search replaced, so no late answer can draw it.
    assert held[0].request.failure is not None
    expect(rows.first).to_have_attribute("data-user", username)

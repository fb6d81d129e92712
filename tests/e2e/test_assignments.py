"""Assignments in the browser, with the real API and workers: an instructor creates one
with two problems and a late rule, moves its due time to now and grants one student an
extension; three students' submissions (before the due time, after it, inside the
extension) are scored in the gradebook, a score is set by hand, a student reads their own
deadline and scores, and both CSV layouts (Canvas, Moodle) carry the totals. Times are
made controllable by setting the due time between submissions (to the next whole second,
the form's precision, and waiting out at most the rest of that second), never by sleeping
until a deadline; once the late window closes, a submission is practice and its page says
so."""

from __future__ import annotations

import csv
import io
import math
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import CORPUS, axe_violations, log_in, shot, unique

pytestmark = pytest.mark.e2e

RIGHT = (CORPUS / "accepted" / "numbergame_dp.py").read_text()

# A moment (seconds since the epoch, this machine's clock: the browser's too) as a
# datetime-local value in the browser's own zone.
LOCAL = """(ms) => {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, "0");
  const day = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
  return `${day}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}"""
DAY_S = 86_400


def local(page, days: float = 0) -> str:
    """Now plus `days`, as the browser's form takes it: whole seconds, rounded up."""
    return page.evaluate(LOCAL, math.ceil(time.time() + days * DAY_S) * 1000)


def next_second() -> datetime:
    """The whole second `local(page)` names when called now."""
    return datetime.fromtimestamp(math.ceil(time.time()), UTC)


def wait_past(moment: datetime) -> None:
    """Until the clock is past `moment`: at most the rest of one second, usually none."""
    while datetime.now(UTC) <= moment:
        time.sleep(0.05)


def downloaded(page, button: str) -> list[list[str]]:
    with page.expect_download() as info:
        page.get_by_role("button", name=button).click()
    return list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))


def test_assignment_journey_late_rule_extension_gradebook_and_csv(service, open_page):
    prefix = unique("asg")  # the service is shared: only this course's rows count
    ann, bob, cid = (f"{prefix}-{n}" for n in ("ann", "bob", "cid"))
    tokens = {n: service.register(n, "student password 1") for n in (ann, bob, cid)}
    title = f"Week {prefix}"

    # --- the instructor creates it: due tomorrow, 25% off per day late for 3 days -----------
    teacher = open_page()
    log_in(teacher, *service.admin)
    teacher.goto("/assignments")
    teacher.get_by_role("link", name="New assignment").click()
    teacher.wait_for_url("**/instructor/assignments/new")
    teacher.get_by_label("Title").fill(title)
    teacher.get_by_label("Released").fill(local(teacher, -1))
    teacher.get_by_label("Due", exact=True).fill(local(teacher, 1))
    teacher.get_by_label("Rule").select_option("per_day")
    teacher.get_by_label("Accepted until").fill(local(teacher, 4))
    teacher.get_by_label("% off per day").fill("25")
    teacher.get_by_label("Problem 1", exact=True).select_option("numbergame")
    teacher.get_by_label("Points of problem 1").fill("10")
    teacher.get_by_role("button", name="Add a problem").click()
    teacher.get_by_label("Problem 2", exact=True).select_option("footholds")
    teacher.get_by_label("Points of problem 2").fill("5")
    teacher.get_by_role("button", name="Save").click()
    teacher.wait_for_url(re.compile(r".*/instructor/assignments/\d+$"))
    assignment_id = int(teacher.url.rsplit("/", 1)[1])
    expect(teacher.locator("#edit-title")).to_have_text(title)

    # --- ann submits before the due time ------------------------------------------------------
    first = service.submit(tokens[ann], "numbergame", RIGHT)
    assert service.wait_done(tokens[ann], first)["verdict"] == "AC"

    # --- the due time moves to now (the next whole second); cid gets a day more ----------
    due = next_second()
    teacher.get_by_label("Due", exact=True).fill(teacher.evaluate(LOCAL, due.timestamp() * 1000))
    teacher.get_by_role("button", name="Save").click()
    expect(teacher.locator("#saved-note")).to_contain_text("Saved")
    teacher.get_by_label("Extension for").fill(cid)
    teacher.get_by_label("Their due time", exact=True).fill(local(teacher, 1))
    teacher.get_by_label("Why").fill("was ill")
    teacher.get_by_role("button", name="Grant").click()
    expect(teacher.locator(f'#ext-rows tr[data-user="{cid}"]')).to_contain_text("was ill")
    assert axe_violations(teacher) == []
    shot(teacher, "assignment-01-form")

    # --- bob submits late, cid inside his extension --------------------------------------------
    wait_past(due)
    late = service.submit(tokens[bob], "numbergame", RIGHT)
    extended = service.submit(tokens[cid], "numbergame", RIGHT)
    for name, sid in ((bob, late), (cid, extended)):
        assert service.wait_done(tokens[name], sid)["verdict"] == "AC"

    # --- the gradebook: 10, 7.5 (1 day late), 10; a score set by hand ---------------------
    teacher.get_by_role("link", name="Gradebook").click()
    teacher.wait_for_url("**/gradebook")
    teacher.get_by_label("Student", exact=True).first.fill(prefix)
    rows = teacher.locator("#gb-body tr")
    expect(rows).to_have_count(3)
    totals = {ann: "10", bob: "7.5", cid: "10"}
    for name, total in totals.items():
        expect(teacher.locator(f'tr[data-user="{name}"] [data-total]')).to_have_text(total)
    bob_cell = teacher.locator(f'tr[data-user="{bob}"] td[data-problem="numbergame"]')
    expect(bob_cell).to_contain_text("1 day late: 75%")
    expect(teacher.locator(f'tr[data-user="{cid}"]')).to_contain_text("extension")
    expect(teacher.locator(f'tr[data-user="{ann}"] td[data-problem="footholds"]')).to_contain_text(
        "no submission that counts"
    )
    teacher.locator("#ov-user").select_option(bob)
    teacher.locator("#ov-problem").select_option("footholds")
    teacher.get_by_label("Score (empty: the computed one)").fill("2")
    teacher.get_by_label("Comment (kept with your name)").fill("a proof on paper")
    teacher.get_by_role("button", name="Set the score").click()
    totals[bob] = "9.5"
    expect(teacher.locator(f'tr[data-user="{bob}"] [data-total]')).to_have_text("9.5")
    expect(teacher.locator(f'tr[data-user="{bob}"] td[data-problem="footholds"]')).to_contain_text(
        f"set to 2 by {service.admin[0]}: a proof on paper"
    )
    # Sorted by total, highest first (two clicks), as the address keeps.
    teacher.get_by_role("button", name="Total (15)").click()
    teacher.get_by_role("button", name="Total (15)").click()
    expect(rows.first).to_have_attribute("data-user", ann)
    assert "dir=desc" in teacher.url
    assert axe_violations(teacher) == []
    shot(teacher, "assignment-02-gradebook")

    # --- both CSV layouts carry the totals -----------------------------------------------
    column = f"{title} ({assignment_id})"
    canvas = downloaded(teacher, "Gradebook for Canvas (CSV)")
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    at = canvas[0].index(column)
    assert canvas[1][0] == "Points Possible" and canvas[1][at] == "15"
    mine = {row[3]: row[at] for row in canvas[2:] if row[0].startswith(prefix)}
    assert mine == totals
    moodle = downloaded(teacher, "Gradebook for Moodle (CSV)")
    at = moodle[0].index(column)
    assert moodle[0][0] == "Username"
    assert {row[0]: row[at] for row in moodle[1:] if row[0].startswith(prefix)} == totals

    # --- cid reads his own deadline and scores ----------------------------------------------
    student = open_page()
    log_in(student, cid, "student password 1")
    student.goto("/assignments")
    card = student.locator(f'section[data-assignment="{assignment_id}"]')
    expect(card).to_contain_text("(your extension)")
    expect(card.locator("[data-total]")).to_have_text("10 / 15")
    expect(card.locator('tr[data-problem="numbergame"]')).to_contain_text("on time: 100%")
    assert axe_violations(student) == []
    shot(student, "assignment-03-student")

    # --- the late window closes now: ann's next submission is practice, and says so ------
    teacher.goto(f"/instructor/assignments/{assignment_id}")
    expect(teacher.get_by_label("Title")).to_have_value(title)
    closed = next_second()
    teacher.get_by_label("Accepted until").fill(teacher.evaluate(LOCAL, closed.timestamp() * 1000))
    teacher.get_by_role("button", name="Save").click()
    expect(teacher.locator("#saved-note")).to_contain_text("Saved")
    wait_past(closed)
    answer = service.request(
        "POST", "/api/v1/submissions", tokens[ann], json={"problem": "numbergame", "source": RIGHT}
    )
    assert answer.status_code == 202 and answer.json()["practice"], answer.text
    practice = open_page()
    log_in(practice, ann, "student password 1")
    practice.goto(f"/submissions/{answer.json()['id']}")
    expect(practice.locator("#practice-note")).to_contain_text("counts for nothing")

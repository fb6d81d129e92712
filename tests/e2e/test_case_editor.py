"""The case editor of view kind "json" (api/web/static/js/case-editor.js), made from a
problem's signature, in the real browser: on a page this test serves itself (the site's own
modules and stylesheet, no service started) for a signature with every kind of field (a grid,
lists, long, bool, str), then plugged into the problem page of a built-in "json" problem.
"""

from __future__ import annotations

import json
import mimetypes

import pytest
from playwright.sync_api import expect

from api.web import STATIC_DIR
from tests.e2e.helpers import OVERFLOW, PHONE, UNLABELLED, axe_violations, log_in, shot, unique

pytestmark = pytest.mark.e2e

ORIGIN = "http://editor.test"
KIT = {
    "slug": "kit",
    "title": "Every field",
    "view": {"kind": "json", "bounds": {}},
    "params": ["board", "big", "flag", "name", "tags", "counts"],
    "param_types": {
        "board": "int[][]",
        "big": "long",
        "flag": "bool",
        "name": "str",
        "tags": "str[]",
        "counts": "int[]",
    },
}
SAMPLE = {
    "board": [[1, 2, 3], [4, 5, 6]],
    "big": 9007199254740993,  # 2^53 + 1: read exactly from the page data
    "flag": False,
    "name": "first",
    "tags": ["a"],
    "counts": [1, 2],
}
# The page of the hidden-boards page's shape: the samples' inputs in its data.
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Case editor</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/css/app.css"></head>
<body><main class="container"><h1>Case editor</h1>
<section class="card"><h2 id="editor-title">A case</h2><div id="editor"></div></section>
<section class="card"><h2>As drawn</h2><div id="drawn"></div></section></main>
<script type="application/json" id="page-data">%s</script>
<script type="module">
import { makeEditor } from "/static/js/board-editor.js";
import { drawCase } from "/static/js/boards.js";
window.changes = [];
const seen = (value, error) => {
  // JSON text: what the page would send (a long beyond 2^53 keeps its digits).
  const json = value === null ? null : JSON.stringify(value);
  window.changes.push({ json, error: error || null });
  if (value) document.getElementById("drawn").replaceChildren(drawCase("kit", value));
};
window.editor = makeEditor("kit", document.getElementById("editor"), seen);
seen(window.editor.value());
</script></body></html>"""


def serve(route) -> None:
    path = route.request.url.removeprefix(ORIGIN).split("?")[0]
    if path == "/editor":
        data = json.dumps({"problems": [KIT], "samples": [SAMPLE]})
        route.fulfill(body=PAGE % data, content_type="text/html")
        return
    file = (STATIC_DIR / path.removeprefix("/static/")).resolve()
    inside = file.is_relative_to(STATIC_DIR.resolve())
    if not path.startswith("/static/") or not inside or not file.is_file():
        route.fulfill(status=404, body="not found")
        return
    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    if file.suffix == ".js":
        kind = "text/javascript"
    route.fulfill(body=file.read_bytes(), content_type=kind)


def last(page) -> dict:
    return page.evaluate("() => window.changes[window.changes.length - 1]")


def last_case(page) -> dict | None:
    text = last(page)["json"]
    return None if text is None else json.loads(text)


def paste(page, label: str, text: str) -> None:
    """A paste into the grid's cell `label`, as the clipboard would deliver it."""
    page.get_by_label(label, exact=True).evaluate(
        """(cell, text) => {
          const data = new DataTransfer();
          data.setData("text/plain", text);
          cell.focus();
          const init = {clipboardData: data, bubbles: true, cancelable: true};
          cell.dispatchEvent(new ClipboardEvent("paste", init));
        }""",
        text,
    )


def test_the_signature_editor_makes_the_case_field_by_field(browser) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route(f"{ORIGIN}/**", serve)
        page.goto(f"{ORIGIN}/editor")
        editor = page.locator("#editor")
        expect(editor.get_by_label("row 1, column 2", exact=True)).to_have_value("6")
        # It starts from the first sample, every field labelled with its name and type.
        assert last_case(page) == SAMPLE
        expect(editor.get_by_label("big long")).to_have_value("9007199254740993")
        for name, kind in KIT["param_types"].items():
            expect(editor.get_by_text(kind, exact=True).locator("visible=true")).to_be_visible()
            assert editor.locator(".case-name:visible", has_text=name).count() == 1
        assert page.evaluate(UNLABELLED) == []

        # The grid: one more row, a cell typed, the arrow keys between cells.
        rows = editor.get_by_label("Rows")
        rows.fill("3")
        rows.press("Tab")
        expect(editor.get_by_label("row 2, column 1", exact=True)).to_have_value("0")
        editor.get_by_label("row 2, column 1", exact=True).fill("9")
        assert last_case(page)["board"] == [[1, 2, 3], [4, 5, 6], [0, 9, 0]]
        editor.get_by_label("row 0, column 1", exact=True).focus()
        page.keyboard.press("ArrowDown")
        expect(editor.get_by_label("row 1, column 1", exact=True)).to_be_focused()
        # A cell that is not an integer: said beside the grid, and no case.
        editor.get_by_label("row 1, column 1", exact=True).fill("5x")
        expect(editor.get_by_text("Row 1, column 1: not an integer.")).to_be_visible()
        assert last(page) == {"json": None, "error": "board: row 1, column 1: not an integer."}
        editor.get_by_label("row 1, column 1", exact=True).fill("5")
        assert last_case(page)["board"] == [[1, 2, 3], [4, 5, 6], [0, 9, 0]]

        # Pasting rows fills the grid; ragged rows are refused, with what is wrong.
        paste(page, "row 0, column 0", "[[1, 2, 3], [4, 5]]")
        expect(
            editor.get_by_text(
                "The pasted rows are not a grid: row 1 has 2 cells, the others 3;"
                " the grid is unchanged."
            )
        ).to_be_visible()
        assert last(page)["json"] is None
        expect(editor.get_by_label("row 2, column 1", exact=True)).to_have_value("9")
        paste(page, "row 0, column 0", "1 0\n0 1")
        expect(editor.get_by_label("row 2, column 1", exact=True)).to_have_count(0)
        assert last_case(page)["board"] == [[1, 0], [0, 1]]
        expect(editor.locator(".field-error:visible")).to_have_count(0)

        # long: digits beyond 2^53 go into the JSON as written; out of range is refused.
        big = editor.get_by_label("big long")
        big.fill("9007199254740993")
        assert '"big":9007199254740993' in last(page)["json"]
        big.fill("-9223372036854775808")
        assert '"big":-9223372036854775808' in last(page)["json"]
        big.fill("9223372036854775808")
        expect(
            editor.get_by_text(
                "Out of the long range (-9223372036854775808 to 9223372036854775807)."
            )
        ).to_be_visible()
        assert last(page)["json"] is None
        big.fill("12345678901234567890"[:19])
        assert '"big":1234567890123456789' in last(page)["json"]

        # bool and str.
        editor.get_by_label("flag bool").check()
        assert last_case(page)["flag"] is True
        editor.get_by_label("name str").fill("two words")
        assert last_case(page)["name"] == "two words"

        # A list: add a cell, type in it, remove the last one.
        editor.get_by_role("button", name="Add an item to tags").click()
        expect(editor.get_by_label("tags, item 1")).to_be_focused()
        editor.get_by_label("tags, item 1").fill("b c")
        assert last_case(page)["tags"] == ["a", "b c"]
        editor.get_by_role("button", name="Remove the last item of counts").click()
        assert last_case(page)["counts"] == [1]

        # The JSON toggle: the whole case as text, exact, and back unchanged.
        made = last(page)["json"]
        toggle = editor.get_by_role("button", name="JSON", exact=True)
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        text = editor.get_by_label("The whole case as JSON")
        expect(toggle).to_be_focused()
        page.keyboard.press("Tab")
        expect(text).to_be_focused()
        assert "1234567890123456789" in text.input_value()
        assert json.loads(text.input_value()) == json.loads(made)
        toggle.click()
        expect(editor.get_by_label("big long")).to_have_value("1234567890123456789")
        toggle.click()
        # A pasted case: the fields follow it, a long beyond 2^53 kept to the digit.
        pasted = (
            '{"board": [[7, 8], [9, 10], [11, 12]], "big": -9007199254740993, "flag": false,'
            ' "name": "pasted", "tags": [], "counts": [3, 4, 5]}'
        )
        text.fill(pasted)
        compact = json.dumps(json.loads(pasted), separators=(",", ":"))
        assert last(page) == {"json": compact, "error": None}
        assert '"big":-9007199254740993' in last(page)["json"]
        # A case that does not fit: what is wrong, no case, and the fields wait for a fix.
        text.fill(pasted.replace('"name": "pasted"', '"name": 5'))
        expect(editor.get_by_text("name: not a string.")).to_be_visible()
        assert last(page)["json"] is None
        toggle.click()
        expect(editor.get_by_text("Fix the JSON first")).to_be_visible()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        text.fill(pasted)
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "false")
        expect(editor.get_by_label("row 2, column 1", exact=True)).to_have_value("12")
        expect(editor.get_by_label("big long")).to_have_value("-9007199254740993")
        expect(editor.get_by_label("counts, item 2")).to_have_value("5")
        assert last(page)["json"] == compact
        # The drawn case: scalars inline, the grid as a small table.
        drawn = page.locator("#drawn")
        expect(drawn.get_by_role("img", name="board: 3 by 2: 7 8; 9 10; 11 12")).to_be_visible()
        expect(drawn).to_contain_text("-9007199254740993")

        # A ragged board, pasted as JSON, is edited as JSON text (a grid cannot show it).
        toggle.click()
        text.fill(pasted.replace("[[7, 8], [9, 10], [11, 12]]", "[[1], [2, 3], [4, 5]]"))
        assert last_case(page)["board"] == [[1], [2, 3], [4, 5]]
        toggle.click()
        board = editor.get_by_label("board int[][] as JSON")
        expect(board).to_have_value("[[1],[2,3],[4,5]]")
        expect(
            editor.get_by_text("Not a grid (row 0 has 1 cell, the others 2): edited as JSON text.")
        ).to_be_visible()
        board.fill("[[1, 2], [3]]")
        assert last_case(page)["board"] == [[1, 2], [3]]
        board.fill("[[1, 2], [3, true]]")
        expect(editor.get_by_text("Row 1, column 1: not an integer.")).to_be_visible()
        assert last(page)["json"] is None
        board.fill("[[1, 2], [3, 4]]")
        assert last_case(page)["board"] == [[1, 2], [3, 4]]
        # Rectangular again: offered back as a grid.
        editor.get_by_role("button", name="Edit board as a grid").click()
        expect(editor.get_by_label("row 0, column 0", exact=True)).to_be_focused()
        expect(editor.get_by_label("row 1, column 1", exact=True)).to_have_value("4")
        assert last_case(page)["board"] == [[1, 2], [3, 4]]
        expect(page.locator("#drawn")).to_contain_text("counts [3, 4, 5]")

        violations = axe_violations(page)
        assert not violations, "axe-core finds\n" + "\n".join(violations)
        shot(page, "case-editor-desktop")

        # A phone: a wide grid scrolls inside its box, the page does not.
        toggle.click()
        text.fill(pasted.replace("[[7, 8], [9, 10], [11, 12]]", json.dumps([list(range(14))] * 5)))
        toggle.click()
        page.set_viewport_size(PHONE)
        expect(editor.get_by_label("row 4, column 13", exact=True)).to_have_value("13")
        assert page.evaluate(OVERFLOW) <= 0
        violations = axe_violations(page)
        assert not violations, "axe-core finds on a phone\n" + "\n".join(violations)
        shot(page, "case-editor-phone")
        assert not errors, errors
    finally:
        context.close()


def test_a_json_problem_gets_the_signature_editor_on_both_pages(service, open_page) -> None:
    """subtraction (view kind "json", piles and moves int[]): the instructor's hidden-boards
    page and the student's own boards both edit a case field by field, with the judge's
    preview of what the editor made."""
    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor/problems/subtraction/boards")
    editor = page.locator("#board-editor")
    # The first sample, one field per parameter.
    expect(editor.get_by_label("piles, item 0")).to_have_value("7")
    expect(editor.get_by_label("moves, item 2")).to_have_value("4")
    expect(page.locator("#preview-answer")).to_have_text("false")
    editor.get_by_role("button", name="Add an item to piles").click()
    editor.get_by_label("piles, item 1").fill("3")
    expect(page.locator("#preview-answer")).to_have_text("true")  # 7 and 3 with moves 1, 3, 4
    editor.get_by_label("piles, item 1").fill("x")
    expect(editor.get_by_text("Item 1: not an integer.")).to_be_visible()
    expect(page.locator("#preview")).to_contain_text("piles: item 1: not an integer.")
    expect(page.get_by_role("button", name="Save as hidden board")).to_be_disabled()
    editor.get_by_role("button", name="JSON", exact=True).click()
    expect(editor.get_by_text("Fix piles first.")).to_be_visible()
    editor.get_by_label("piles, item 1").fill("3")
    editor.get_by_role("button", name="JSON", exact=True).click()
    text = editor.get_by_label("The whole case as JSON")
    assert json.loads(text.input_value()) == {"piles": [7, 3], "moves": [1, 3, 4]}
    text.fill('{"piles": [7], "moves": [1, 3, 4]}')
    expect(page.locator("#preview-answer")).to_have_text("false")
    violations = axe_violations(page)
    assert not violations, "axe-core finds\n" + "\n".join(violations)

    # A student's own boards on the problem page: the same editor, its case added to the list.
    username, password = unique("cases"), "cases password 1"
    service.register(username, password)
    student = open_page(PHONE)
    log_in(student, username, password)
    student.goto("/problems/subtraction")
    student.get_by_role("button", name="My own boards").click()
    cases = student.locator("#case-editor")
    expect(cases.get_by_label("piles, item 0")).to_have_value("7")
    cases.get_by_label("piles, item 0").fill("1")
    expect(student.locator("#case-preview #preview-answer")).to_have_text("true")
    student.get_by_role("button", name="Add this board").click()
    expect(student.locator("#case-list .case-item")).to_have_count(1)
    expect(student.locator("#case-list")).to_contain_text("piles [1]")
    assert student.evaluate(OVERFLOW) <= 0
    violations = axe_violations(student)
    assert not violations, "axe-core finds on the problem page\n" + "\n".join(violations)
    shot(student, "case-editor-own-boards-phone")

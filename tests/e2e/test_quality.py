"""Every page at phone and desktop widths (no sideways scrolling, every control labelled, no
serious or critical axe-core finding, no request leaves the judge), errors in plain words, the
keyboard and its focus rings."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    CORPUS,
    DESKTOP,
    GRADE_TIMEOUT_MS,
    OVERFLOW,
    PACKAGED,
    PHONE,
    UNLABELLED,
    axe_violations,
    log_in,
    shot,
    unique,
)
from tests.service.packages import package_zip, unique_slug

pytestmark = pytest.mark.e2e

WRONG_ON_SAMPLE = CORPUS / "wrong_answer" / "footholds_no_win_flag.py"


WIDTHS = {"phone": PHONE, "desktop": DESKTOP}


def check_page(page, name: str) -> None:
    """The page loaded at the phone's width, checked there and then widened to the desktop's
    (as a window is): one load and one wait for it to settle serve both widths."""
    # The boards pages ask for a strength preview (again each second while the judge computes
    # it): the page is checked once its requests settle.
    page.wait_for_load_state("networkidle", timeout=GRADE_TIMEOUT_MS)
    assert '{"detail"' not in page.locator("body").inner_text(), f"{name}: raw JSON shown"
    for width, viewport in WIDTHS.items():
        page.set_viewport_size(viewport)
        assert page.evaluate(UNLABELLED) == [], f"{width} {name}: unlabelled controls"
        assert page.evaluate(OVERFLOW) <= 1, f"{name}: wider than the {width} screen"
        assert_accessible(page, f"{width} {name}")
        shot(page, f"{width}-{name}")
    page.set_viewport_size(PHONE)  # the next page loads at the narrow width again


def assert_accessible(page, name: str) -> None:
    violations = axe_violations(page)
    assert not violations, f"{name}: axe-core finds\n" + "\n".join(violations)


def accessible_at_both_widths(page, name: str) -> None:
    """axe-core at the phone's width and the desktop's, back at the phone's after."""
    for width, viewport in WIDTHS.items():
        page.set_viewport_size(viewport)
        assert_accessible(page, f"{width} {name}")
    page.set_viewport_size(PHONE)


@pytest.fixture(scope="module")
def graded(service):
    """A student with one wrong submission (failing on a sample), graded."""
    username, password = unique("viewer"), "viewer password 1"
    token = service.register(username, password)
    response = service.request(
        "POST",
        "/api/v1/submissions",
        token,
        json={"problem": "footholds", "source": WRONG_ON_SAMPLE.read_text()},
    )
    assert response.status_code == 202, response.text
    return {"username": username, "password": password, "id": response.json()["id"]}


@pytest.fixture(scope="module")
def uploaded(service):
    """An uploaded problem (tic-tac-toe under a slug of its own): its versions page has a
    version with its check's report. Its check runs while the other pages are walked."""
    slug = unique_slug("quality")
    archive = package_zip(slug)
    response = service.request(
        "POST",
        "/api/v1/problems",
        service.instructor(),
        files={"file": (f"{slug}.zip", archive, "application/zip")},
    )
    assert response.status_code == 202, response.text
    return slug


@pytest.fixture(scope="module")
def assignment(service, graded):
    """An assignment of two problems, open for a day, with an extension. Feedback "all" and
    a high attempt limit: nothing changes for the other tests on the shared service; not
    numbergame, whose submissions test_assignments.py expects to be practice at its end."""
    token = service.instructor()
    now = datetime.now(UTC)
    made = service.request(
        "POST",
        "/api/v1/assignments",
        token,
        json={
            "title": "Quality walk",
            "release_at": (now - timedelta(days=1)).isoformat(),
            "due_at": (now + timedelta(days=1)).isoformat(),
            "late_rule": "fixed",
            "late_until": (now + timedelta(days=2)).isoformat(),
            "late_factor": 0.5,
            "problems": [
                {"problem": "footholds", "points": 10, "max_attempts": 50},
                {"problem": "stonegame", "points": 5, "scoring": "tests"},
            ],
        },
    )
    assert made.status_code == 201, made.text
    assignment_id = made.json()["id"]
    granted = service.request(
        "PUT",
        f"/api/v1/assignments/{assignment_id}/extensions/{graded['username']}",
        token,
        json={"due_at": (now + timedelta(days=3)).isoformat(), "reason": "a long reason " * 8},
    )
    assert granted.status_code == 200, granted.text
    return assignment_id


def test_pages_fit_and_are_labelled(service, open_page, graded, uploaded, assignment):
    page = open_page(PHONE)
    for path, name in [("/login", "login"), ("/register", "register")]:
        page.goto(path)
        check_page(page, name)

    log_in(page, graded["username"], graded["password"])
    page.goto(f"/submissions/{graded['id']}")
    expect(page.locator("#sub-verdict")).to_have_attribute(
        "data-verdict", "WA", timeout=GRADE_TIMEOUT_MS
    )
    # A failing sample: drawn with expected vs returned and its optimal line (no shrinking).
    expect(page.locator("#detail .fh-board").first).to_be_visible()
    expect(page.locator("#detail .replay")).to_be_visible()
    check_page(page, "submission")
    # The failing test's parts (its line of play, what the code printed) are headed under it.
    assert axe_violations(page, rules=["heading-order"]) == []
    for path, name in [
        ("/problems", "problems"),
        ("/problems/footholds", "problem-footholds"),
        ("/problems/numbergame", "problem-numbergame"),
        ("/submissions", "history"),
        ("/assignments", "assignments"),
    ]:
        page.goto(path)
        check_page(page, name)

    teacher = open_page(PHONE)
    log_in(teacher, *service.admin)
    for path, name in [
        ("/instructor", "instructor"),
        ("/instructor/problems/footholds/boards", "boards-footholds"),
        ("/instructor/problems/numbergame/boards", "boards-numbergame"),
        ("/instructor/problems/footholds/stats", "stats"),
        # numbergame's report: a worker computes it in under a second (footholds' takes ~10 s,
        # and its page would be checked while it says "computing").
        ("/instructor/problems/numbergame/strength", "strength"),
        ("/instructor/progress", "progress"),
        ("/instructor/users", "users"),
        ("/instructor/problems", "packages"),
        ("/instructor/lti", "lti"),
        (f"/instructor/problems/{uploaded}/versions", "versions"),
        ("/assignments", "all-assignments"),
        ("/instructor/assignments/new", "assignment-new"),
        (f"/instructor/assignments/{assignment}", "assignment-edit"),
        (f"/instructor/assignments/{assignment}/gradebook", "gradebook"),
        ("/submissions", "all-submissions"),
        ("/no/such/page", "not-found"),
    ]:
        teacher.goto(path)
        if "boards" in path:
            expect(teacher.locator("#preview-answer")).to_be_visible()
        if path.endswith("/strength"):  # checked: the report drawn
            expect(teacher.locator("#mutant-body tr").first).to_be_visible(timeout=GRADE_TIMEOUT_MS)
        if path.endswith("/versions"):  # checked: the report drawn, the polling over
            expect(teacher.locator("#versions-body tr[data-status]")).to_have_count(1)
            expect(teacher.locator("#versions-body tr[data-status=checking]")).to_have_count(
                0, timeout=GRADE_TIMEOUT_MS
            )
            expect(teacher.locator(".report .check-list")).to_be_visible()
        check_page(teacher, name)


def test_errors_are_shown_in_plain_words(service, open_page):
    page = open_page()
    page.goto("/login")
    page.get_by_label("Username").fill("nobody-here")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".form-error")).to_have_text("Wrong username or password.")

    taken = unique("taken")
    service.register(taken, "some password 1")
    page.goto("/register")
    page.get_by_label("Username").fill(taken)
    page.get_by_label("Password", exact=True).fill("another password")
    page.get_by_label("Repeat the password").fill("another password")
    page.get_by_role("button", name="Create account").click()
    expect(page.locator(".form-error")).to_have_text(
        f"The username “{taken}” is taken. Choose another one."
    )
    page.get_by_label("Username").fill("x")
    page.get_by_role("button", name="Create account").click()
    expect(page.locator(".form-error")).to_contain_text("3 to 32 letters")

    username, password = unique("errors"), "errors password 1"
    service.register(username, password)
    log_in(page, username, password)

    # Too large a source: the judge's 413, said plainly.
    page.goto("/problems/footholds")
    big = "def solution(board, aloc, bloc):\n    return 0\n" + "# padding\n" * 8000
    # Pasted in one go (typing 8000 lines through the browser's input events takes minutes).
    page.get_by_label("Your code").evaluate(
        """(area, text) => {
            area.value = text;
            area.dispatchEvent(new InputEvent("input", {inputType: "insertFromPaste"}));
        }""",
        big,
    )
    expect(page.locator(".ce-gutter")).to_contain_text("8002")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.locator(".form-error")).to_contain_text("too large")
    expect(page.locator(".form-error")).not_to_contain_text("{")

    # Somebody else's (or no) submission.
    page.goto("/submissions/999999")
    expect(page.locator("#page-alert")).to_have_text(
        "There is no submission with this number, or it is not yours."
    )

    # An instructor page, as a student.
    page.goto("/instructor/problems/footholds/stats")
    expect(page.locator("#not-allowed")).to_contain_text("This page is for instructors")
    expect(page.locator("svg.chart")).to_have_count(0)

    # An address that is no page at all: a page, not JSON.
    page.goto("/no/such/page")
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()

    # An expired or forged token: back to the login page, which says why.
    page.evaluate("localStorage.setItem('judge.token', 'not.a.token')")
    page.goto("/submissions")
    page.wait_for_url(re.compile(r"/login\?next="))
    shot(page, "desktop-error-messages")


def test_registration_shows_every_error_at_once(service, open_page):
    page = open_page()
    page.goto("/register")
    page.get_by_label("Username").fill("x")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("Repeat the password").fill("other")
    page.get_by_role("button", name="Create account").click()
    errors = page.locator(".form-error")
    expect(errors).to_contain_text("Fix these 3 things")
    expect(errors.locator("li")).to_have_text(
        [
            "Username must be 3 to 32 letters, digits, dots, dashes or underscores.",
            "Password must have at least 8 characters.",
            "The two passwords are not the same.",
        ]
    )
    for label in ("Username", "Password", "Repeat the password"):
        expect(page.get_by_label(label, exact=True)).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Username")).to_be_focused()  # the first to fix

    # One left: said alone, the fixed fields no longer marked.
    page.get_by_label("Username").fill(unique("allatonce"))
    page.get_by_label("Password", exact=True).fill("long enough 1")
    page.get_by_role("button", name="Create account").click()
    expect(errors).to_have_text("The two passwords are not the same.")
    expect(page.get_by_label("Username")).not_to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Repeat the password")).to_have_attribute("aria-invalid", "true")


def test_problem_list_names_every_language(service, open_page):
    page = open_page()
    page.goto("/problems")
    intro = page.locator("#main")
    expect(intro).to_contain_text("in Python, C++, Java or Kotlin")
    expect(intro).not_to_contain_text("Write a Python function")


def test_keyboard(service, open_page):
    username, password = unique("keys"), "keyboard password 1"
    service.register(username, password)
    page = open_page()
    log_in(page, username, password)
    page.goto("/problems/footholds")

    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()

    editor = page.get_by_label("Your code")
    editor.fill("def solution(board, aloc, bloc):")
    editor.press("End")
    editor.press("Control+End")
    editor.press("Enter")  # keeps the indentation, one level deeper after a colon
    page.keyboard.type("return 1")
    editor.press("Enter")
    editor.press("Tab")  # indents instead of leaving the editor
    expect(editor).to_have_value("def solution(board, aloc, bloc):\n    return 1\n    ")
    expect(editor).to_be_focused()
    editor.press("Shift+Tab")
    expect(editor).to_have_value("def solution(board, aloc, bloc):\n    return 1\n")
    editor.press("Escape")
    page.keyboard.press("Tab")  # after Escape, Tab moves on
    expect(page.get_by_label("Or upload a .py file")).to_be_focused()

    # The samples' lines of play open and step from the keyboard.
    summary = page.locator(".sample-card").first.locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    replay = page.locator(".sample-card").first.locator(".replay")
    replay.focus()
    page.keyboard.press("ArrowRight")
    expect(replay).to_have_attribute("data-step", "1")


TRICKY = [
    "x = f'a{b}' + r'''q\n''' + 0x1F + 1.5e3j\n",
    "'unterminated\ny = 2\n",
    '"""never closed\n\n',
    "match = 3\nmatch x:\n    case 1: pass\n",
    "@lru_cache(maxsize=None)\ndef f(a, *, b=None) -> int: ...\n",
    "s = '<script>alert(1)</script>' # </pre>\n",
    "x\t=\t1\r\n\u00e9t\u00e9 = 'caf\u00e9'\n",
]


def test_python_highlighting_keeps_every_character(service, open_page):
    corpus = [*CORPUS.glob("*/*.py"), *PACKAGED.glob("*/submissions/*/*.py")]
    sources = [p.read_text() for p in sorted(corpus)] + TRICKY
    page = open_page()
    page.goto("/login")
    result = page.evaluate(
        """async (sources) => {
            const m = await import("/static/js/highlight.js");
            const lost = sources.filter((s) => m.tokenize(s).map((t) => t.text).join("") !== s);
            const box = document.createElement("pre");
            const unescaped = sources.filter((s) => {
                box.innerHTML = m.highlightPython(s);
                return box.textContent !== s.replace(/\\r\\n?/g, "\\n"); // HTML reads CRLF as LF
            });
            const kinds = m.tokenize("def f(self):\\n    return None  # done\\n")
                .filter((t) => t.type !== "space").map((t) => `${t.type}:${t.text}`);
            return { lost, unescaped, kinds };
        }""",
        sources,
    )
    assert result["lost"] == []
    assert result["unescaped"] == []
    assert result["kinds"] == [
        "keyword:def",
        "function:f",
        "op:(",
        "self:self",
        "op:)",
        "op::",
        "keyword:return",
        "constant:None",
        "comment:# done",
    ]


def test_phone_tables_scroll_instead_of_squeezing_and_user_actions_sit_by_the_name(
    service, open_page
):
    username, password = unique("narrow"), "narrow password 1"
    token = service.register(username, password)
    source = "def solution(board):\n    return 0\n"
    for _ in range(2):
        response = service.request(
            "POST", "/api/v1/submissions", token, json={"problem": "numbergame", "source": source}
        )
        assert response.status_code == 202, response.text
    page = open_page(PHONE)
    log_in(page, username, password)
    page.goto("/submissions")
    rows = page.locator("#history-body tr[data-id]")
    expect(rows).to_have_count(2)
    # Every cell on one line: the table scrolls sideways in its container instead.
    heights = rows.first.locator("td").evaluate_all("(cells) => cells.map((c) => c.offsetHeight)")
    assert max(heights) < 48, heights
    scroll = page.locator("#history-table").locator("xpath=..")
    assert scroll.evaluate("(box) => getComputedStyle(box).overflowX") == "auto"
    assert page.evaluate(OVERFLOW) <= 1
    shot(page, "phone-history-scrolls")

    teacher = open_page(PHONE)
    log_in(teacher, *service.admin)
    teacher.goto("/instructor/users")
    teacher.get_by_label("Search").fill(username)
    # The search's answer replaces the whole list's rows: act on the row it draws.
    expect(teacher.locator("#users-body tr")).to_have_count(1)
    row = teacher.locator(f'#users-body tr[data-user="{username}"]')
    expect(row).to_be_visible()
    name = row.locator("th").bounding_box()
    button = row.get_by_role("button", name="New password").bounding_box()
    assert name is not None and button is not None
    assert button["x"] + button["width"] <= PHONE["width"], button  # on the screen
    assert button["y"] - (name["y"] + name["height"]) < 80, (name, button)  # by the name
    assert teacher.evaluate(OVERFLOW) <= 1
    shot(teacher, "phone-users-actions")

    # A new password shows in the user's card, on the screen.
    row.get_by_role("button", name="New password").click()
    row.get_by_role("button", name=f"Confirm new password for {username}").click()
    expect(row.locator(".new-password code")).to_be_visible()
    assert teacher.evaluate(OVERFLOW) <= 1
    assert_accessible(teacher, "phone users with a new password")
    shot(teacher, "phone-users-new-password")


def rgb(color: str, over: tuple[float, ...] = (255, 255, 255)) -> tuple[float, ...]:
    """A CSS rgb()/rgba() colour as drawn over the colour `over`."""
    values = [float(v) for v in re.findall(r"[\d.]+", color)]
    alpha = values[3] if len(values) > 3 else 1.0
    return tuple(alpha * c + (1 - alpha) * b for c, b in zip(values[:3], over, strict=True))


def contrast(first: tuple[float, ...], second: tuple[float, ...]) -> float:
    """WCAG's contrast ratio of two colours."""

    def luminance(color: tuple[float, ...]) -> float:
        linear = [
            c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
            for c in (v / 255 for v in color)
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    low, high = sorted((luminance(first), luminance(second)))
    return (high + 0.05) / (low + 0.05)


# The focused control's outline, and the colour of the nearest opaque background behind it.
FOCUS_RING = """(el) => {
  const style = getComputedStyle(el);
  let background = "rgb(255, 255, 255)";
  for (let box = el.parentElement; box; box = box.parentElement) {
    const color = getComputedStyle(box).backgroundColor;
    if (color !== "rgba(0, 0, 0, 0)") { background = color; break; }
  }
  return {width: parseFloat(style.outlineWidth), style: style.outlineStyle,
          color: style.outlineColor, background};
}"""


def test_focus_rings_on_inputs_and_selects_are_clearly_visible(service, open_page):
    username, password = unique("focus"), "focus password 1"
    service.register(username, password)
    page = open_page()
    log_in(page, username, password)
    controls = [("/login", "Username"), ("/submissions", "Problem"), ("/submissions", "From")]
    for where, label in controls:  # inputs and a select
        page.goto(where)
        control = page.get_by_label(label, exact=True)
        control.focus()
        expect(control).to_be_focused()
        ring = control.evaluate(FOCUS_RING)
        # A solid outline at least 2 px wide at 3:1 against what is behind it (WCAG 1.4.11):
        # the old ring was a 20 % tint of the accent, 1.3:1 on white.
        background = rgb(ring["background"])
        assert ring["style"] == "solid" and ring["width"] >= 2, (label, ring)
        assert contrast(rgb(ring["color"], background), background) >= 3, (label, ring)

    # The code editor draws its ring around the whole editor, as a solid 3 px shadow.
    page.goto("/problems/footholds")
    page.get_by_label("Your code").focus()
    box = page.locator(".code-editor")
    expect(box).to_have_class(re.compile(r"\bce-focus\b"))
    shadow = box.evaluate("(el) => getComputedStyle(el).boxShadow")
    color = re.match(r"rgba?\([^)]*\)", shadow).group(0)
    assert shadow.endswith("0px 0px 0px 3px"), shadow
    assert contrast(rgb(color), (255, 255, 255)) >= 3, shadow


def test_what_pages_show_after_a_click_passes_axe_too(service, open_page):
    """The states a page reaches by use (errors, Run's results, the case editor, a test's
    detail, the compare view) are checked as the loaded pages are, at both widths."""
    page = open_page(PHONE)
    page.goto("/login")
    page.get_by_label("Username").fill("nobody-here")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".form-error")).to_be_visible()
    accessible_at_both_widths(page, "login error")

    page.goto("/register")
    page.get_by_label("Username").fill("x")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("Repeat the password").fill("other")
    page.get_by_role("button", name="Create account").click()
    expect(page.locator(".form-error")).to_be_visible()
    accessible_at_both_widths(page, "register errors")

    username, password = unique("states"), "states password 1"
    token = service.register(username, password)
    # numbergame, wrong on every test: graded in a fraction of footholds' full plan, and its
    # test detail is the other kind of drawing (the walk above has footholds' board).
    wrong = "def solution(board):\n    return -1\n"
    first = service.submit(token, "numbergame", wrong)
    second = service.submit(token, "numbergame", wrong + "# second try\n")
    log_in(page, username, password)

    page.goto("/problems/footholds")
    page.get_by_label("Your code").fill(
        (PACKAGED / "footholds/submissions/accepted/footholds_memo.py").read_text()
    )
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#run-status")).to_contain_text("Done", timeout=GRADE_TIMEOUT_MS)
    accessible_at_both_widths(page, "run results")
    page.get_by_role("button", name="My own boards").click()
    expect(page.locator("#case-preview #preview-answer")).to_be_visible()
    accessible_at_both_widths(page, "own boards editor")

    service.wait_done(token, first)
    page.goto(f"/submissions/{second}")
    expect(page.locator("#sub-verdict")).to_have_attribute(
        "data-verdict", "WA", timeout=GRADE_TIMEOUT_MS
    )
    # The first failure's optimal line loads after the page is drawn and makes the detail
    # above the table taller: a click while it lands can hit the row below the button.
    expect(page.locator("#detail-body")).not_to_contain_text("Loading the optimal line")
    page.locator("#tests-body").get_by_role("button", name="View").nth(1).click()
    expect(page.locator("#detail-title")).not_to_contain_text("First failing")
    page.get_by_label("Compare with", exact=True).select_option(str(first))
    expect(page.locator("#compare-body .diff")).to_be_visible()
    # Both sources end in a newline: the added line is the last one, no empty line after it.
    expect(page.locator("#compare-body .diff-line").last).to_contain_text("+# second try")
    accessible_at_both_widths(page, "test detail and compare view")

"""A student in the browser picks C++ on the problem page, gets its template (the Python draft
kept), submits a correct C++ solution and reads AC with the language shown and the source
highlighted as C++; the drafts stay per language and style, and the history says the
language."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import GRADE_TIMEOUT_MS, log_in, shot, unique
from tests.service.stack import SOLUTIONS

pytestmark = pytest.mark.e2e

PASSWORD = "a long enough password"
CPP = (SOLUTIONS / "numbergame_ok.cpp").read_text()
PYTHON_DRAFT = "def solution(board):\n    return sum(board)  # my Python draft\n"


def templates(service) -> dict[str, dict[str, str]]:
    shown = service.request("GET", "/api/v1/problems/numbergame").json()
    return {entry["name"]: entry["templates"] for entry in shown["languages"]}


def test_a_student_submits_cpp_from_the_problem_page(service, open_page):
    username = unique("cpp")
    service.register(username, PASSWORD)
    page = open_page()
    log_in(page, username, PASSWORD)
    page.goto("/problems/numbergame")
    editor = page.get_by_label("Your code")
    language = page.get_by_label("Language", exact=True)
    style = page.get_by_label("Style", exact=True)
    expect(language).to_have_value("python")
    expect(style).to_be_visible()  # numbergame is also a whole program on stdin/stdout
    expect(page.locator("#stdio-format")).to_contain_text("number of cases")
    editor.fill(PYTHON_DRAFT)

    # C++: its template, highlighted as C++, with its limits on this problem.
    wanted = templates(service)
    language.select_option("cpp")
    expect(editor).to_have_value(wanted["cpp"]["function"])
    expect(page.locator("#language-title")).to_contain_text("C++")
    expect(page.locator(".code-editor")).to_have_attribute("data-language", "cpp")
    expect(page.locator("#language-limits")).to_contain_text(re.compile(r"C\+\+.* s per test"))
    shot(page, "languages-01-cpp-template")

    # The whole-program style has a template of its own; back to the function keeps neither.
    style.select_option("stdio")
    expect(editor).to_have_value(wanted["cpp"]["stdio"])
    style.select_option("function")
    expect(editor).to_have_value(wanted["cpp"]["function"])

    editor.fill(CPP)
    expect(page.locator(".ce-highlight .tok-decorator").first).to_have_text(re.compile(r"#include"))
    expect(page.locator(".ce-highlight .tok-builtin", has_text="vector").first).to_be_visible()
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_url(re.compile(r"/submissions/\d+$"))
    verdict = page.locator("#sub-verdict")
    expect(verdict).to_have_attribute("data-verdict", "AC", timeout=GRADE_TIMEOUT_MS)
    expect(page.locator("#sub-language")).to_contain_text("C++")
    expect(page.locator("#source-body code.language-cpp .tok-decorator").first).to_contain_text(
        "#include"
    )
    shot(page, "languages-02-cpp-accepted")

    # The drafts are per language: C++ keeps what was sent, Python the draft from before.
    page.goto("/problems/numbergame")
    expect(language).to_have_value("cpp")  # the last language chosen on this problem
    expect(editor).to_have_value(CPP)
    language.select_option("python")
    expect(editor).to_have_value(PYTHON_DRAFT)
    expect(page.locator(".code-editor")).to_have_attribute("data-language", "python")

    # The history says the language and filters by it.
    page.goto("/submissions?language=cpp")
    rows = page.locator("#history-body tr[data-id]")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("C++")
    expect(rows.first).to_contain_text("AC")
    page.goto("/submissions?language=kotlin")
    expect(page.locator("#history-body")).to_contain_text("No submissions match these filters")

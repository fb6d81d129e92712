"""The hidden boards page on an API that has not checked a board yet (its memory of the
mutants' answers is empty, as after every start): the page is drawn and usable at once, and
the line saying which mutants the board kills fills in when the judge has worked them out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, DESKTOP, GRADE_TIMEOUT_MS, log_in, shot
from tests.service.stack import Stack, service_env

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def fresh_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """An API of its own: the session's may have checked boards already. The API alone (no
    worker, no sweeper): a board's check runs in the API process, on its own memory."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tmp = tmp_path_factory.mktemp("judge-cold")
    stack = Stack("cold", tmp, service_env(tmp))
    try:
        stack.setup()
        stack.start_api()
        yield stack
    finally:
        stack.stop()


def test_boards_page_never_waits_for_the_first_strength_check(fresh_service, browser):
    context = browser.new_context(viewport=DESKTOP, base_url=fresh_service.base_url)
    try:
        page = context.new_page()
        answers = []
        page.on(
            "response",
            lambda r: r.url.endswith("/strength/board") and answers.append(r.status),
        )
        log_in(page, *fresh_service.admin)
        page.goto("/instructor/problems/footholds/boards")
        kills = page.locator("#preview-kills")
        # While the judge works out the mutants' answers the page is all there: the editor,
        # the drawn board's answer, the saved boards' list.
        expect(kills).to_contain_text("Working out what each mutant answers")
        expect(page.locator("#preview-answer")).to_be_visible()
        expect(page.locator("#board-editor .fh-editor")).to_be_visible()
        expect(page.locator("#board-list")).to_contain_text("No hidden boards yet")
        shot(page, "boards-cold-computing")
        expect(kills).to_contain_text("mutant", timeout=GRADE_TIMEOUT_MS)
        expect(kills).not_to_contain_text("Working out", timeout=GRADE_TIMEOUT_MS)
        assert answers[0] == 202 and answers[-1] == 200, answers
        shot(page, "boards-cold-filled")
    finally:
        context.close()

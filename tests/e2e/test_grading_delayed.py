"""With no grading worker alive, a student's submission page says grading is delayed and the
submission is safe, and an instructor's pages carry a banner; once a worker starts, both go
and the submission is graded. A stack of its own (the session's shared one keeps its
worker): the API and the sweeper, the worker started by the test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import DESKTOP, GRADE_TIMEOUT_MS, log_in, shot, unique
from tests.service.stack import Stack, service_env, solution

pytestmark = pytest.mark.e2e

PASSWORD = "correct-horse-1"


@pytest.fixture(scope="module")
def idle_stack(tmp_path_factory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("judge-e2e-delayed")
    # Heartbeats every 0.5 s: a started worker counts as alive at once.
    stack = Stack("e2e-delayed", tmp, service_env(tmp, JUDGE_HEARTBEAT_S="0.5"))
    try:
        stack.setup()
        stack.start_api()
        stack.start_sweeper()
        yield stack
    finally:
        stack.stop()


def test_no_grader_delays_grading_says_so_then_grades(browser, idle_stack: Stack) -> None:
    stack = idle_stack
    student = unique("waiting")
    token = stack.register(student, PASSWORD)
    sid = stack.submit(token, "numbergame", solution("numbergame_ok"))
    contexts = []
    try:
        pages = []
        for _ in range(2):
            context = browser.new_context(viewport=DESKTOP, base_url=stack.base_url)
            context.set_default_timeout(20_000)
            contexts.append(context)
            pages.append(context.new_page())
        mine, teacher = pages

        log_in(mine, student, PASSWORD)
        mine.goto(f"/submissions/{sid}")
        expect(mine.locator("#queue-position")).to_have_text("Next in the queue")
        delayed = mine.locator("#grading-delayed")
        expect(delayed).to_contain_text("Grading is delayed; your submission is safe")
        shot(mine, "submission-grading-delayed")

        log_in(teacher, *stack.admin)
        teacher.goto("/instructor")
        banner = teacher.locator("#grading-banner")
        expect(banner).to_contain_text("no grading worker is running")
        expect(banner).to_contain_text("The oldest queued submission has waited")
        shot(teacher, "instructor-grading-banner")

        stack.start_worker()
        # The page follows the judging to its verdict; the notice goes with the queue.
        expect(mine.locator("#sub-verdict")).to_have_attribute(
            "data-verdict", "AC", timeout=GRADE_TIMEOUT_MS
        )
        expect(delayed).to_have_count(0)
        with teacher.expect_response(lambda r: r.url.endswith("/healthz")) as asked:
            teacher.reload()
        assert asked.value.status == 200  # the worker beats: the banner is not drawn
        expect(teacher.get_by_role("heading", level=1).first).to_be_visible()
        expect(teacher.locator("#grading-banner")).to_have_count(0)
    finally:
        for context in contexts:
            context.close()

"""Browser tests: the real service (uvicorn, a Celery worker and the sweeper as separate
processes, started by tests/service/stack.py) on a free loopback port with the embedded
defaults (SQLite and the SQLAlchemy broker under a temporary JUDGE_DATA_DIR), driven by
headless Chromium through Playwright.

Chromium is required: without /usr/bin/chromium-headless-shell these tests fail, they never
skip. Playwright uses the Debian browser (`executable_path`, tests/e2e/browser.py), so nothing
is downloaded. Screenshots of every page go to tests/artifacts/ (git-ignored), with the
service's logs.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import CHROMIUM, MISSING, launch
from tests.e2e.helpers import ARTIFACTS, DESKTOP
from tests.service.stack import Stack, service_env


class Shared:
    """The service and the browser this process's browser tests share: started by the first
    test that asks, stopped as soon as the process moves on to other tests (below). An idle
    stack still polls its broker and sweeps, and `make test` gives every process a share of
    the browser tests first (tests/conftest.py), so they do not idle through the rest."""

    def __init__(self) -> None:
        self.held = contextlib.ExitStack()
        self.stack: Stack | None = None
        self.chromium = None

    def service(self, tmp_path_factory: pytest.TempPathFactory) -> Stack:
        if self.stack is None:
            self.stack = self.held.enter_context(_started_service(tmp_path_factory))
        return self.stack

    def browser(self):
        if self.chromium is None:
            self.chromium = self.held.enter_context(_launched_browser())
        return self.chromium

    def close(self) -> None:
        self.stack = self.chromium = None
        self.held.close()


SHARED = Shared()


@contextlib.contextmanager
def _started_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tmp = tmp_path_factory.mktemp("judge-e2e")
    stack = Stack("e2e", tmp, service_env(tmp))
    try:
        stack.start()
        page = stack.http.get("/login")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"], (
            "the web pages are not mounted in the app (api.web.install)"
        )
        yield stack
    finally:
        stack.stop()  # its workers killed after a second: nothing of it is kept but its logs
        for name in ("api", "worker", "sweeper"):
            with contextlib.suppress(OSError):
                shutil.copyfile(tmp / f"{name}.log", ARTIFACTS / f"e2e-{name}.log")


@contextlib.contextmanager
def _launched_browser():
    # An expectation waits up to 15 s (Playwright's default is 5 s): the suite runs in
    # parallel processes on a small machine, and a page waiting on the busy judge is not wrong.
    expect.set_options(timeout=15_000)
    if not CHROMIUM.exists():
        pytest.fail(MISSING, pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = launch(playwright)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Stack:
    """The real service with its embedded defaults, from the service tests' Stack helper."""
    return SHARED.service(tmp_path_factory)


@pytest.fixture(scope="module")
def browser():
    return SHARED.browser()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After the last browser test before other tests (or none), the shared service and
    browser stop; a later browser test starts them again."""
    yield  # the test's own fixtures (its pages) are torn down first
    if nextitem is None or "e2e" not in nextitem.path.parts:
        SHARED.close()


def pytest_sessionfinish() -> None:
    SHARED.close()


@dataclass
class Watch:
    """What a page did that a test must not let pass: uncaught errors, requests leaving the
    judge, and anything the Content-Security-Policy had to block."""

    origin: str
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def foreign(self) -> list[str]:
        return [
            u
            for u in self.requests
            if not (u.startswith(self.origin + "/") or u.startswith(("data:", "blob:")))
        ]


@pytest.fixture
def open_page(browser, service: Stack) -> Iterator[Callable]:
    """open_page(viewport=DESKTOP) -> a fresh page in its own browser context (own storage)."""
    contexts, watches = [], []

    def make(viewport: dict[str, int] = DESKTOP):
        context = browser.new_context(viewport=viewport, base_url=service.base_url)
        context.set_default_timeout(20_000)
        page = context.new_page()
        watch = Watch(origin=service.base_url)
        page.on("request", lambda request: watch.requests.append(request.url))
        page.on("pageerror", lambda error: watch.errors.append(str(error)))
        page.on(
            "console",
            lambda message: (
                "Content Security Policy" in message.text and watch.errors.append(message.text)
            ),
        )
        contexts.append(context)
        watches.append(watch)
        return page

    yield make
    for context in contexts:
        context.close()
    for watch in watches:
        assert not watch.foreign(), f"requests outside the judge: {watch.foreign()}"
        assert not watch.errors, f"uncaught errors in the page: {watch.errors}"

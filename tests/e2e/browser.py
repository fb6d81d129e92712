"""The browser the e2e tests drive: Debian's Chromium headless shell through Playwright (no
download). It is Chromium's engine (Blink, V8, the same network stack) without the windowed
browser around it, which Playwright itself runs for headless tests: a new context with a page
cost about a third of the full browser's CPU here (0.24 s against 0.77 s, ten in a row).

`python -m tests.e2e.browser` starts it once and prints its version; .ci/run calls it so a
missing or broken browser fails CI with a clear message before the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MISSING = (
    f"{CHROMIUM} is missing: the browser tests need the Debian package "
    "chromium-headless-shell (`make setup` installs it when run as root)"
)


def launch(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def main() -> int:
    if not CHROMIUM.exists():
        print(MISSING, file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        print(f"chromium {browser.version} starts headless under Playwright")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

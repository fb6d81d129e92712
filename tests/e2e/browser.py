"""The browser the e2e tests drive: Debian's Chromium through Playwright (no download).

`python -m tests.e2e.browser` starts it once and prints its version; .ci/run calls it so a
missing or broken browser fails CI with a clear message before the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MISSING = (
    f"{CHROMIUM} is missing: the browser tests need the Debian packages chromium and "
    "chromium-driver (`make setup` installs them when run as root)"
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

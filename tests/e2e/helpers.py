"""Constants and small helpers shared by the browser tests (fixtures are in conftest.py)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "artifacts"
SOLUTIONS = Path(__file__).resolve().parent / "solutions"
CORPUS = REPO / "tests" / "submissions"
# The built-in packages' submissions (problems/<slug>/submissions/<verdict>/), part of the corpus.
PACKAGED = REPO / "problems"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
GRADE_TIMEOUT_MS = 120_000
DASH = "\u2013"  # en dash: page ranges ("1-20" drawn with it) and numbers not loaded yet

# Controls a person can operate without a visible or programmatic label.
UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.offsetParent !== null || el.getClientRects().length)
  .filter((el) => el.type !== 'hidden')
  .filter((el) => {
    const name = (el.labels && el.labels.length) || el.getAttribute('aria-label')
      || el.getAttribute('aria-labelledby') || (el.tagName === 'BUTTON' && el.textContent.trim());
    return !name;
  })
  .map((el) => el.outerHTML.slice(0, 120))"""

OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"

# axe-core, pinned in package.json (`npm ci` installs it), checks a page against WCAG.
AXE_SCRIPT = REPO / "node_modules" / "axe-core" / "axe.min.js"
AXE_MISSING = f"{AXE_SCRIPT} is missing: run `npm ci` (or `make setup`) in {REPO}"
# The impacts a page may not have; moderate and minor findings are checked rule by rule.
BLOCKING_IMPACTS = ("serious", "critical")
AXE_RUN = """async ({impacts, rules}) => {
  const options = {resultTypes: ["violations"]};
  if (rules) options.runOnly = {type: "rule", values: rules};
  const {violations} = await axe.run(document, options);
  return violations
    .filter((v) => !impacts || impacts.includes(v.impact))
    .map((v) => `${v.impact} ${v.id} (${v.help}): ` + v.nodes.slice(0, 5)
      .map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\\s+/g, " ")}`).join(" | "));
}"""


def axe_violations(
    page, *, impacts: tuple[str, ...] | None = BLOCKING_IMPACTS, rules: list[str] | None = None
) -> list[str]:
    """axe-core's violations on the page as it is now (of `impacts`, or of the given `rules`
    whatever their impact), one readable line each."""
    assert AXE_SCRIPT.exists(), AXE_MISSING
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: a <script> tag (add_script_tag) would be an
        # inline script, which the pages' Content-Security-Policy rightly blocks.
        page.evaluate(AXE_SCRIPT.read_text())
    return page.evaluate(AXE_RUN, {"impacts": None if rules else impacts, "rules": rules})


# Screenshots are for a person to look at, so only when asked (JUDGE_TEST_SCREENSHOTS=1): a
# full page's PNG costs the browser tests about a minute of a 2-core machine in all.
SCREENSHOTS = os.environ.get("JUDGE_TEST_SCREENSHOTS") == "1"


def shot(page, name: str) -> None:
    """A full-page screenshot under tests/artifacts/ when JUDGE_TEST_SCREENSHOTS=1."""
    if SCREENSHOTS:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def log_in(page, username: str, password: str) -> None:
    page.goto("/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/problems")


def unique(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(3)}"

"""Constants and small helpers shared by the browser tests (fixtures are in conftest.py)."""

from __future__ import annotations

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


def shot(page, name: str) -> Path:
    """A full-page screenshot under tests/artifacts/, for a person to look at."""
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def log_in(page, username: str, password: str) -> None:
    page.goto("/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/problems")


def unique(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(3)}"

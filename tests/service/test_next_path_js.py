"""Where the login page sends the user (api/web/static/js/next-path.js), run by Node (the
linter's runtime): a page of this site, never another origin, however `next` is spelled.
`/login?next=/%09/host/` passed the old prefix check: the browser drops the tab and goes to
`//host/`."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from api.web import STATIC_DIR

NEXT_PATH_JS = STATIC_DIR / "js" / "next-path.js"
ORIGIN = "https://judge.example"

CHECK = """
import { sameOriginPath } from %(module)s;
const cases = %(cases)s;
console.log(JSON.stringify(cases.map((next) => sameOriginPath(next, %(origin)s))));
"""

# (what `next` decodes to, where the user goes)
CASES = [
    ("/problems", "/problems"),
    ("/submissions/12?tab=source#line-3", "/submissions/12?tab=source#line-3"),
    ("/problems/footholds", "/problems/footholds"),
    ("/\t/evil.example/", "/"),  # /login?next=/%09/host/
    ("/\n/evil.example/", "/"),
    ("/\r\n/evil.example", "/"),
    ("//evil.example/", "/"),
    ("/\\evil.example", "/"),
    ("\\\\evil.example", "/"),
    ("https://evil.example/problems", "/"),
    ("javascript:alert(1)", "/"),
    ("data:text/html,<script>alert(1)</script>", "/"),
    (" //evil.example", "/"),
    ("https://judge.example/history", "/history"),  # the same origin spelled out
    ("problems", "/problems"),  # relative to the origin: still this site
]


def test_after_login_the_user_stays_on_this_site() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is required (make setup installs it for the linter)", pytrace=False)
    script = CHECK % {
        "module": json.dumps(NEXT_PATH_JS.as_uri()),
        "cases": json.dumps([next_ for next_, _ in CASES]),
        "origin": json.dumps(ORIGIN),
    }
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout) == [where for _, where in CASES]

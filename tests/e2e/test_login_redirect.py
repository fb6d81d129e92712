"""After logging in, the login page sends the user to `next` only when it is a page of this
site: `/login?next=/%09/host/` passed the old prefix check, and the browser, which drops
the tab, went to `//host/`, another origin."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest

from tests.e2e.helpers import unique

ELSEWHERE = "evil.invalid"
HOME = "/problems"  # where "/" leads, and so a refused `next`


@pytest.mark.parametrize(
    ("next_", "lands"),
    [
        (f"/\t/{ELSEWHERE}/", HOME),
        (f"/\\{ELSEWHERE}/", HOME),
        (f"//{ELSEWHERE}/", HOME),
        (f"https://{ELSEWHERE}/history", HOME),
        ("/problems/numbergame?tab=statement", "/problems/numbergame?tab=statement"),
    ],
)
def test_the_login_page_never_sends_the_user_to_another_origin(
    service, open_page, next_: str, lands: str
) -> None:
    username, password = unique("next"), "next password 1"
    service.register(username, password)
    page = open_page()
    page.goto(f"/login?next={quote(next_, safe='')}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.get_by_role("button", name="Log in").click()
    page.wait_for_function("() => !location.pathname.startsWith('/login')")
    where = urlsplit(page.url)
    assert f"{where.scheme}://{where.netloc}" == service.base_url
    assert where.path + (f"?{where.query}" if where.query else "") == lands
    assert not [url for url in requests if ELSEWHERE in url]

"""LTI 1.3 Advantage end to end, against a real platform (`lti1p3platform`, run by
tests/service/lti_platform.py as its own process on loopback) and a real stack (API,
worker, sweeper): registration, launches as an instructor and a student, deep linking,
a submission's score reaching the platform through AGS, the roster through NRPS; and every
forged, expired, replayed or mis-addressed launch refused with nothing created."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from store.models import utcnow
from tests.service.stack import Stack, free_port, service_env, solution, wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.sandbox]

CLIENT_ID = "judge-client"  # as tests/service/lti_platform.py registers the tool


@pytest.fixture(scope="module")
def stack(tmp_path_factory, postgres, redis_main) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("stack-lti")
    broker, prefix = redis_main()
    env = service_env(
        tmp,
        JUDGE_DATABASE_URL=postgres(),
        JUDGE_BROKER_URL=broker,
        JUDGE_BROKER_KEY_PREFIX=prefix,
        JUDGE_LTI_ALLOW_HTTP="true",  # the platform is on loopback, without TLS
    )
    running = Stack("lti", tmp, env)
    try:
        yield running.start(runner=False)
    finally:
        running.stop()


@pytest.fixture(scope="module")
def platform(stack: Stack) -> str:
    port = free_port()
    stack.spawn("platform", "-m", "tests.service.lti_platform", str(port), stack.base_url)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(url + "/jwks", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    wait_for(up, timeout=30, what="the LTI platform", context=lambda: stack.log_tail("platform"))
    return url


@pytest.fixture(scope="module")
def teacher(stack: Stack) -> str:
    return stack.instructor()


@pytest.fixture(scope="module")
def registered(stack: Stack, platform: str, teacher: str) -> dict[str, Any]:
    made = stack.request(
        "POST",
        "/api/v1/lti/platforms",
        teacher,
        json={
            "issuer": platform,
            "client_id": CLIENT_ID,
            "deployment_ids": ["deployment-1"],
            "auth_login_url": platform + "/authorize",
            "auth_token_url": platform + "/token",
            "key_set_url": platform + "/jwks",
        },
    )
    assert made.status_code == 201, made.text
    return made.json()


def _form(page: str) -> tuple[str, dict[str, str]]:
    """The action and hidden fields of the page's (only) form."""
    action = re.search(r'<form[^>]*action="([^"]+)"', page)
    assert action, page[:2000]
    fields = {
        html.unescape(name): html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)
    }
    return html.unescape(action.group(1)), fields


def authorized(platform: str, user: str, hint: str) -> tuple[httpx.Client, str, dict[str, str]]:
    """The user opens a link in the LMS: the platform starts the login, the tool answers
    with the redirect to the platform's authorization (setting its state cookie), and the
    platform returns its signed launch in a form. Returns the browser and the form."""
    browser = httpx.Client(timeout=30, follow_redirects=True)
    page = browser.get(platform + "/start", params={"user": user, "hint": hint})
    assert page.status_code == 200, page.text
    action, fields = _form(page.text)
    return browser, action, fields


def launched(platform: str, user: str, hint: str) -> tuple[httpx.Client, httpx.Response]:
    browser, action, fields = authorized(platform, user, hint)
    return browser, browser.post(action, data=fields)


def landing(response: httpx.Response) -> tuple[str, str]:
    """The judge's token and the page the launch lands on."""
    assert response.status_code == 200, response.text
    found = re.search(r'data-token="([^"]+)" data-next="([^"]+)"', response.text)
    assert found, response.text
    return found.group(1), html.unescape(found.group(2))


def user_count(stack: Stack, teacher: str) -> int:
    return len(stack.request("GET", "/api/v1/users", teacher).json()["items"])


def place(platform: str, item: str) -> dict[str, Any]:
    """The instructor deep-links `item` into the course; the platform's state after."""
    browser, picker = launched(platform, "prof", "deep-link")
    assert picker.status_code == 200, picker.text
    launch_id = re.search(r'name="launch_id" value="([^"]+)"', picker.text)
    assert launch_id, picker.text
    back = browser.post(
        str(picker.url).replace("/lti/launch", "/lti/deep-link"),
        data={"launch_id": launch_id.group(1), "item": item},
    )
    assert back.status_code == 200, back.text
    action, fields = _form(back.text)
    assert action == platform + "/deep-link-return"
    placed = browser.post(action, data={"JWT": fields["JWT"]})
    assert placed.status_code == 200, placed.text
    return httpx.get(platform + "/state").json()


def test_the_tool_publishes_its_key_set_and_its_values(stack: Stack, teacher: str) -> None:
    keys = stack.request("GET", "/lti/jwks").json()["keys"]
    config = stack.request("GET", "/api/v1/lti/config", teacher).json()
    assert config["signing_kid"] in [k["kid"] for k in keys]
    assert all(k["kty"] == "RSA" and "d" not in k for k in keys)  # public halves only
    page = stack.request("GET", "/instructor/lti").text
    for name in ("login_url", "launch_url", "deep_linking_url", "jwks_url"):
        assert config[name] in page
    rotated = stack.request("POST", "/api/v1/lti/keys/rotate", teacher).json()
    keys = [k["kid"] for k in stack.request("GET", "/lti/jwks").json()["keys"]]
    assert rotated["signing_kid"] != config["signing_kid"]
    assert {rotated["signing_kid"], config["signing_kid"]} <= set(keys)  # the old one stays


def test_a_platform_url_must_be_https(stack: Stack, teacher: str) -> None:
    bad = stack.request(
        "POST",
        "/api/v1/lti/platforms",
        teacher,
        json={
            "issuer": "https://lms.example",
            "client_id": "x",
            "deployment_ids": ["1"],
            "auth_login_url": "http://lms.example/auth",
            "auth_token_url": "https://lms.example/token",
            "key_set_url": "https://lms.example/jwks",
        },
    )
    assert bad.status_code == 422 and "https" in bad.text


def test_deep_linked_assignment_scores_reach_the_platform(
    stack: Stack, platform: str, registered: dict[str, Any], teacher: str
) -> None:
    now = utcnow()
    assignment = stack.request(
        "POST",
        "/api/v1/assignments",
        teacher,
        json={
            "title": "Week 1",
            "release_at": (now - timedelta(days=1)).isoformat(),
            "due_at": (now + timedelta(days=1)).isoformat(),
            "problems": [{"problem": "footholds", "points": 10}],
        },
    ).json()
    state = place(platform, f"assignment:{assignment['id']}")
    [(link_id, link)] = state["links"].items()
    assert link["type"] == "ltiResourceLink"
    assert link["custom"] == {"assignment": str(assignment["id"])}
    [item] = state["line_items"].values()
    assert item["scoreMaximum"] == 10 and item["label"] == "Week 1"

    token, next_path = landing(launched(platform, "stu1", link_id)[1])
    assert next_path == f"/assignments#assignment-{assignment['id']}"
    me = stack.request("GET", "/api/v1/users/me", token).json()
    assert me["role"] == "student"
    submission = stack.submit(token, "footholds", solution("footholds_ok"))
    assert stack.wait_done(token, submission)["verdict"] == "AC"

    def score(given: float) -> dict[str, Any] | None:
        scores = httpx.get(platform + "/state").json()["scores"]
        return next((s for s in scores if s["scoreGiven"] == given), None)

    got = wait_for(lambda: score(10), timeout=60, what="the score at the platform")
    assert got["userId"] == "stu1" and got["scoreMaximum"] == 10
    assert got["gradingProgress"] == "FullyGraded" and got["timestamp"]
    # An instructor's override is a gradebook change too: the platform gets the new score.
    over = stack.request(
        "PUT",
        f"/api/v1/assignments/{assignment['id']}/scores/{me['username']}/footholds",
        teacher,
        json={"score": 4, "comment": "regraded by hand"},
    )
    assert over.status_code == 200, over.text
    assert wait_for(lambda: score(4), timeout=60, what="the override at the platform")
    # None waiting: the poster deletes a post's row just after the platform has its score.
    wait_for(
        lambda: stack.request("GET", "/api/v1/lti/scores", teacher).json() == [],
        timeout=30,
        what="no score post waiting",
    )

    # The roster (NRPS): the student who never launched is in the gradebook too.
    [context] = stack.request("GET", "/api/v1/lti/contexts", teacher).json()
    assert context["roster"] and context["grades"]
    synced = stack.request("POST", f"/api/v1/lti/contexts/{context['id']}/roster", teacher)
    assert synced.status_code == 200, synced.text
    assert synced.json()["members"] == 4 and synced.json()["created"] >= 1
    book = stack.request("GET", f"/api/v1/assignments/{assignment['id']}/gradebook", teacher)
    assert "Student-Two" in [row["user"] for row in book.json()["rows"]]


def test_a_link_made_by_hand_gets_its_line_item_through_ags(
    stack: Stack, platform: str, registered: dict[str, Any], teacher: str
) -> None:
    """No deep linking, so no line item in the launch: the tool finds or creates it (AGS
    line items), and the student's score goes there."""
    now = utcnow()
    assignment = stack.request(
        "POST",
        "/api/v1/assignments",
        teacher,
        json={
            "title": "By hand",
            "release_at": (now - timedelta(days=1)).isoformat(),
            "due_at": (now + timedelta(days=1)).isoformat(),
            "problems": [{"problem": "footholds", "points": 5}],
        },
    ).json()
    link = f"manual-{assignment['id']}"
    httpx.post(platform + "/links", params={"link_id": link, "assignment": assignment["id"]})
    for _ in range(2):  # the second launch finds the line item the first one made
        landing(launched(platform, "stu1", link)[1])
    items = [
        i
        for i in httpx.get(platform + "/state").json()["line_items"].values()
        if i.get("resourceId") == f"assignment-{assignment['id']}"
    ]
    assert len(items) == 1 and items[0]["scoreMaximum"] == 5 and items[0]["label"] == "By hand"

    def posted() -> bool:
        scores = httpx.get(platform + "/state").json()["scores"]
        return any(s["line_item"] == items[0]["id"].rsplit("/", 1)[1] for s in scores)

    wait_for(posted, timeout=60, what="a score on the line item made through AGS")


def test_a_deep_linked_problem_opens_its_page(
    stack: Stack, platform: str, registered: dict[str, Any]
) -> None:
    state = place(platform, "problem:numbergame")
    link_id = next(k for k, v in state["links"].items() if v["custom"] == {"problem": "numbergame"})
    _, next_path = landing(launched(platform, "stu1", link_id)[1])
    assert next_path == "/problems/numbergame"


def test_an_lms_instructor_is_a_judge_instructor(
    stack: Stack, platform: str, registered: dict[str, Any]
) -> None:
    token, _ = landing(launched(platform, "prof", "link-1")[1])
    me = stack.request("GET", "/api/v1/users/me", token).json()
    assert me["role"] == "instructor" and me["username"] == "Prof-Ada"


def test_a_student_cannot_deep_link(
    stack: Stack, platform: str, registered: dict[str, Any]
) -> None:
    _, refused = launched(platform, "stu1", "deep-link")
    assert refused.status_code == 403 and "only an instructor" in refused.text


@pytest.mark.parametrize(
    ("tamper", "says"),
    [
        ("expired", "expired"),
        ("wrong_aud", "not registered"),
        ("wrong_key", "Signature verification failed"),
        ("unknown_deployment", "Unable to find deployment"),
        ("no_nonce", "nonce"),
    ],
)
def test_a_bad_launch_is_refused_and_creates_nothing(
    stack: Stack, platform: str, registered: dict[str, Any], teacher: str, tamper: str, says: str
) -> None:
    before = user_count(stack, teacher)
    _, refused = launched(platform, "mallory", f"link-1:{tamper}")
    assert refused.status_code == 400, refused.text
    assert "This launch was refused" in refused.text and says in refused.text
    assert user_count(stack, teacher) == before


def test_a_replayed_launch_is_refused(
    stack: Stack, platform: str, registered: dict[str, Any], teacher: str
) -> None:
    browser, action, fields = authorized(platform, "mallory", "link-1")
    assert browser.post(action, data=fields).status_code == 200
    before = user_count(stack, teacher)
    again = browser.post(action, data=fields)
    assert again.status_code == 400 and "Invalid Nonce" in again.text
    assert user_count(stack, teacher) == before


def test_a_launch_from_another_browser_is_refused(
    stack: Stack, platform: str, registered: dict[str, Any], teacher: str
) -> None:
    """The state is bound to the browser that started the login (its cookie)."""
    _, action, fields = authorized(platform, "mallory", "link-1")
    stolen = httpx.post(action, data=fields, timeout=30)
    assert stolen.status_code == 400 and "State not found" in stolen.text

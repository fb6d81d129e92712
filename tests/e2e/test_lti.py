"""The LTI page in a browser: the values an LMS administrator pastes, registering a
platform with them, and rotating the tool's key (the launches themselves: tests/service/
test_lti.py, against a real platform)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import axe_violations, log_in, shot, unique

pytestmark = pytest.mark.e2e


def test_an_instructor_registers_a_platform_and_rotates_the_key(service, open_page) -> None:
    page = open_page()
    log_in(page, *service.admin)
    page.goto("/instructor")
    page.get_by_role("link", name="LTI").click()
    expect(page.locator("#lti-launch-url")).to_have_text(service.base_url + "/lti/launch")
    expect(page.locator("#lti-jwks-url")).to_have_text(service.base_url + "/lti/jwks")
    kid = page.locator("#lti-kid")
    expect(kid).not_to_be_empty()
    first = kid.inner_text()

    issuer = "https://" + unique("lms") + ".example"
    page.get_by_label("Issuer (platform id)").fill(issuer)
    page.get_by_label("Client id").fill("client-1")
    page.get_by_label("Deployment ids (comma separated)").fill("d1, d2")
    page.get_by_label("Authentication request URL").fill(issuer + "/auth")
    page.get_by_label("Access token URL").fill(issuer + "/token")
    page.get_by_label("Public keyset URL").fill("http://plain.example/keys")
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#lti-register .form-error")).to_contain_text("https")
    page.get_by_label("Public keyset URL").fill(issuer + "/keys")
    page.get_by_role("button", name="Register").click()
    row = page.locator("#lti-platforms tr", has_text=issuer)
    expect(row).to_contain_text("d1, d2")

    page.get_by_role("button", name="Rotate").click()
    expect(kid).not_to_have_text(first)
    assert axe_violations(page) == []
    shot(page, "lti")

"""LTI pieces below HTTP: the pending score posts (coalesced, backed off, never lost), the
launch claims' bounds, the audience check pylti1p3 leaves out, and an LMS account's
missing password."""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from api.lti import claims, keys
from store import repo
from store.models import Assignment, LtiScorePost, Role, utcnow
from store.repo import assignments as repo_assignments
from store.repo import lti as repo_lti
from store.repo import lti_scores
from tests.service.conftest import TEST_PASSWORDS
from tests.service.stack import free_port
from worker.lti_scores import post_due

pytestmark = pytest.mark.services


def _linked_assignment(session: Session) -> tuple[int, int]:
    """An assignment with footholds and a line item, and a student linked to the platform."""
    now = utcnow()
    teacher = repo.create_user(
        session=session, username="prof", password_hash="x", role=Role.INSTRUCTOR
    )
    assignment = repo_assignments.create_assignment(
        session=session,
        fields={"title": "W1", "release_at": now, "due_at": now + timedelta(days=1)},
        problems=[repo_assignments.ProblemSpec("footholds", 10)],
        user_id=teacher.id,
    )
    platform = repo_lti.add_platform(
        session=session,
        fields={
            "issuer": "https://lms.example",
            "client_id": "c",
            "deployment_ids": ["d"],
            "auth_login_url": "https://lms.example/a",
            "auth_token_url": "https://lms.example/t",
            "key_set_url": "https://lms.example/k",
        },
        user_id=teacher.id,
    )
    student, _ = repo_lti.link_user(
        session=session, platform_id=platform.id, sub="s1", username="s1", instructor=False
    )
    context = repo_lti.upsert_context(
        session=session,
        platform_id=platform.id,
        context_id="course",
        title="",
        memberships_url=None,
        lineitems_url=None,
    )
    repo_lti.set_line_item(
        session=session,
        context_pk=context.id,
        assignment_id=assignment.id,
        url="https://lms.example/li/1",
    )
    session.commit()
    return assignment.id, student.id


def test_changes_coalesce_into_one_post_of_the_latest(session: Session) -> None:
    assignment_id, user_id = _linked_assignment(session)
    lti_scores.queue_for_problem(session=session, user_id=user_id, problem="footholds")
    lti_scores.queue_for_problem(session=session, user_id=user_id, problem="numbergame")
    session.commit()
    [first] = lti_scores.due(session=session)
    assert (first.assignment_id, first.user_id) == (assignment_id, user_id)
    # A new change while the first is being posted: the post done does not take it away.
    lti_scores.queue_for_student(session=session, assignment_id=assignment_id, user_id=user_id)
    session.commit()
    lti_scores.posted(session=session, post=first)
    [again] = lti_scores.due(session=session)
    assert again.changed_at >= first.changed_at
    lti_scores.posted(session=session, post=again)
    assert lti_scores.pending(session=session) == []


def test_a_failed_post_waits_longer_each_time_and_stays(session: Session) -> None:
    assignment_id, user_id = _linked_assignment(session)
    lti_scores.queue_for_student(session=session, assignment_id=assignment_id, user_id=user_id)
    session.commit()
    waits = []
    for _ in range(3):
        [post] = lti_scores.due(session=session)
        assert lti_scores.failed(session=session, post=post, error="503 from the LMS")
        row = session.get(LtiScorePost, (assignment_id, user_id))
        assert row is not None and row.last_error == "503 from the LMS"
        waits.append((row.due_at - utcnow()).total_seconds())
        assert lti_scores.due(session=session) == []  # not before its time
        row.due_at = utcnow()  # as if the wait had passed
        session.commit()
    assert waits[0] < waits[1] < waits[2] <= 3600


def test_an_assignment_without_a_line_item_queues_nothing(session: Session) -> None:
    teacher = repo.create_user(
        session=session, username="p2", password_hash="x", role=Role.INSTRUCTOR
    )
    now = utcnow()
    assignment = Assignment(title="x", release_at=now, due_at=now, created_by=teacher.id)
    session.add(assignment)
    session.flush()
    lti_scores.queue_for_assignment(session=session, assignment_id=assignment.id)
    lti_scores.queue_for_problem(session=session, user_id=teacher.id, problem="footholds")
    assert lti_scores.pending(session=session) == []


def test_an_lms_account_opens_with_no_password() -> None:
    assert not TEST_PASSWORDS.verify("", repo_lti.NO_PASSWORD)
    assert not TEST_PASSWORDS.verify("!lti", repo_lti.NO_PASSWORD)


@pytest.mark.parametrize(
    ("body", "ok"),
    [
        ({"aud": "tool"}, True),
        ({"aud": ["tool"]}, True),
        ({"aud": ["tool", "other"], "azp": "tool"}, True),
        ({"aud": ["tool", "other"]}, False),  # several audiences need azp
        ({"aud": ["other", "tool"], "azp": "other"}, False),
        ({"aud": "tool", "azp": "other"}, False),
        ({"aud": "other"}, False),
    ],
)
def test_the_audience_must_be_the_tool(body: dict, ok: bool) -> None:
    if ok:
        claims.check_audience(body, "tool")
    else:
        with pytest.raises(claims.BadClaim):
            claims.check_audience(body, "tool")


@pytest.mark.parametrize(
    ("url", "allow_http", "ok"),
    [
        ("https://lms.example/x", False, True),
        ("http://lms.example/x", False, False),
        ("http://lms.example/x", True, False),  # http only to loopback
        ("http://127.0.0.1:8000/x", True, True),
        ("http://127.0.0.1:8000/x", False, False),
        ("ftp://lms.example/x", True, False),
        ("/relative", True, False),
        ("https://lms.example/" + "x" * 3000, False, False),
        (42, False, False),
    ],
)
def test_platform_urls_are_bounded(url: object, allow_http: bool, ok: bool) -> None:
    if ok:
        assert claims.url(url, what="u", allow_http=allow_http) == url
    else:
        with pytest.raises(claims.BadClaim):
            claims.url(url, what="u", allow_http=allow_http)


def _launch(**extra: object) -> dict[str, object]:
    return {
        claims.MESSAGE_TYPE: claims.RESOURCE_LINK,
        "sub": "u1",
        claims.ROLES: [claims_role("Learner")],
        **extra,
    }


def claims_role(name: str) -> str:
    return f"http://purl.imsglobal.org/vocab/lis/v2/membership#{name}"


def test_launch_claims_are_typed_and_bounded() -> None:
    parsed = claims.parse(_launch(**{claims.CUSTOM: {"assignment": "7"}}), allow_http=False)
    assert parsed.assignment_id == 7 and not parsed.instructor
    assert claims.parse(
        _launch(**{claims.ROLES: [claims_role("Instructor")]}), allow_http=False
    ).instructor
    for bad in (
        {"sub": "x" * 300},
        {claims.CUSTOM: {"assignment": "seven"}},
        {claims.CUSTOM: {"assignment": "9" * 20}},
        {claims.ROLES: "Instructor"},
        {claims.MESSAGE_TYPE: "LtiSubmissionReviewRequest"},
        {claims.AGS: {"lineitem": "http://lms.example/li"}},
        {claims.CONTEXT: ["not", "an", "object"]},
    ):
        with pytest.raises(claims.BadClaim):
            claims.parse(_launch(**bad), allow_http=False)
    assert claims.username_for({"name": "Ada Lovelace"}, "s") == "Ada-Lovelace"
    assert claims.username_for({}, "s").startswith("lti-")


def test_a_post_to_a_platform_that_is_down_waits_in_the_table(session: Session) -> None:
    """The sweeper's step against a platform nobody answers for: the row stays, with why."""
    assignment_id, user_id = _linked_assignment(session)
    platform = repo_lti.list_platforms(session=session)[0]
    platform.auth_token_url = f"http://127.0.0.1:{free_port()}/token"  # nothing listens
    keys.signing_key(session=session)
    lti_scores.queue_for_student(session=session, assignment_id=assignment_id, user_id=user_id)
    session.commit()
    assert post_due(lambda: contextlib.nullcontext(session), timeout_s=5) == (0, 1)
    [row] = lti_scores.pending(session=session)
    assert row.tries == 1 and "ConnectionError" in (row.last_error or "")
    assert row.due_at > utcnow()

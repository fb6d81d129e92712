"""Posts the students' assignment scores to the LMS (LTI Assignment and Grade Services):
the sweeper's step that drains `lti_score_posts` (store/repo/lti_scores.py).

The score is computed here, from the gradebook, when it is posted: the row says only whose
score changed and when (the score's timestamp). A failed post stays in the table and is
tried again with a growing wait; a post succeeds or waits, never disappears.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Final

from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.grade import Grade
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector
from sqlalchemy.orm import Session

from lti import connection
from lti.connection import TimeoutSession
from store.repo import assignments as repo_assignments
from store.repo import gradebook, lti_scores
from store.repo import lti as repo_lti
from store.repo import users as repo_users
from store.transient import first_line, is_transient
from worker.runtime import Runtime

log = logging.getLogger(__name__)

SCORE_SCOPE: Final = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def _registration(session: Session, platform_id: int) -> Registration:
    platform = repo_lti.get_platform(session=session, platform_id=platform_id)
    key = repo_lti.signing_key(session=session)
    if platform is None or key is None:
        raise LookupError("the platform or the tool's key is gone")
    return connection.registration(platform, key.private_pem)


Connectors = dict[int, ServiceConnector]


def _post_one(
    session: Session, post: lti_scores.Pending, timeout_s: float, connectors: Connectors
) -> int:
    """Post the student's current score to every line item of the assignment that their
    platform knows them in; returns how many."""
    assignment = repo_assignments.get_assignment(session=session, assignment_id=post.assignment_id)
    user = repo_users.get_user(session=session, user_id=post.user_id)
    if assignment is None or user is None:
        return 0  # deleted meanwhile (its row went with it)
    targets = repo_lti.score_targets(session=session, assignment_id=assignment.id, user_id=user.id)
    if not targets:
        return 0
    ext = repo_assignments.user_extensions(session=session, user_id=user.id).get(assignment.id)
    row = gradebook.student_row(
        session=session, assignment=assignment, user_id=user.id, username=user.username, ext=ext
    )
    maximum = sum(p.points for p in assignment.problems) or 1.0
    pending = any(cell.pending for cell in row.cells)
    tried = any(cell.attempts for cell in row.cells)
    for target in targets:
        grade = (
            Grade()
            .set_score_given(min(row.total, maximum))
            .set_score_maximum(maximum)
            .set_timestamp(post.changed_at.isoformat())
            .set_activity_progress("Submitted" if tried else "Initialized")
            .set_grading_progress("Pending" if pending else "FullyGraded")
            .set_user_id(target.sub)
        )
        connector = connectors.get(target.platform_id)
        if connector is None:  # one per platform and pass: it keeps its access token
            registration = _registration(session, target.platform_id)
            connector = connectors[target.platform_id] = ServiceConnector(
                registration, TimeoutSession(timeout_s)
            )
        ags = AssignmentsGradesService(
            connector, {"scope": [SCORE_SCOPE], "lineitem": target.line_item_url}
        )
        ags.put_grade(grade)
    return len(targets)


def post_due(session_factory: Callable[[], Session], timeout_s: float) -> tuple[int, int]:
    """One pass over the due posts; returns (posted, failed)."""
    done = failed = 0
    connectors: Connectors = {}
    with session_factory() as session:
        due = lti_scores.due(session=session)
    for post in due:
        with session_factory() as session:
            try:
                _post_one(session, post, timeout_s, connectors)
            except Exception as exc:  # the platform's doing, or gone: try again later
                session.rollback()
                lti_scores.failed(session=session, post=post, error=f"{type(exc).__name__}: {exc}")
                log.warning(
                    "LTI score of user %d for assignment %d not posted (try %d): %s",
                    post.user_id,
                    post.assignment_id,
                    post.tries + 1,
                    exc,
                )
                failed += 1
                continue
            lti_scores.posted(session=session, post=post)
            done += 1
    return done, failed


def run(runtime: Runtime, stop: threading.Event) -> None:
    """The sweeper's thread for posting: a platform that hangs for its whole timeout on
    every post delays only the scores, never the sweeper's resends of lost gradings."""
    while not stop.is_set():
        try:
            post_due(runtime.session_factory, runtime.settings.lti_timeout_s)
        except Exception as exc:  # the database away for a moment: the next pass tries again
            log.warning(
                "LTI score posting failed: %s", first_line(exc), exc_info=not is_transient(exc)
            )
        stop.wait(runtime.settings.sweep_interval_s)

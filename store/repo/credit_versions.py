"""`assignments.credit_version`: bumped in the transaction of every change that may change
a credit in the assignment (a submission made, judged or rejudged on one of its problems,
an extension, an override, an edit), so that a gradebook cached for a version is never
served once it is stale (store/repo/gradebook.py). The points are those that queue an LMS
score post (store/repo/lti_scores.py), and a submission made or rejudged: the gradebook
also shows what is pending and the attempts made.

Bumped before the score post is queued: an edit locks the assignment's row and then its
students' posts, so every transaction takes the assignment's row first (no deadlock).
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from store.models import Assignment, AssignmentProblem


def bump(*, session: Session, assignment_id: int) -> None:
    session.execute(
        update(Assignment)
        .where(Assignment.id == assignment_id)
        .values(credit_version=Assignment.credit_version + 1)
        .execution_options(synchronize_session="fetch")
    )


def bump_for_problems(*, session: Session, problems: list[str]) -> None:
    """Every assignment with one of the problems (one indexed lookup when there is none)."""
    if not problems:
        return
    session.execute(
        update(Assignment)
        .where(
            Assignment.id.in_(
                select(AssignmentProblem.assignment_id).where(
                    AssignmentProblem.problem.in_(problems)
                )
            )
        )
        .values(credit_version=Assignment.credit_version + 1)
        .execution_options(synchronize_session="fetch")
    )


def current(*, session: Session, assignment_id: int) -> int:
    """The assignment's credit version as committed now (not the session's copy of it)."""
    found = session.scalar(
        select(Assignment.credit_version)
        .where(Assignment.id == assignment_id)
        .execution_options(populate_existing=True)
    )
    return found or 0

"""What assignments mean for one student's submission: refused beyond an attempt limit
while the assignment is open, or practice (counting for nothing) once past their cutoff
of every assignment with the problem. What they are shown of its judging is the
students' view's (store/repo/releases.py)."""

from __future__ import annotations

from datetime import datetime

from fastapi import HTTPException, status
from sqlalchemy.orm import Session

from store.credit import Deadline, when_text
from store.models import Assignment, Role, User
from store.repo import assignments as repo_assignments
from store.repo.limits import lock_user


def deadlines(
    session: Session, user_id: int, problem: str, now: datetime
) -> list[tuple[Assignment, Deadline]]:
    """The released assignments with the problem, each with the student's deadline."""
    found = repo_assignments.assignments_with(session=session, problem=problem, now=now)
    if not found:
        return []
    exts = repo_assignments.user_extensions(session=session, user_id=user_id)
    return [(a, repo_assignments.deadline_for(a, exts.get(a.id))) for a in found]


def practice_note(found: list[tuple[Assignment, Deadline]], made: datetime) -> str | None:
    """Why a submission made at `made` counts for nothing; None when it counts (or the
    problem is in no assignment)."""
    if not found or any(made <= when.cutoff for _, when in found):
        return None
    titles = ", ".join(f"{a.title!r} (closed {when_text(when.cutoff)})" for a, when in found)
    return f"Practice: past your deadline of {titles}; this submission counts for nothing."


def check_submit(session: Session, user: User, problem: str) -> str | None:
    """Before a student's submission is made: 409 when the attempt limit is reached in
    every open assignment with the problem (in another it would still count); else its
    practice note (None when it counts). Locks the student's row first, so that two
    submissions at once cannot both take the last attempt."""
    if user.role == Role.INSTRUCTOR:
        return None
    now = lock_user(session=session, user_id=user.id)
    found = deadlines(session, user.id, problem, now)
    open_ = [(a, when) for a, when in found if now <= when.cutoff]
    refusals = [
        refusal
        for a, when in open_
        if (refusal := _over_limit(session, user.id, problem, a, when)) is not None
    ]
    if open_ and len(refusals) == len(open_):
        raise HTTPException(status.HTTP_409_CONFLICT, detail=refusals[0])
    return practice_note(found, now)


def _over_limit(
    session: Session, user_id: int, problem: str, assignment: Assignment, when: Deadline
) -> str | None:
    rule = next(p for p in assignment.problems if p.problem == problem)
    if rule.max_attempts is None:
        return None
    used = repo_assignments.count_attempts(
        session=session,
        user_id=user_id,
        problem=problem,
        since=assignment.release_at,
        until=when.cutoff,
    )
    if used < rule.max_attempts:
        return None
    return (
        f"you have used all {rule.max_attempts} attempts at {problem} for "
        f"{assignment.title!r}; you may submit again after {when_text(when.cutoff)}, "
        "as practice"
    )

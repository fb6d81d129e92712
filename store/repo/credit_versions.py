"""`assignments.credit_version`: bumped in the transaction of every change that may change
a credit in the assignment (a submission made, judged or rejudged on one of its problems,
an extension, an override, an edit), so that a gradebook cached for a version is never
served once it is stale (store/repo/gradebook.py). The points are those that queue an LMS
score post (store/repo/lti_scores.py), and a submission made or rejudged: the gradebook
also shows what is pending and the attempts made.

Each bump also writes whose credit it may change (`credit_changes`, in the same
transaction, with the version it made): a cached gradebook a few versions old recomputes
only those students' rows (`changed_since`). None: anyone's (an edit, a problem-wide
rejudge), the whole table.

Bumped before the score post is queued: an edit locks the assignment's row and then its
students' posts, so every transaction takes the assignment's row first (no deadlock). The
row lock also orders the bumps: a version read committed has every smaller one committed
(or rolled back and made again), so its change rows are all there to be read after it.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from store.models import Assignment, AssignmentProblem, CreditChange

# Change rows kept per assignment: a gradebook cached more versions ago than this (a class
# not read for a while) is computed in full. Pruned on one bump in PRUNE_EVERY (an indexed
# range delete of about that many rows), so a bump costs one insert.
KEEP_VERSIONS = 1000
PRUNE_EVERY = 100
# More students than this in one bump (a rejudge of many submissions): recorded as anyone's.
MAX_USERS = 100


def _record(
    session: Session, bumped: list[tuple[int, int]], user_ids: Collection[int] | None
) -> None:
    """(assignment id, new version) bumped: its change rows, and old ones pruned."""
    whose: list[int | None] = [None]
    if user_ids is not None and 0 < len(set(user_ids)) <= MAX_USERS:
        whose = list(sorted(set(user_ids)))
    rows = [
        {"assignment_id": aid, "version": version, "user_id": uid}
        for aid, version in bumped
        for uid in whose
    ]
    if rows:
        session.execute(insert(CreditChange), rows)
    for aid, version in bumped:
        if version % PRUNE_EVERY == 0:
            session.execute(
                delete(CreditChange).where(
                    CreditChange.assignment_id == aid,
                    CreditChange.version <= version - KEEP_VERSIONS,
                )
            )


def bump(*, session: Session, assignment_id: int, user_id: int | None) -> None:
    """`user_id`: the one student whose credit the change may change; None: anyone's."""
    bumped = session.execute(
        update(Assignment)
        .where(Assignment.id == assignment_id)
        .values(credit_version=Assignment.credit_version + 1)
        .returning(Assignment.id, Assignment.credit_version)
        .execution_options(synchronize_session="fetch")
    ).all()
    _record(
        session, [(aid, version) for aid, version in bumped], None if user_id is None else [user_id]
    )


def bump_for_problems(
    *, session: Session, problems: list[str], user_ids: Collection[int] | None
) -> None:
    """Every assignment with one of the problems (one indexed lookup when there is none).
    `user_ids`: the students whose credit the change may change (a submission's author);
    None: anyone's (a problem-wide rejudge)."""
    if not problems:
        return
    bumped = session.execute(
        update(Assignment)
        .where(
            Assignment.id.in_(
                select(AssignmentProblem.assignment_id).where(
                    AssignmentProblem.problem.in_(problems)
                )
            )
        )
        .values(credit_version=Assignment.credit_version + 1)
        .returning(Assignment.id, Assignment.credit_version)
        .execution_options(synchronize_session="fetch")
    ).all()
    _record(session, [(aid, version) for aid, version in bumped], user_ids)


def current(*, session: Session, assignment_id: int) -> int:
    """The assignment's credit version as committed now (not the session's copy of it)."""
    found = session.scalar(
        select(Assignment.credit_version)
        .where(Assignment.id == assignment_id)
        .execution_options(populate_existing=True)
    )
    return found or 0


def changed_since(
    *, session: Session, assignment_id: int, since: int, upto: int
) -> set[int] | None:
    """The students whose credit the bumps after version `since` up to `upto` may change;
    None when one may change anyone's or a version's rows are missing (pruned, or bumped
    before there were any): then compute it all. Read after `upto` was read, so every
    version up to it has its rows committed."""
    if upto <= since:
        return set()
    rows = session.execute(
        select(CreditChange.version, CreditChange.user_id).where(
            CreditChange.assignment_id == assignment_id,
            CreditChange.version > since,
            CreditChange.version <= upto,
        )
    ).all()
    if len({version for version, _ in rows}) != upto - since:
        return None
    users = {uid for _, uid in rows}
    if None in users:
        return None
    return {uid for uid in users if uid is not None}

"""Regrades: the scores a rejudge preview (store/repo/rejudge_previews.py) would change, per
assignment with the problem, student and problem (store/score_changes.py computes them),
and, once applied, those scores kept in `regrade_scores` as the assignment's history.

Per assignment: its extensions, overrides and the attempts that can count (the gradebook's
query, store/repo/assignments.py), read once; then pure Python per student who submitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import score_changes
from store.models import (
    Assignment,
    AssignmentProblem,
    RegradeScore,
    StrengthReport,
    User,
    utcnow,
)
from store.repo import assignments as repo_assignments
from store.repo import rejudge_previews as previews


@dataclass(frozen=True)
class ScoreChange:
    assignment_id: int
    assignment: str  # its title
    user_id: int
    student: str
    problem: str
    old: float
    new: float
    old_total: float
    new_total: float
    overridden: bool
    reason: str
    credited: tuple[int, ...]  # the submissions credited before and after


def regraded(row: StrengthReport) -> dict[int, score_changes.Regraded]:
    """submission id -> its new verdict and tests per kind, for those the preview graded."""
    found = {}
    for sid, result in row.report["results"].items():
        if result.get("verdict") is None:  # deleted since: nothing to substitute
            continue
        kinds = {kind: (int(p), int(t)) for kind, (p, t) in (result.get("kinds") or {}).items()}
        found[int(sid)] = score_changes.Regraded(result["verdict"], kinds)
    return found


def changes(*, session: Session, slug: str, row: StrengthReport) -> list[ScoreChange]:
    """Every score of `slug` the preview changes, in every assignment with it, by
    assignment and student."""
    new = regraded(row)
    if not new:
        return []
    # Students only, as in the gradebook (an instructor's own submissions score nothing).
    names = {s.id: s.username for s in repo_assignments.students(session=session)}
    chosen = select(Assignment).join(AssignmentProblem).where(AssignmentProblem.problem == slug)
    found: list[ScoreChange] = []
    for assignment in session.scalars(chosen.order_by(Assignment.id)):
        exts = {
            ext.user_id: ext
            for ext, _, _ in repo_assignments.extensions(
                session=session, assignment_id=assignment.id
            )
        }
        until = max(
            [repo_assignments.deadline_for(assignment, None).cutoff]
            + [repo_assignments.deadline_for(assignment, e).cutoff for e in exts.values()]
        )
        tries = repo_assignments.attempts(session=session, assignment=assignment, until=until)
        overrides: dict[int, dict[str, float]] = {}
        for (uid, problem), o in repo_assignments.overrides(
            session=session, assignment_id=assignment.id
        ).items():
            overrides.setdefault(uid, {})[problem] = o.score
        rules = repo_assignments.rules_of(assignment)
        for uid, attempts in tries.items():
            if uid not in names or not any(a.id in new for a in attempts):
                continue
            when = repo_assignments.deadline_for(assignment, exts.get(uid))
            change = score_changes.problem_change(
                rules, when, attempts, new, slug, overrides.get(uid, {})
            )
            if change is not None:
                found.append(
                    ScoreChange(
                        assignment.id,
                        assignment.title,
                        uid,
                        names[uid],
                        change.problem,
                        change.old,
                        change.new,
                        change.old_total,
                        change.new_total,
                        change.overridden,
                        change.reason,
                        change.credited,
                    )
                )
    found.sort(key=lambda c: (c.assignment_id, c.student))
    return found


def to_rejudge(row: StrengthReport, found: list[ScoreChange]) -> list[int]:
    """What applying the preview rejudges: the submissions whose verdict it changes, and
    those a changed score credits whose test counts change (a score by tests moves with
    them while the verdict stays); no other, so a board every submission passes moves none."""
    ids = {c.submission_id for c in previews.changes(row) if c.changed}
    results = row.report["results"]
    for item in row.report["items"]:
        new = results.get(str(item["id"]), {})
        credited = any(item["id"] in c.credited for c in found)
        counts = (new.get("passed"), new.get("total")) != (item["passed"], item["total"])
        if credited and new.get("verdict") is not None and counts:
            ids.add(item["id"])
    return sorted(ids)


def record(*, session: Session, key: str, found: list[ScoreChange], applied_by: int | None) -> None:
    """Keep the scores a regrade being applied replaces (flushed, the caller commits)."""
    now = utcnow()
    for c in found:
        session.add(
            RegradeScore(
                assignment_id=c.assignment_id,
                user_id=c.user_id,
                problem=c.problem,
                preview_key=key,
                applied_by=applied_by,
                applied_at=now,
                old_score=c.old,
                new_score=c.new,
                old_total=c.old_total,
                new_total=c.new_total,
                overridden=c.overridden,
                reason=c.reason,
            )
        )
    session.flush()


@dataclass(frozen=True)
class Applied:
    id: int
    student: str
    problem: str
    preview_key: str
    applied_by: str | None
    applied_at: datetime
    old_score: float
    new_score: float
    old_total: float
    new_total: float
    overridden: bool
    reason: str


def history(*, session: Session, assignment_id: int) -> list[Applied]:
    """The assignment's applied regrades' scores, newest first."""
    student = User.__table__.alias("student")
    rows = session.execute(
        select(
            RegradeScore.id,
            student.c.username,
            RegradeScore.problem,
            RegradeScore.preview_key,
            User.username,
            RegradeScore.applied_at,
            RegradeScore.old_score,
            RegradeScore.new_score,
            RegradeScore.old_total,
            RegradeScore.new_total,
            RegradeScore.overridden,
            RegradeScore.reason,
        )
        .join(student, student.c.id == RegradeScore.user_id)
        .outerjoin(User, User.id == RegradeScore.applied_by)
        .where(RegradeScore.assignment_id == assignment_id)
        .order_by(RegradeScore.applied_at.desc(), RegradeScore.id)
    )
    return [Applied(*row) for row in rows]

"""An assignment's gradebook: per student and problem, the credit (store/credit.py) or an
instructor's override, and the total. Two queries per assignment whatever the class size
(store/repo/assignments.py says which indexes they read), then pure Python."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from store import credit
from store.models import Assignment, Extension
from store.repo import assignments as repo_assignments


@dataclass(frozen=True)
class Cell:
    problem: str
    points: float
    score: float
    reason: str
    submission_id: int | None
    pending: bool
    attempts: int
    overridden: bool = False
    override_author: str | None = None


@dataclass(frozen=True)
class Row:
    user_id: int
    username: str
    disabled: bool
    deadline: credit.Deadline
    cells: list[Cell]

    @property
    def total(self) -> float:
        return round(sum(c.score for c in self.cells), 4)


def _latest_cutoff(assignment: Assignment, exts: list[Extension]) -> datetime:
    cutoffs = [repo_assignments.deadline_for(assignment, None).cutoff]
    cutoffs += [repo_assignments.deadline_for(assignment, e).cutoff for e in exts]
    return max(cutoffs)


def _cells(
    assignment: Assignment,
    when: credit.Deadline,
    tries: list[credit.Attempt],
    overrides: dict[str, tuple[float, str, str | None]],
) -> list[Cell]:
    cells = []
    for c in credit.credit(repo_assignments.rules_of(assignment), when, tries):
        cell = Cell(c.problem, c.points, c.score, c.reason, c.submission_id, c.pending, c.attempts)
        if c.problem in overrides:
            score, comment, author = overrides[c.problem]
            by = f" by {author}" if author else ""
            reason = f"set to {score:g}{by}: {comment}" if comment else f"set to {score:g}{by}"
            cell = Cell(
                c.problem,
                c.points,
                score,
                reason,
                c.submission_id,
                False,
                c.attempts,
                overridden=True,
                override_author=author,
            )
        cells.append(cell)
    return cells


def gradebook(*, session: Session, assignment: Assignment) -> list[Row]:
    """One row per student (by username), whether they submitted or not."""
    exts = {
        ext.user_id: ext
        for ext, _, _ in repo_assignments.extensions(session=session, assignment_id=assignment.id)
    }
    until = _latest_cutoff(assignment, list(exts.values()))
    tries = repo_assignments.attempts(session=session, assignment=assignment, until=until)
    overridden: dict[int, dict[str, tuple[float, str, str | None]]] = {}
    for (uid, problem), o in repo_assignments.overrides(
        session=session, assignment_id=assignment.id
    ).items():
        author = o.author.username if o.author else None
        overridden.setdefault(uid, {})[problem] = (o.score, o.comment, author)
    rows = []
    for student in repo_assignments.students(session=session):
        when = repo_assignments.deadline_for(assignment, exts.get(student.id))
        cells = _cells(assignment, when, tries.get(student.id, []), overridden.get(student.id, {}))
        rows.append(Row(student.id, student.username, student.disabled, when, cells))
    return rows


def student_row(
    *, session: Session, assignment: Assignment, user_id: int, username: str, ext: Extension | None
) -> Row:
    """One student's row (their own view)."""
    when = repo_assignments.deadline_for(assignment, ext)
    tries = repo_assignments.attempts(
        session=session, assignment=assignment, until=when.cutoff, user_id=user_id
    )
    overridden = {
        problem: (o.score, o.comment, o.author.username if o.author else None)
        for (uid, problem), o in repo_assignments.overrides(
            session=session, assignment_id=assignment.id
        ).items()
        if uid == user_id
    }
    cells = _cells(assignment, when, tries.get(user_id, []), overridden)
    return Row(user_id, username, False, when, cells)

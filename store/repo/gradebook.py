"""An assignment's gradebook: per student and problem, the credit (store/credit.py) or an
instructor's override, and the total. A few queries per assignment whatever the class size
(store/repo/assignments.py says which indexes they read), then pure Python; the result is
kept per assignment until a change that may change a credit (`_computed`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from store import credit
from store.models import Assignment, Extension
from store.repo import assignments as repo_assignments
from store.repo import credit_versions


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


@dataclass(frozen=True)
class _Computed:
    """An assignment's credit: per student with a submission, an extension or an override,
    their deadline and cells; `default`, every other student's."""

    rows: dict[int, tuple[credit.Deadline, tuple[Cell, ...]]]
    default: tuple[credit.Deadline, tuple[Cell, ...]]


# (database, assignment id) -> the stamp it was computed for and its credit. Computing it
# reads every submission to the assignment's problems; a stamp holds until a change that
# may change a credit bumps the version (store/repo/credit_versions.py), so a stale one is
# never served. One per assignment; the least recently read go first.
Stamp = tuple[datetime, datetime, int]
CACHE_SIZE = 64
_cache: OrderedDict[tuple[str, int], tuple[Stamp, _Computed]] = OrderedDict()
_cache_lock = threading.Lock()
# What a caller rendered from a cached credit and the roster it was rendered for (see
# `rendered`): (database, assignment id, render) -> (credit, roster, body).
Roster = tuple[repo_assignments.Student, ...]
_rendered: OrderedDict[tuple[str, int, object], tuple[_Computed, Roster, bytes]] = OrderedDict()


def forget_cached() -> None:
    """Empty the cache (tests)."""
    with _cache_lock:
        _cache.clear()
        _rendered.clear()


def _keep(cache: OrderedDict, key: object, value: object) -> None:
    """Under _cache_lock: keep `value`, dropping the least recently read past CACHE_SIZE."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


def _compute(session: Session, assignment: Assignment) -> _Computed:
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
    rows = {}
    for uid in set(exts) | set(tries) | set(overridden):
        when = repo_assignments.deadline_for(assignment, exts.get(uid))
        cells = _cells(assignment, when, tries.get(uid, []), overridden.get(uid, {}))
        rows[uid] = (when, tuple(cells))
    when = repo_assignments.deadline_for(assignment, None)
    return _Computed(rows, (when, tuple(_cells(assignment, when, [], {}))))


def _database(session: Session) -> str:
    return str(session.get_bind().engine.url)


def _computed(session: Session, assignment: Assignment) -> _Computed:
    key = (_database(session), assignment.id)
    # The version is read before the submissions, so what is computed is at least as new as
    # the version it is kept for; the rules are the loaded object's, hence its own stamps.
    version = credit_versions.current(session=session, assignment_id=assignment.id)
    stamp = (assignment.created_at, assignment.updated_at, version)
    with _cache_lock:
        held = _cache.get(key)
        if held is not None and held[0] == stamp:
            _cache.move_to_end(key)
            return held[1]
    computed = _compute(session, assignment)
    with _cache_lock:
        _keep(_cache, key, (stamp, computed))
    return computed


def _rows(computed: _Computed, roster: Roster) -> list[Row]:
    rows = []
    for student in roster:
        when, cells = computed.rows.get(student.id, computed.default)
        rows.append(Row(student.id, student.username, student.disabled, when, list(cells)))
    return rows


def gradebook(*, session: Session, assignment: Assignment) -> list[Row]:
    """One row per student (by username), whether they submitted or not."""
    roster = tuple(repo_assignments.students(session=session))
    return _rows(_computed(session, assignment), roster)


def rendered(
    *,
    session: Session,
    assignment: Assignment,
    render: Callable[[Assignment, list[Row]], bytes],
) -> bytes:
    """render(assignment, the gradebook's rows), kept while the credit and the roster stay
    the same: a class's table read again is served without building and encoding its rows
    again (most of its time at 2,000 students). `render` is one function for the life of
    the process (it is part of the key) and reads nothing else; a change to the assignment
    makes a new credit, so it is rendered again."""
    computed = _computed(session, assignment)
    roster = tuple(repo_assignments.students(session=session))
    key = (_database(session), assignment.id, render)
    with _cache_lock:
        held = _rendered.get(key)
        if held is not None and held[0] is computed and held[1] == roster:
            _rendered.move_to_end(key)
            return held[2]
    body = render(assignment, _rows(computed, roster))
    with _cache_lock:
        _keep(_rendered, key, (computed, roster, body))
    return body


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

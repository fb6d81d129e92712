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


@dataclass(frozen=True)
class Render:
    """How a caller encodes the gradebook, row by row: the body is `frame(assignment)`'s
    first part, each row's `row(row)` joined by `separator`, then the frame's second part.
    So a row unchanged since the last body is not encoded again (`rendered`). One object
    for the life of the process (it is part of the cache's key); its functions read
    nothing else."""

    frame: Callable[[Assignment], tuple[bytes, bytes]]
    row: Callable[[Row], bytes]
    separator: bytes = b","


# (database, assignment id) -> the stamp it was computed for and its credit. Computing it
# reads every submission to the assignment's problems; a stamp holds until a change that
# may change a credit bumps the version (store/repo/credit_versions.py), so a stale one is
# never served. A credit a few versions old whose bumps each name their students is brought
# up to date by recomputing those students' rows only (`_computed`). One per assignment; the
# least recently read go first.
Stamp = tuple[datetime, datetime, int]
CACHE_SIZE = 64
# Recomputed by rows while the students changed are at most this share of the rows kept
# (or INCREMENTAL_MIN): more, and one query for all is as quick.
INCREMENTAL_SHARE = 0.1
INCREMENTAL_MIN = 20
_cache: OrderedDict[tuple[str, int], tuple[Stamp, _Computed]] = OrderedDict()
_cache_lock = threading.Lock()
Roster = tuple[repo_assignments.Student, ...]
Entry = tuple[credit.Deadline, tuple[Cell, ...]]


@dataclass(frozen=True)
class _Body:
    """What a caller rendered from a cached credit and the roster it was rendered for (see
    `rendered`), with where each student's row is in it and the entry it was encoded from."""

    computed: _Computed
    roster: Roster
    body: bytes
    spans: dict[int, tuple[repo_assignments.Student, Entry, int, int]]


# (database, assignment id, render) -> the body last rendered.
_rendered: OrderedDict[tuple[str, int, object], _Body] = OrderedDict()


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


_Overrides = dict[int, dict[str, tuple[float, str, str | None]]]


def _overridden(
    session: Session, assignment: Assignment, user_ids: set[int] | None = None
) -> _Overrides:
    found: _Overrides = {}
    for (uid, problem), o in repo_assignments.overrides(
        session=session, assignment_id=assignment.id, user_ids=user_ids
    ).items():
        author = o.author.username if o.author else None
        found.setdefault(uid, {})[problem] = (o.score, o.comment, author)
    return found


def _entries(
    assignment: Assignment,
    users: set[int],
    exts: dict[int, Extension],
    tries: dict[int, list[credit.Attempt]],
    overridden: _Overrides,
) -> dict[int, Entry]:
    """The rows of `users` that differ from the default (a submission, an extension or an
    override)."""
    rows = {}
    for uid in users:
        if uid not in exts and uid not in tries and uid not in overridden:
            continue
        when = repo_assignments.deadline_for(assignment, exts.get(uid))
        cells = _cells(assignment, when, tries.get(uid, []), overridden.get(uid, {}))
        rows[uid] = (when, tuple(cells))
    return rows


def _compute(session: Session, assignment: Assignment) -> _Computed:
    exts = {
        ext.user_id: ext
        for ext, _, _ in repo_assignments.extensions(session=session, assignment_id=assignment.id)
    }
    until = _latest_cutoff(assignment, list(exts.values()))
    tries = repo_assignments.attempts(session=session, assignment=assignment, until=until)
    overridden = _overridden(session, assignment)
    rows = _entries(assignment, set(exts) | set(tries) | set(overridden), exts, tries, overridden)
    when = repo_assignments.deadline_for(assignment, None)
    return _Computed(rows, (when, tuple(_cells(assignment, when, [], {}))))


def _recompute(
    session: Session, assignment: Assignment, held: _Computed, users: set[int]
) -> _Computed:
    """`held` with the rows of `users` computed again (the same queries as `_compute`, of
    their rows only); every other row and the default are shared with it."""
    exts = repo_assignments.extensions_of(
        session=session, assignment_id=assignment.id, user_ids=users
    )
    until = _latest_cutoff(assignment, list(exts.values()))
    tries = repo_assignments.attempts(
        session=session, assignment=assignment, until=until, user_ids=users
    )
    overridden = _overridden(session, assignment, users)
    fresh = _entries(assignment, users, exts, tries, overridden)
    rows = {uid: entry for uid, entry in held.rows.items() if uid not in users}
    rows.update(fresh)
    return _Computed(rows, held.default)


def _database(session: Session) -> str:
    return str(session.get_bind().engine.url)


def _computed(session: Session, assignment: Assignment) -> _Computed:
    key = (_database(session), assignment.id)
    # The version is read before the submissions (and before the changes since the cached
    # version), so what is computed is at least as new as the version it is kept for; the
    # rules are the loaded object's, hence its own stamps.
    version = credit_versions.current(session=session, assignment_id=assignment.id)
    stamp = (assignment.created_at, assignment.updated_at, version)
    with _cache_lock:
        held = _cache.get(key)
        if held is not None and held[0] == stamp:
            _cache.move_to_end(key)
            return held[1]
    computed = None
    if held is not None and held[0][:2] == stamp[:2] and held[0][2] < version:
        users = credit_versions.changed_since(
            session=session, assignment_id=assignment.id, since=held[0][2], upto=version
        )
        limit = max(INCREMENTAL_MIN, int(len(held[1].rows) * INCREMENTAL_SHARE))
        if users is not None and len(users) <= limit:
            computed = _recompute(session, assignment, held[1], users)
    if computed is None:
        computed = _compute(session, assignment)
    with _cache_lock:
        newer = _cache.get(key)
        # Not over a newer one kept meanwhile by another request.
        if newer is None or newer[0][:2] != stamp[:2] or newer[0][2] <= version:
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


def rendered(*, session: Session, assignment: Assignment, render: Render) -> bytes:
    """The gradebook encoded by `render`, kept while the credit and the roster stay the
    same: a class's table read again is served without building and encoding its rows
    again (most of its time at 2,000 students). After a change, only the rows whose student
    or entry differ from the last body's are encoded; the others are copied from it. A
    change to the assignment makes a new credit, so the frame is encoded again."""
    computed = _computed(session, assignment)
    roster = tuple(repo_assignments.students(session=session))
    key = (_database(session), assignment.id, render)
    with _cache_lock:
        held = _rendered.get(key)
        if held is not None and held.computed is computed and held.roster == roster:
            _rendered.move_to_end(key)
            return held.body
    old = memoryview(held.body) if held is not None else None
    old_spans = held.spans if held is not None else {}
    head, tail = render.frame(assignment)
    parts: list[bytes | memoryview] = [head]
    spans = {}
    at = len(head)
    for i, student in enumerate(roster):
        if i:
            parts.append(render.separator)
            at += len(render.separator)
        entry = computed.rows.get(student.id, computed.default)
        part: bytes | memoryview
        was = old_spans.get(student.id)
        if (
            old is not None
            and was is not None
            and was[0] == student
            and (was[1] is entry or was[1] == entry)
        ):
            part = old[was[2] : was[3]]
        else:
            when, cells = entry
            part = render.row(
                Row(student.id, student.username, student.disabled, when, list(cells))
            )
        parts.append(part)
        spans[student.id] = (student, entry, at, at + len(part))
        at += len(part)
    parts.append(tail)
    body = b"".join(parts)
    with _cache_lock:
        _keep(_rendered, key, _Body(computed, roster, body, spans))
    return body


def student_row(
    *, session: Session, assignment: Assignment, user_id: int, username: str, ext: Extension | None
) -> Row:
    """One student's row (their own view)."""
    when = repo_assignments.deadline_for(assignment, ext)
    tries = repo_assignments.attempts(
        session=session, assignment=assignment, until=when.cutoff, user_id=user_id
    )
    overridden = _overridden(session, assignment, {user_id}).get(user_id, {})
    cells = _cells(assignment, when, tries.get(user_id, []), overridden)
    return Row(user_id, username, False, when, cells)

"""The one catalog the API and the pages ask which problems there are and what each shows:
the built-in packages (`judge.problems.registry()`) and the uploaded problems with a
published version, from the manifest stored with that version.

An uploaded problem is a declared spec here (judge/problems/declared.py): the API never runs
its problem.py; the worker does, in the sandbox. States: published (everyone sees it),
retired (seen, no new submissions or runs), hidden (students do not see it at all), draft
(no published version yet: in no list but the instructors' /problems/manage).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from fastapi import HTTPException, status
from sqlalchemy.orm import Session

from judge import problems
from judge.problems.declared import declared_spec
from store.models import ProblemState
from store.repo import problem_packages

MAX_SPECS = 256  # declared specs kept in this process, by version id (a version never changes)

_specs: OrderedDict[int, tuple[problems.ProblemSpec, Mapping[str, int]]] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class Entry:
    slug: str
    spec: problems.ProblemSpec
    builtin: bool
    state: str  # a ProblemState; built-ins are always published
    version_id: int | None = None  # uploaded: the published version
    # uploaded: its test plan's sizes the worker learned ({"small_positions", "worst",
    # "hidden"}): its spec has no code to count them with
    plan: Mapping[str, int] | None = None


def _declared(
    session: Session, wanted: list[problem_packages.Published]
) -> dict[int, tuple[problems.ProblemSpec, Mapping[str, int]]]:
    with _lock:
        known = {p.version_id: _specs[p.version_id] for p in wanted if p.version_id in _specs}
    missing = [p.version_id for p in wanted if p.version_id not in known]
    for version_id, manifest in problem_packages.manifests(
        session=session, version_ids=missing
    ).items():
        known[version_id] = (declared_spec(manifest), dict(manifest.get("plan") or {}))
        with _lock:
            _specs[version_id] = known[version_id]
            while len(_specs) > MAX_SPECS:
                _specs.popitem(last=False)
    return known


def entries(session: Session) -> dict[str, Entry]:
    """Every problem with something to show: the built-ins, then the uploaded ones with a
    published version (in any state), each in slug order."""
    found = {
        slug: Entry(slug, spec, True, ProblemState.PUBLISHED)
        for slug, spec in problems.registry().items()
    }
    uploaded = problem_packages.published(session=session)
    specs = _declared(session, uploaded)
    for p in uploaded:
        if p.slug not in found:  # a built-in slug is never uploaded (the API refuses it)
            spec, plan = specs[p.version_id]
            found[p.slug] = Entry(p.slug, spec, False, p.state, p.version_id, plan)
    return found


def shown(session: Session, instructor: bool = False) -> dict[str, problems.ProblemSpec]:
    """What a list shows: every problem but the hidden ones (instructors see those too)."""
    return {
        slug: e.spec
        for slug, e in entries(session).items()
        if instructor or e.state != ProblemState.HIDDEN
    }


def lookup(session: Session, slug: str, instructor: bool = False) -> Entry | None:
    """The problem `slug` as a viewer sees it: None when unknown, or hidden from students."""
    if slug in problems.registry():
        return Entry(slug, problems.registry()[slug], True, ProblemState.PUBLISHED)
    entry = entries(session).get(slug)
    if entry is None or (entry.state == ProblemState.HIDDEN and not instructor):
        return None
    return entry


def find(session: Session, slug: str, instructor: bool = False) -> problems.ProblemSpec:
    """The problem a URL names; 404 when there is none for this viewer."""
    entry = lookup(session, slug, instructor)
    if entry is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"unknown problem {slug!r}")
    return entry.spec


def known(session: Session, slug: str, instructor: bool = False) -> problems.ProblemSpec:
    """The problem a body names; 422 when there is none (a body's field, not the URL)."""
    entry = lookup(session, slug, instructor)
    if entry is None:
        names = ", ".join(shown(session, instructor))
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"unknown problem {slug!r} (known: {names})",
        )
    return entry.spec


def open_for_work(session: Session, slug: str, instructor: bool = False) -> problems.ProblemSpec:
    """The problem a new submission or run names: 422 unknown, 409 retired or hidden."""
    entry = lookup(session, slug, instructor)
    if entry is None:
        return known(session, slug, instructor)  # raises 422, naming the known ones
    if entry.state != ProblemState.PUBLISHED:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=f"this problem is {entry.state}")
    return entry.spec


def builtin(slug: str) -> problems.ProblemSpec:
    """A built-in problem (what needs a problem's code in the API process: the strength
    report); 404 otherwise, saying why for an uploaded one."""
    spec = problems.registry().get(slug)
    if spec is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"unknown problem {slug!r}")
    return spec


def is_uploaded(session: Session, slug: str) -> bool:
    return (
        slug not in problems.registry()
        and problem_packages.get_problem(session=session, slug=slug) is not None
    )

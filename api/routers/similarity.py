"""Code similarity for instructors: the pairs of students whose submissions of a problem (or
of an assignment's problems) are alike, found by the worker as submissions arrive
(worker/similarity.py), with clusters, a pair side by side, a "reviewed: not copied" mark and
a CSV.

- `GET /similarity/pairs?problem=...` (or `assignment=ID`; `threshold`, `reviewed`)
- `GET /similarity/pairs.csv` (same parameters)
- `GET /similarity/pairs/{id}`: both sources, their matching fragments, who was first
- `PUT /similarity/pairs/{id}/review` `{"reviewed": true}`
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status
from fastapi.responses import Response
from pydantic import BaseModel, Field

from api import catalog
from api.deps import Instructor, SessionDep
from api.routers.progress import csv_lines, csv_response
from api.schemas import DbId, Slug
from similarity import fingerprints as fp
from similarity.templates import spec_template_hashes, template_mask
from similarity.tokens import tokenize
from store.repo import assignments as assignment_repo
from store.repo import similarity as index

router = APIRouter(tags=["similarity"])

Threshold = Annotated[float, Query(ge=0.0, le=1.0)]
AssignmentId = Annotated[int | None, Query(ge=1, le=2**31 - 1)]  # beyond int4 is just absent


class PairPublic(BaseModel):
    id: int
    problem: str
    score: float  # the mean share of each submission's own tokens in shared code
    a_coverage: float
    b_coverage: float
    matched: int  # shared tokens (the fewer of the two)
    user_a: str
    user_b: str
    submission_a: int
    submission_b: int
    submitted_a: datetime
    submitted_b: datetime
    first: str  # the username of whoever submitted first
    found_at: datetime
    reviewed: bool  # marked "reviewed: not copied"


class PairsPublic(BaseModel):
    threshold: float
    pairs: list[PairPublic]
    # students linked by pairs at or above the threshold, in groups of more than two
    clusters: list[list[str]]


class FragmentPublic(BaseModel):
    a: tuple[int, int]  # character offsets [start, end) in source_a
    b: tuple[int, int]
    tokens: int


class PairDetail(PairPublic):
    language: str
    source_a: str
    source_b: str
    fragments: list[FragmentPublic]


class Review(BaseModel):
    reviewed: bool = Field(description="true: reviewed, not copied; false: unmark")


def _public(row: index.PairRow) -> PairPublic:
    return PairPublic(
        id=row.id,
        problem=row.problem,
        score=round(row.score, 4),
        a_coverage=round(row.a_coverage, 4),
        b_coverage=round(row.b_coverage, 4),
        matched=row.matched,
        user_a=row.user_a,
        user_b=row.user_b,
        submission_a=row.submission_a,
        submission_b=row.submission_b,
        submitted_a=row.created_a,
        submitted_b=row.created_b,
        first=row.user_a if row.created_a <= row.created_b else row.user_b,
        found_at=row.found_at,
        reviewed=row.reviewed,
    )


def clusters(rows: list[index.PairRow]) -> list[list[str]]:
    """Connected groups of more than two students (one copy passed around a group)."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for row in rows:
        parent[root(row.user_a)] = root(row.user_b)
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(root(name), []).append(name)
    return sorted((sorted(g) for g in groups.values() if len(g) > 2), key=lambda g: (-len(g), g))


def _problems(session: SessionDep, problem: str | None, assignment: int | None) -> list[str]:
    if (problem is None) == (assignment is None):
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "give problem or assignment")
    if problem is not None:
        return [problem]
    found = assignment_repo.get_assignment(session=session, assignment_id=assignment or 0)
    if found is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such assignment")
    return [item.problem for item in found.problems]


def _rows(
    session: SessionDep,
    problem: str | None,
    assignment: int | None,
    threshold: float,
    reviewed: bool,
) -> list[index.PairRow]:
    return index.pairs(
        session=session,
        problems=_problems(session, problem, assignment),
        threshold=threshold,
        reviewed=reviewed,
    )


@router.get("/similarity/pairs", response_model=PairsPublic)
def list_pairs(
    session: SessionDep,
    _: Instructor,
    problem: Slug | None = None,
    assignment: AssignmentId = None,
    threshold: Threshold = fp.THRESHOLD,
    reviewed: bool = True,
) -> PairsPublic:
    rows = _rows(session, problem, assignment, threshold, reviewed)
    return PairsPublic(
        threshold=threshold,
        pairs=[_public(row) for row in rows],
        clusters=clusters([row for row in rows if not row.reviewed]),
    )


CSV_HEADER = (
    "problem", "score", "user_a", "submission_a", "submitted_a", "user_b", "submission_b",
    "submitted_b", "first", "matched_tokens", "reviewed",
)  # fmt: skip


def _csv_row(p: PairPublic) -> tuple[object, ...]:
    row = (p.problem, f"{p.score:.3f}", p.user_a, p.submission_a, p.submitted_a, p.user_b)
    return (*row, p.submission_b, p.submitted_b, p.first, p.matched, "yes" if p.reviewed else "")


@router.get("/similarity/pairs.csv")
def pairs_csv(
    session: SessionDep,
    _: Instructor,
    problem: Slug | None = None,
    assignment: AssignmentId = None,
    threshold: Threshold = fp.THRESHOLD,
    reviewed: bool = True,
) -> Response:
    rows = [_public(row) for row in _rows(session, problem, assignment, threshold, reviewed)]
    lines = csv_lines([CSV_HEADER, *(_csv_row(p) for p in rows)])
    return csv_response(lines, f"similarity-{problem or f'assignment-{assignment}'}.csv")


@router.get("/similarity/pairs/{pair_id}", response_model=PairDetail)
def pair_detail(pair_id: DbId, session: SessionDep, _: Instructor) -> PairDetail:
    row = index.pair(session=session, pair_id=pair_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such pair")
    a = index.source(session=session, submission_id=row.submission_a)
    b = index.source(session=session, submission_id=row.submission_b)
    assert a is not None and b is not None  # the pair's foreign keys cascade
    tokens_a, tokens_b = tokenize(a.source, a.language), tokenize(b.source, b.language)
    template = _uploaded_template(session, a.problem, a.language)
    mask_a = template_mask(tokens_a, a.problem, a.language, template)
    mask_b = template_mask(tokens_b, b.problem, b.language, template)
    # The fragments as the worker scored them: the problem's boilerplate is not shown as shared.
    common = index.common_hashes(
        session=session,
        problem=a.problem,
        language=a.language,
        hashes=[
            h for h, _ in fp.fingerprints(tokens_a, mask_a) + fp.fingerprints(tokens_b, mask_b)
        ],
        min_students=fp.COMMON_MIN_STUDENTS,
        share=fp.COMMON_SHARE,
    )
    result = fp.compare(tokens_a, tokens_b, mask_a, mask_b, common=common)
    return PairDetail(
        **_public(row).model_dump(),
        language=a.language,
        source_a=a.source,
        source_b=b.source,
        fragments=[
            FragmentPublic(a=(f.a_start, f.a_end), b=(f.b_start, f.b_end), tokens=f.tokens)
            for f in result.fragments
        ],
    )


def _uploaded_template(session: SessionDep, problem: str, language: str) -> frozenset[int] | None:
    """An uploaded problem's template hashes (from its published manifest); None for a
    built-in, whose templates similarity/ knows."""
    entry = catalog.lookup(session, problem, instructor=True)
    if entry is None or entry.builtin:
        return None
    return spec_template_hashes(entry.spec, language)


@router.put("/similarity/pairs/{pair_id}/review", response_model=PairPublic)
def review_pair(pair_id: DbId, body: Review, session: SessionDep, user: Instructor) -> PairPublic:
    if not index.mark_reviewed(
        session=session, pair_id=pair_id, by=user.id, reviewed=body.reviewed
    ):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such pair")
    row = index.pair(session=session, pair_id=pair_id)
    assert row is not None
    return _public(row)

"""The similarity index and the pairs it finds (similarity/ computes; this stores).

The index is `similarity_fingerprints`, looked up by (problem, language, hash): a new
submission's candidates are the other students' submissions sharing the most fingerprints
with it, one query whose cost follows the number of matching rows, not the number of pairs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from store.db import rowcount
from store.models import (
    Fingerprint,
    SimilarityDocument,
    SimilarPair,
    Submission,
    User,
    utcnow,
)

FINGERPRINT_BATCH = 1000  # rows per INSERT


@dataclass(frozen=True)
class Source:
    id: int
    user_id: int
    problem: str
    language: str
    style: str
    source: str
    created_at: datetime


def source(*, session: Session, submission_id: int) -> Source | None:
    row = session.get(Submission, submission_id)
    if row is None:
        return None
    return Source(
        row.id, row.user_id, row.problem, row.language, row.style, row.source, row.created_at
    )


def sources(*, session: Session, submission_ids: Sequence[int]) -> list[Source]:
    rows = session.scalars(select(Submission).where(Submission.id.in_(list(submission_ids))))
    found = {
        row.id: Source(
            row.id, row.user_id, row.problem, row.language, row.style, row.source, row.created_at
        )
        for row in rows
    }
    return [found[i] for i in submission_ids if i in found]


def is_indexed(*, session: Session, submission_id: int) -> bool:
    return session.get(SimilarityDocument, submission_id) is not None


def add(
    *, session: Session, submission: Source, tokens: int, fingerprints: Sequence[tuple[int, int]]
) -> bool:
    """Put a submission's fingerprints (hash, position) in the index; False when it was
    there already (a redelivered message). The caller commits, once for the fingerprints and
    the pairs: on PostgreSQL without waiting for the disk (synchronous_commit off), since a
    crash can only lose whole transactions of the index, which the submission is then
    simply missing from, never half of one."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL synchronous_commit = off"))
    try:
        with session.begin_nested():
            session.add(SimilarityDocument(submission_id=submission.id, tokens=tokens))
    except IntegrityError:
        session.rollback()
        return False
    rows = [
        {
            "submission_id": submission.id,
            "position": position,
            "hash": value,
            "user_id": submission.user_id,
            "problem": submission.problem,
            "language": submission.language,
        }
        for value, position in fingerprints
    ]
    for start in range(0, len(rows), FINGERPRINT_BATCH):
        session.execute(insert(Fingerprint), rows[start : start + FINGERPRINT_BATCH])
    return True


def candidates(
    *, session: Session, submission: Source, hashes: Iterable[int], limit: int
) -> list[tuple[int, int]]:
    """(submission id, fingerprints shared) of other students' submissions of the same
    problem and language, most shared first. A student's own never count."""
    wanted = sorted(set(hashes))
    if not wanted:
        return []
    shared = func.count(func.distinct(Fingerprint.hash)).label("shared")
    query = (
        select(Fingerprint.submission_id, shared)
        .where(
            Fingerprint.problem == submission.problem,
            Fingerprint.language == submission.language,
            Fingerprint.hash.in_(wanted),
            Fingerprint.user_id != submission.user_id,
        )
        .group_by(Fingerprint.submission_id)
        .order_by(shared.desc(), Fingerprint.submission_id)
        .limit(limit)
    )
    return [(row[0], row[1]) for row in session.execute(query)]


@dataclass(frozen=True)
class Match:
    score: float
    a_coverage: float  # of the earlier submission
    b_coverage: float
    matched: int


def record(*, session: Session, earlier: Source, later: Source, match: Match) -> bool:
    """Keep the two students' best match for the problem; True when this one is it (new, or
    better than the one stored, whose "reviewed" mark it then clears). The caller commits
    (one commit for all of a submission's pairs)."""
    low, high = sorted((earlier.user_id, later.user_id))
    values = {
        "submission_a": earlier.id if earlier.user_id == low else later.id,
        "submission_b": later.id if earlier.user_id == low else earlier.id,
        "score": match.score,
        "a_coverage": match.a_coverage if earlier.user_id == low else match.b_coverage,
        "b_coverage": match.b_coverage if earlier.user_id == low else match.a_coverage,
        "matched": match.matched,
        "found_at": utcnow(),
        "reviewed_by": None,
        "reviewed_at": None,
    }
    key = (
        SimilarPair.problem == earlier.problem,
        SimilarPair.user_a == low,
        SimilarPair.user_b == high,
    )
    for _ in range(2):  # a second time if another worker inserted the pair meanwhile
        stored = session.scalar(select(SimilarPair.score).where(*key))
        if stored is not None:
            if stored >= match.score:
                return False
            session.execute(update(SimilarPair).where(*key).values(values))
            return True
        try:
            with session.begin_nested():
                session.execute(
                    insert(SimilarPair).values(
                        problem=earlier.problem, user_a=low, user_b=high, **values
                    )
                )
            return True
        except IntegrityError:
            continue
    return False


@dataclass(frozen=True)
class PairRow:
    id: int
    problem: str
    score: float
    a_coverage: float
    b_coverage: float
    matched: int
    found_at: datetime
    reviewed: bool
    user_a: str
    user_b: str
    submission_a: int
    submission_b: int
    created_a: datetime
    created_b: datetime


def _pair_query():  # -> Select of the PairRow fields (mypy infers it)
    ua, ub = aliased(User), aliased(User)
    sa_, sb = aliased(Submission), aliased(Submission)
    return (
        select(
            SimilarPair.id,
            SimilarPair.problem,
            SimilarPair.score,
            SimilarPair.a_coverage,
            SimilarPair.b_coverage,
            SimilarPair.matched,
            SimilarPair.found_at,
            SimilarPair.reviewed_at.is_not(None),
            ua.username,
            ub.username,
            SimilarPair.submission_a,
            SimilarPair.submission_b,
            sa_.created_at,
            sb.created_at,
        )
        .join(ua, ua.id == SimilarPair.user_a)
        .join(ub, ub.id == SimilarPair.user_b)
        .join(sa_, sa_.id == SimilarPair.submission_a)
        .join(sb, sb.id == SimilarPair.submission_b)
    )


def pairs(
    *,
    session: Session,
    problems: Sequence[str],
    threshold: float,
    reviewed: bool = True,
    limit: int = 500,
) -> list[PairRow]:
    """The problems' pairs scoring at least `threshold`, highest first; without `reviewed`,
    the ones marked "not copied" are left out."""
    query = _pair_query().where(
        SimilarPair.problem.in_(list(problems)), SimilarPair.score >= threshold
    )
    if not reviewed:
        query = query.where(SimilarPair.reviewed_at.is_(None))
    query = query.order_by(SimilarPair.score.desc(), SimilarPair.id).limit(limit)
    return [PairRow(*row) for row in session.execute(query)]


def pair(*, session: Session, pair_id: int) -> PairRow | None:
    row = session.execute(_pair_query().where(SimilarPair.id == pair_id)).first()
    return None if row is None else PairRow(*row)


def mark_reviewed(*, session: Session, pair_id: int, by: int, reviewed: bool) -> bool:
    """Mark (or unmark) a pair "reviewed: not copied"; False when there is no such pair."""
    result = session.execute(
        update(SimilarPair)
        .where(SimilarPair.id == pair_id)
        .values(reviewed_by=by if reviewed else None, reviewed_at=utcnow() if reviewed else None)
    )
    session.commit()
    return rowcount(result) > 0


def forget(*, session: Session, problem: str) -> None:
    """Empty the problem's index and pairs (the bench, and a re-index)."""
    ids = select(Submission.id).where(Submission.problem == problem)
    session.execute(delete(SimilarPair).where(SimilarPair.problem == problem))
    session.execute(delete(Fingerprint).where(Fingerprint.problem == problem))
    session.execute(delete(SimilarityDocument).where(SimilarityDocument.submission_id.in_(ids)))
    session.commit()

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
    Status,
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


def students(*, session: Session, problem: str, language: str) -> int:
    """How many students have a submission of the problem in the language in the index."""
    query = (
        select(func.count(func.distinct(Submission.user_id)))
        .join(SimilarityDocument, SimilarityDocument.submission_id == Submission.id)
        .where(Submission.problem == problem, Submission.language == language)
    )
    return session.scalar(query) or 0


def common_hashes(
    *,
    session: Session,
    problem: str,
    language: str,
    hashes: Iterable[int],
    min_students: int,
    share: float,
) -> frozenset[int]:
    """Of `hashes`, the fingerprints held by at least `min_students` different students of
    the problem in the language and by more than `share` of them (the boilerplate that
    similarity.fingerprints discounts). Only the given hashes are looked up, by the index:
    a pair can only share the fingerprints of its own sources."""
    wanted = sorted(set(hashes))
    if not wanted:
        return frozenset()
    total = students(session=session, problem=problem, language=language)
    if total < min_students:
        return frozenset()  # (the common case: no fingerprint can reach the bound)
    holders = func.count(func.distinct(Fingerprint.user_id))
    query = (
        select(Fingerprint.hash)
        .where(
            Fingerprint.problem == problem,
            Fingerprint.language == language,
            Fingerprint.hash.in_(wanted),
        )
        .group_by(Fingerprint.hash)
        .having(holders >= min_students, holders > share * total)
    )
    return frozenset(session.scalars(query))


def candidates(
    *,
    session: Session,
    submission: Source,
    hashes: Iterable[int],
    limit: int,
    before: int | None = None,
) -> list[tuple[int, int]]:
    """(submission id, fingerprints shared) of other students' submissions of the same
    problem and language (with `before`, only those with a smaller id), most shared first.
    A student's own never count."""
    wanted = sorted(set(hashes))
    if not wanted:
        return []
    shared = func.count(func.distinct(Fingerprint.hash)).label("shared")
    where = [
        Fingerprint.problem == submission.problem,
        Fingerprint.language == submission.language,
        Fingerprint.hash.in_(wanted),
        Fingerprint.user_id != submission.user_id,
    ]
    if before is not None:
        where.append(Fingerprint.submission_id < before)
    query = (
        select(Fingerprint.submission_id, shared)
        .where(*where)
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


def _pair_values(earlier: Source, later: Source, match: Match) -> dict[str, object]:
    """A pair's columns but its key, the lower user id's submission as `a`."""
    low = min(earlier.user_id, later.user_id)
    return {
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


def record(*, session: Session, earlier: Source, later: Source, match: Match) -> bool:
    """Keep the two students' best match for the problem; True when this one is it (new, or
    better than the one stored, whose "reviewed" mark it then clears). The caller commits
    (one commit for all of a submission's pairs)."""
    low, high = sorted((earlier.user_id, later.user_id))
    values = _pair_values(earlier, later, match)
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


@dataclass(frozen=True)
class Found:
    """A pair as a rescore finds it: the two submissions and their match."""

    earlier: Source
    later: Source
    match: Match


def replace_pairs(*, session: Session, problem: str, found: Iterable[Found]) -> dict[str, int]:
    """Make the problem's stored pairs those `found` (one per pair of students): new ones
    inserted, stored ones given their new score, the others (now below what is kept)
    deleted. A pair keeps its "reviewed" mark while its two submissions stay the same: the
    instructor looked at that code. Returns the counts; the caller commits."""
    stored = {
        (row.user_a, row.user_b): row
        for row in session.scalars(select(SimilarPair).where(SimilarPair.problem == problem))
    }
    counts = {"inserted": 0, "updated": 0, "deleted": 0}
    for pair in found:
        low, high = sorted((pair.earlier.user_id, pair.later.user_id))
        values = _pair_values(pair.earlier, pair.later, pair.match)
        row = stored.pop((low, high), None)
        if row is None:
            session.add(SimilarPair(problem=problem, user_a=low, user_b=high, **values))
            counts["inserted"] += 1
            continue
        if (row.submission_a, row.submission_b) == (values["submission_a"], values["submission_b"]):
            for name in ("found_at", "reviewed_by", "reviewed_at"):
                del values[name]  # the same code: its review stands
        for name, value in values.items():
            setattr(row, name, value)
        counts["updated"] += 1
    for row in stored.values():
        session.delete(row)
        counts["deleted"] += 1
    return counts


def unindexed(*, session: Session, problem: str | None = None) -> list[int]:
    """Graded submissions missing from the index (from before it, or whose indexing failed),
    oldest first: the order they would have been indexed in."""
    query = (
        select(Submission.id)
        .outerjoin(SimilarityDocument, SimilarityDocument.submission_id == Submission.id)
        .where(SimilarityDocument.submission_id.is_(None), Submission.status == Status.DONE)
        .order_by(Submission.id)
    )
    if problem is not None:
        query = query.where(Submission.problem == problem)
    return list(session.scalars(query))


def indexed(*, session: Session, problem: str) -> list[int]:
    """The problem's submissions in the index, oldest first."""
    query = (
        select(Submission.id)
        .join(SimilarityDocument, SimilarityDocument.submission_id == Submission.id)
        .where(Submission.problem == problem)
        .order_by(Submission.id)
    )
    return list(session.scalars(query))


def indexed_problems(*, session: Session) -> list[str]:
    query = (
        select(Submission.problem)
        .join(SimilarityDocument, SimilarityDocument.submission_id == Submission.id)
        .distinct()
        .order_by(Submission.problem)
    )
    return list(session.scalars(query))


def forget(*, session: Session, problem: str) -> None:
    """Empty the problem's index and pairs (the bench, and a re-index)."""
    ids = select(Submission.id).where(Submission.problem == problem)
    session.execute(delete(SimilarPair).where(SimilarPair.problem == problem))
    session.execute(delete(Fingerprint).where(Fingerprint.problem == problem))
    session.execute(delete(SimilarityDocument).where(SimilarityDocument.submission_id.in_(ids)))
    session.commit()

"""Rejudge previews: before a new version of an uploaded problem is published, or before a
problem is rejudged against its current boards (a hidden board added), the verdicts of its
submissions graded again, without storing any judging.

What is graded: each student's latest finished submission per language and style (the one
that stands for that student's work in it), and every finished submission that can count
for an assignment with the problem (made from its release up to the latest cutoff any
student has there: store/repo/regrades.py computes the scores from them), at most
MAX_SUBMISSIONS of them, newest first; `truncated` in the report says the bound was hit.
A preview is keyed by what it grades against (a version, or the problem as it is now with
its hidden boards) and that set (each submission with its claim token, which every rejudge
bumps), so a new submission, a rejudge or a board since asks for a new preview and an old
one is simply not read.

Previews are kept in the `strength_reports` table (a worker's report cached under the key
of what it depends on, which is what that table is), their `problem` the slug: no table of
their own. The worker grades one submission per message on the rejudge queue
(worker/rejudge_preview.py) and records it here; `report` holds the set and the results.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.models import (
    Assignment,
    AssignmentProblem,
    Extension,
    ProblemVersion,
    Status,
    StrengthReport,
    Submission,
    User,
    utcnow,
)
from store.repo import assignments as repo_assignments
from store.repo.boards import hidden_cases

COMPUTING, READY, FAILED = "computing", "ready", "failed"
MAX_SUBMISSIONS = 1000
# No progress for this long: its message or its worker was lost, a new request sends it
# again (a step is one grading: at most the longest grading, 120 s, plus the queue's wait).
LOST_AFTER_S = 300
KEEP_PER_PROBLEM = 20


@dataclass(frozen=True)
class Item:
    """A submission of the preview, with its stored verdict."""

    id: int
    user: str
    language: str
    style: str
    token: int
    verdict: str | None
    passed: int | None
    total: int | None


def _latest_ids(session: Session, slug: str) -> set[int]:
    """Each student's latest finished submission of `slug` per language and style."""
    ranked = (
        select(
            Submission.id,
            func.row_number()
            .over(
                partition_by=(Submission.user_id, Submission.language, Submission.style),
                order_by=(Submission.created_at.desc(), Submission.id.desc()),
            )
            .label("rank"),
        )
        .where(Submission.problem == slug, Submission.status == Status.DONE)
        .subquery()
    )
    return set(session.scalars(select(ranked.c.id).where(ranked.c.rank == 1)))


def _counting_ids(session: Session, slug: str) -> set[int]:
    """The finished submissions of `slug` made inside the window of an assignment with it:
    from its release to the latest cutoff any student has (their extensions included)."""
    found: set[int] = set()
    chosen = select(Assignment).join(AssignmentProblem).where(AssignmentProblem.problem == slug)
    for assignment in session.scalars(chosen):
        exts = session.scalars(select(Extension).where(Extension.assignment_id == assignment.id))
        cutoffs = [repo_assignments.deadline_for(assignment, ext).cutoff for ext in exts]
        cutoffs.append(repo_assignments.deadline_for(assignment, None).cutoff)
        found.update(
            session.scalars(
                select(Submission.id).where(
                    Submission.problem == slug,
                    Submission.status == Status.DONE,
                    Submission.created_at >= assignment.release_at,
                    Submission.created_at <= max(cutoffs),
                )
            )
        )
    return found


def preview_submissions(*, session: Session, slug: str) -> tuple[list[Item], bool]:
    """What a preview of `slug` grades, newest first, and whether MAX_SUBMISSIONS cut it."""
    ids = _latest_ids(session, slug) | _counting_ids(session, slug)
    kept = sorted(ids, reverse=True)[:MAX_SUBMISSIONS]
    rows = session.execute(
        select(
            Submission.id,
            User.username,
            Submission.language,
            Submission.style,
            Submission.lease_token,
            Submission.verdict,
            Submission.passed,
            Submission.total,
        )
        .join(User, User.id == Submission.user_id)
        .where(Submission.id.in_(kept))
        .order_by(Submission.id.desc())
    )
    return [Item(*row) for row in rows], len(ids) > MAX_SUBMISSIONS


def current_target(*, session: Session, slug: str, published_version_id: int | None) -> str:
    """What a rejudge now grades `slug` against: its published version (an uploaded problem
    grades on its package's boards) or, for a built-in, its stored hidden boards."""
    if published_version_id is not None:
        return f"current:version:{published_version_id}"
    boards = [[case["id"], case["answer"]] for case in hidden_cases(session=session, problem=slug)]
    return "current:boards:" + json.dumps(boards, separators=(",", ":"))


def preview_key(target: int | str, items: list[Item]) -> str:
    """`target`: a version's id, or current_target()."""
    material = {"preview": target, "of": sorted([i.id, i.token] for i in items)}
    text = json.dumps(material, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def find(*, session: Session, key: str) -> StrengthReport | None:
    return session.scalar(select(StrengthReport).where(StrengthReport.key == key))


def start(
    *,
    session: Session,
    key: str,
    slug: str,
    version_id: int | None,
    items: list[Item],
    truncated: bool = False,
) -> bool:
    """Make sure the preview is on its way; True when the caller must send its first step
    to a worker (new, lost or failed). Commits. With no submissions it is ready at once.
    `version_id` None: graded against the problem as a rejudge now grades it."""
    now = utcnow()
    row = find(session=session, key=key)
    report: dict[str, Any] = {
        "version_id": version_id,
        "items": [asdict(i) for i in items],
        "results": {},
        "truncated": truncated,
    }
    if row is None:
        status = READY if not items else COMPUTING
        try:
            with session.begin_nested():
                session.add(
                    StrengthReport(
                        key=key,
                        problem=slug,
                        status=status,
                        report=report,
                        requested_at=now,
                        finished_at=now if status == READY else None,
                    )
                )
        except IntegrityError:  # another request made it first: that one sends it
            session.commit()
            return False
        _forget_old(session, slug)
        session.commit()
        return status == COMPUTING
    lost = row.status == COMPUTING and row.requested_at < now - timedelta(seconds=LOST_AFTER_S)
    if not (lost or row.status == FAILED):
        return False
    if row.status == FAILED:  # graded again from the start
        row.report = report
    row.status, row.error, row.requested_at = COMPUTING, None, now
    session.commit()
    return True


def _forget_old(session: Session, slug: str) -> None:
    keep = select(StrengthReport.id).where(StrengthReport.problem == slug)
    keep = keep.order_by(StrengthReport.requested_at.desc()).limit(KEEP_PER_PROBLEM)
    session.execute(
        delete(StrengthReport).where(
            StrengthReport.problem == slug, StrengthReport.id.not_in(keep.scalar_subquery())
        )
    )


@dataclass(frozen=True)
class Step:
    """The next submission a preview grades, against which version (None: the problem as
    a rejudge now grades it)."""

    key: str
    slug: str
    version_id: int | None
    submission_id: int


def next_step(*, session: Session, key: str) -> Step | None:
    """The first submission of a computing preview not graded yet; None when there is none
    (the preview is then marked ready, committed) or the preview is not computing."""
    row = find(session=session, key=key)
    if row is None or row.status != COMPUTING:
        return None
    report = row.report
    done = report["results"]
    for item in report["items"]:
        if str(item["id"]) not in done:
            version = report["version_id"]
            return Step(key, row.problem, None if version is None else int(version), item["id"])
    row.status, row.finished_at = READY, utcnow()
    session.commit()
    return None


@dataclass(frozen=True)
class Graded:
    """What grading a submission again needs."""

    source: str
    language: str
    style: str
    seed: int


def graded(*, session: Session, submission_id: int) -> Graded | None:
    row = session.execute(
        select(Submission.source, Submission.language, Submission.style, Submission.seed).where(
            Submission.id == submission_id
        )
    ).first()
    return None if row is None else Graded(*row)


def version_of(*, session: Session, slug: str, version_id: int) -> tuple[str, Any] | None:
    """The digest of a version and the answers its check stored."""
    row = session.execute(
        select(ProblemVersion.digest, ProblemVersion.manifest).where(
            ProblemVersion.id == version_id, ProblemVersion.slug == slug
        )
    ).first()
    return None if row is None else (row[0], (row[1] or {}).get("answers"))


def record(
    *,
    session: Session,
    key: str,
    submission_id: int,
    verdict: str | None,
    passed: int,
    total: int,
    kinds: dict[str, tuple[int, int]] | None = None,
) -> None:
    """One submission's verdict against the candidate (a second delivery overwrites it with
    the same), with its passed and total tests per kind (what the "tests" scoring rule
    reads). The row is locked while read and written: two steps may end at once."""
    row = session.scalar(select(StrengthReport).where(StrengthReport.key == key).with_for_update())
    if row is None or row.status != COMPUTING:
        session.rollback()
        return
    report = dict(row.report)
    results = dict(report["results"])
    results[str(submission_id)] = {
        "verdict": verdict,
        "passed": passed,
        "total": total,
        "kinds": {kind: list(counts) for kind, counts in (kinds or {}).items()},
    }
    report["results"] = results
    row.report = report  # a new object: the JSON column sees the change
    row.requested_at = utcnow()  # progress: not lost
    session.commit()


def fail(*, session: Session, key: str, error: str) -> None:
    row = find(session=session, key=key)
    if row is not None and row.status == COMPUTING:
        row.status, row.error, row.finished_at = FAILED, error[:2000], utcnow()
    session.commit()


@dataclass(frozen=True)
class Change:
    submission_id: int
    user: str
    language: str
    style: str
    old_verdict: str | None
    old_passed: int | None
    old_total: int | None
    new_verdict: str | None
    new_passed: int | None
    new_total: int | None

    @property
    def changed(self) -> bool:
        return self.new_verdict is not None and self.new_verdict != self.old_verdict


def changes(row: StrengthReport) -> list[Change]:
    """Every submission of the preview with its old and (once graded) new verdict."""
    results = row.report["results"]
    found = []
    for item in row.report["items"]:
        new = results.get(str(item["id"]), {})
        found.append(
            Change(
                item["id"],
                item["user"],
                item["language"],
                item["style"],
                item["verdict"],
                item["passed"],
                item["total"],
                new.get("verdict"),
                new.get("passed"),
                new.get("total"),
            )
        )
    return found

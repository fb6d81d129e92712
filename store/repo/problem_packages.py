"""Problems uploaded as packages: their versions (each zip as received, its manifest and its
check's report), which one is published, and their state.

The API stores a version `checking` and the run lane checks it (`finish_check`); the sweeper
sends a check a dead worker left again (`stale_checks`), and fails it after a few sends.
Publishing needs a version that passed. The worker reads the published version's archive by
digest (`package_archive`) and unpacks it once per digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, defer

from store.models import CheckStatus, Problem, ProblemState, ProblemVersion, utcnow


def get_problem(*, session: Session, slug: str) -> Problem | None:
    return session.get(Problem, slug)


def create_problem(*, session: Session, slug: str, user_id: int | None) -> Problem:
    problem = Problem(slug=slug, state=ProblemState.DRAFT, created_by=user_id)
    session.add(problem)
    session.flush()
    return problem


def list_problems(*, session: Session) -> list[Problem]:
    return list(session.scalars(select(Problem).order_by(Problem.slug)))


def _versions():
    return select(ProblemVersion).options(defer(ProblemVersion.archive))


def version_by_digest(*, session: Session, slug: str, digest: str) -> ProblemVersion | None:
    return session.scalar(
        _versions().where(ProblemVersion.slug == slug, ProblemVersion.digest == digest)
    )


def add_version(
    *,
    session: Session,
    slug: str,
    digest: str,
    archive: bytes,
    manifest: dict[str, Any],
    user_id: int | None,
) -> ProblemVersion:
    """A new version, `checking`, numbered after the slug's last one (two uploads racing for
    a number: the unique constraint refuses the second, as an IntegrityError)."""
    last = session.scalar(
        select(func.max(ProblemVersion.number)).where(ProblemVersion.slug == slug)
    )
    version = ProblemVersion(
        slug=slug,
        number=(last or 0) + 1,
        digest=digest,
        archive=archive,
        manifest=manifest,
        status=CheckStatus.CHECKING,
        uploaded_by=user_id,
    )
    session.add(version)
    session.flush()
    return version


def list_versions(*, session: Session, slug: str) -> list[ProblemVersion]:
    """Newest first, archives left unread."""
    return list(
        session.scalars(
            _versions().where(ProblemVersion.slug == slug).order_by(ProblemVersion.number.desc())
        )
    )


def get_version(*, session: Session, slug: str, version_id: int) -> ProblemVersion | None:
    return session.scalar(
        _versions().where(ProblemVersion.slug == slug, ProblemVersion.id == version_id)
    )


def versions_by_id(*, session: Session, ids: list[int]) -> dict[int, ProblemVersion]:
    if not ids:
        return {}
    found = session.scalars(_versions().where(ProblemVersion.id.in_(ids)))
    return {v.id: v for v in found}


def latest_versions(*, session: Session) -> dict[str, ProblemVersion]:
    """Each uploaded problem's newest version, by slug."""
    newest = (
        select(ProblemVersion.slug, func.max(ProblemVersion.number).label("number"))
        .group_by(ProblemVersion.slug)
        .subquery()
    )
    rows = session.scalars(
        _versions().join(
            newest,
            (ProblemVersion.slug == newest.c.slug) & (ProblemVersion.number == newest.c.number),
        )
    )
    return {v.slug: v for v in rows}


@dataclass(frozen=True)
class CheckJob:
    version_id: int
    slug: str
    archive: bytes


def check_job(*, session: Session, version_id: int) -> CheckJob | None:
    """What the check of a version needs; None when it is no longer `checking`."""
    row = session.execute(
        select(ProblemVersion.slug, ProblemVersion.archive).where(
            ProblemVersion.id == version_id, ProblemVersion.status == CheckStatus.CHECKING
        )
    ).first()
    return None if row is None else CheckJob(version_id, row.slug, row.archive)


def finish_check(
    *,
    session: Session,
    version_id: int,
    passed: bool,
    report: dict[str, Any],
    learned: dict[str, Any] | None = None,
) -> bool:
    """Store a check's outcome (once: False when it was stored already). `learned`: what is
    known of the package once its problem.py ran (its styles, its plan), written into the
    manifest."""
    version = session.get(ProblemVersion, version_id)
    if version is None or version.status != CheckStatus.CHECKING:
        session.rollback()
        return False
    version.status = CheckStatus.PASSED if passed else CheckStatus.FAILED
    version.report = report
    version.checked_at = utcnow()
    if learned:
        version.manifest = {**version.manifest, **learned}
    session.commit()
    return True


def stale_checks(*, session: Session, older_than_s: float, max_sends: int) -> list[int]:
    """Versions still `checking` whose check was sent `older_than_s` ago or more (a lost
    message, a worker that died): sent again, counted; past `max_sends` they fail with a
    report saying so. Returns the ids to send again (committed)."""
    now = utcnow()
    cutoff = now - timedelta(seconds=older_than_s)
    stale = list(
        session.scalars(
            select(ProblemVersion)
            .options(defer(ProblemVersion.archive))
            .where(
                ProblemVersion.status == CheckStatus.CHECKING,
                ProblemVersion.check_sent_at <= cutoff,
            )
        )
    )
    resend = []
    for version in stale:
        if version.check_sends >= max_sends:
            message = f"the check did not finish after {version.check_sends} tries"
            version.status = CheckStatus.FAILED
            version.report = {
                "ok": False,
                "checks": [{"name": "check", "ok": False, "message": message}],
            }
            version.checked_at = now
        else:
            version.check_sends += 1
            version.check_sent_at = now
            resend.append(version.id)
    session.commit()
    return resend


def publish(*, session: Session, problem: Problem, version: ProblemVersion) -> None:
    problem.published_version_id = version.id
    problem.state = ProblemState.PUBLISHED
    problem.updated_at = utcnow()


def set_state(*, session: Session, problem: Problem, state: str) -> None:
    problem.state = state
    problem.updated_at = utcnow()


@dataclass(frozen=True)
class Published:
    """An uploaded problem students may see (published or retired) or that is hidden, with
    its published version."""

    slug: str
    state: str
    version_id: int
    digest: str


def published(*, session: Session) -> list[Published]:
    """Every uploaded problem with a published version (any state but draft), by slug."""
    rows = session.execute(
        select(Problem.slug, Problem.state, ProblemVersion.id, ProblemVersion.digest)
        .join(ProblemVersion, ProblemVersion.id == Problem.published_version_id)
        .order_by(Problem.slug)
    )
    return [Published(r[0], r[1], r[2], r[3]) for r in rows]


def manifests(*, session: Session, version_ids: list[int]) -> dict[int, dict[str, Any]]:
    if not version_ids:
        return {}
    rows = session.execute(
        select(ProblemVersion.id, ProblemVersion.manifest).where(ProblemVersion.id.in_(version_ids))
    )
    return {r[0]: r[1] for r in rows}


@dataclass(frozen=True)
class VersionAnswers:
    digest: str
    answers: Any  # what its check stored (manifest "answers"), None before it did


def published_version(*, session: Session, slug: str) -> VersionAnswers | None:
    """The version a submission to `slug` is graded against now, with its stored answers."""
    row = session.execute(
        select(ProblemVersion.digest, ProblemVersion.manifest)
        .join(Problem, Problem.published_version_id == ProblemVersion.id)
        .where(Problem.slug == slug)
    ).first()
    return None if row is None else VersionAnswers(row[0], (row[1] or {}).get("answers"))


def package_archive(*, session: Session, slug: str, digest: str) -> bytes | None:
    return session.scalar(
        select(ProblemVersion.archive).where(
            ProblemVersion.slug == slug, ProblemVersion.digest == digest
        )
    )


def published_version_id(*, session: Session, slug: str) -> int | None:
    """The id of the uploaded problem's published version (its manifest: `manifests`)."""
    return session.scalar(select(Problem.published_version_id).where(Problem.slug == slug))

"""Instructors upload problems as packages (a zip of the folder docs/problem-packages.md
describes), see each version's check, publish one, and hide or retire a problem.

The API only reads the zip's declarations (judge.problems.archive and manifest: no code
runs here); a run-lane worker checks the version in the sandbox and stores its report.
Before publishing a version of a problem with submissions, a worker on the rejudge queue
previews which verdicts it would change (store/repo/rejudge_previews.py); publishing then
rejudges those, or none.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, HTTPException, Response, UploadFile, status
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.deps import Instructor, ServicesDep, SessionDep
from api.schemas import (
    Message,
    PreviewChange,
    PreviewScoreChange,
    ProblemManaged,
    ProblemManagedList,
    ProblemPublished,
    ProblemStateUpdate,
    ProblemVersionList,
    ProblemVersionPublic,
    PublishRequest,
    RejudgePreview,
)
from judge import problems
from judge.problems.archive import MANIFEST, MAX_ARCHIVE_BYTES, ArchiveError, unpack
from judge.problems.declared import describe
from judge.problems.manifest import ManifestError
from judge.problems.package import Package
from store import repo
from store.models import (
    CheckStatus,
    Priority,
    Problem,
    ProblemState,
    ProblemVersion,
    StrengthReport,
)
from store.repo import problem_packages as packages
from store.repo import regrades
from store.repo import rejudge_previews as previews

router = APIRouter(tags=["problem packages"])

# The body of an upload: the zip and the multipart framing around it.
MAX_UPLOAD_BODY = MAX_ARCHIVE_BYTES + (64 << 10)
BUILTIN = "built-in problems change with the product"

ZipFile = Annotated[UploadFile, File(description="the package folder as a .zip")]
_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": Message},
    403: {"model": Message},
    404: {"model": Message},
    409: {"model": Message},
    413: {"model": Message},
    422: {"model": Message},
}


def version_public(
    version: ProblemVersion, problem: Problem | None, with_report: bool = False
) -> ProblemVersionPublic:
    return ProblemVersionPublic(
        id=version.id,
        slug=version.slug,
        number=version.number,
        digest=version.digest,
        status=version.status,
        title=str(version.manifest.get("title", version.slug)),
        uploaded_by=version.uploader.username if version.uploader else None,
        created_at=version.created_at,
        checked_at=version.checked_at,
        published=problem is not None and problem.published_version_id == version.id,
        report=version.report if with_report else None,
    )


def _read_package(upload: UploadFile) -> tuple[bytes, Package, dict]:
    """The zip as received, its package and what the API keeps of it; 413 or 422 saying
    what is wrong. Unpacked into a private temporary folder, gone when this returns."""
    data = upload.file.read(MAX_ARCHIVE_BYTES + 1)
    if len(data) > MAX_ARCHIVE_BYTES:
        raise HTTPException(
            status.HTTP_413_CONTENT_TOO_LARGE,
            detail=f"the zip is over {MAX_ARCHIVE_BYTES >> 20} MiB",
        )
    with tempfile.TemporaryDirectory(prefix="judge-upload-") as tmp:
        try:
            folder = unpack(data, Path(tmp, "package"))
            package = Package.load(folder)
        except (ArchiveError, ManifestError) as exc:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=str(exc)) from exc
        toml_text = (folder / MANIFEST).read_text(encoding="utf-8")
    most = service_total_s()
    if package.manifest.limits.total_s > most:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"limits.total_s: at most {most:g} s on this service "
            f"(got {package.manifest.limits.total_s:g})",
        )
    return data, package, describe(package, toml_text)


def service_total_s() -> float:
    """The longest wall budget a grading may have here: the workers' task time limits are
    sized for the built-ins' (worker/app.py), so an upload may not ask for more."""
    return max(spec.LIMITS.total_s for spec in problems.registry().values())


def _store_version(
    session: Session,
    services: ServicesDep,
    response: Response,
    user: Instructor,
    data: bytes,
    package: Package,
    described: dict,
    problem: Problem,
) -> ProblemVersionPublic:
    try:
        version = packages.add_version(
            session=session,
            slug=package.slug,
            digest=package.digest,
            archive=data,
            manifest=described,
            user_id=user.id,
        )
        session.commit()
    except IntegrityError as exc:  # another upload of the slug won the race
        session.rollback()
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail="another upload of this problem came first: retry"
        ) from exc
    # Committed first: the worker must find the row. A lost message: the sweeper sends it.
    services.enqueue_check(version.id)
    response.status_code = status.HTTP_202_ACCEPTED
    response.headers["Location"] = f"/api/v1/problems/{version.slug}/versions/{version.id}"
    session.refresh(version)
    return version_public(version, problem)


@router.post(
    "/problems",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ProblemVersionPublic,
    responses=_ERRORS,
    max_body_size=MAX_UPLOAD_BODY,
)
def upload_problem(
    file: ZipFile, response: Response, session: SessionDep, services: ServicesDep, user: Instructor
) -> ProblemVersionPublic:
    """Upload a new problem: its first version, checked by a worker (follow its Location
    for the report). 409 for a slug that exists (upload its new version with PUT)."""
    data, package, described = _read_package(file)
    slug = package.slug
    if slug in problems.registry():
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail=f"{slug!r} is a built-in problem: {BUILTIN}"
        )
    if packages.get_problem(session=session, slug=slug) is not None:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail=_exists(slug),
        )
    try:
        problem = packages.create_problem(session=session, slug=slug, user_id=user.id)
    except IntegrityError as exc:
        session.rollback()
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail=_exists(slug),
        ) from exc
    return _store_version(session, services, response, user, data, package, described, problem)


def _exists(slug: str) -> str:
    return f"problem {slug!r} exists: upload a new version with PUT /api/v1/problems/{slug}"


def _uploaded(session: Session, slug: str) -> Problem:
    """The uploaded problem `slug`: 409 for a built-in, 404 when there is none."""
    if slug in problems.registry():
        raise HTTPException(status.HTTP_409_CONFLICT, detail=BUILTIN)
    problem = packages.get_problem(session=session, slug=slug)
    if problem is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no uploaded problem {slug!r}")
    return problem


@router.put(
    "/problems/{slug}",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ProblemVersionPublic,
    responses={**_ERRORS, 200: {"model": ProblemVersionPublic}},
    max_body_size=MAX_UPLOAD_BODY,
)
def upload_version(
    slug: str,
    file: ZipFile,
    response: Response,
    session: SessionDep,
    services: ServicesDep,
    user: Instructor,
) -> ProblemVersionPublic:
    """Upload a new version of an uploaded problem. The same content as a version it has
    already: that version (200), nothing stored."""
    problem = _uploaded(session, slug)
    data, package, described = _read_package(file)
    if package.slug != slug:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            detail=f"problem.toml's slug is {package.slug!r}, not {slug!r} as in the URL",
        )
    same = packages.version_by_digest(session=session, slug=slug, digest=package.digest)
    if same is not None:
        response.status_code = status.HTTP_200_OK
        response.headers["Location"] = f"/api/v1/problems/{slug}/versions/{same.id}"
        return version_public(same, problem)
    return _store_version(session, services, response, user, data, package, described, problem)


@router.get("/problems/manage", response_model=ProblemManagedList, responses=_ERRORS)
def manage(session: SessionDep, user: Instructor) -> ProblemManagedList:
    """Every problem, built-in and uploaded, with its state and versions."""
    items = [
        ProblemManaged(
            slug=slug,
            title=spec.TITLE,
            state=ProblemState.PUBLISHED,
            builtin=True,
            published_version=None,
            latest_version=None,
        )
        for slug, spec in problems.registry().items()
    ]
    rows = packages.list_problems(session=session)
    latest = packages.latest_versions(session=session)
    published = packages.versions_by_id(
        session=session, ids=[p.published_version_id for p in rows if p.published_version_id]
    )
    for problem in rows:
        shown = published.get(problem.published_version_id or 0)
        items.append(_managed(problem, shown, latest.get(problem.slug)))
    return ProblemManagedList(items=items)


def problem_managed(session: Session, problem: Problem) -> ProblemManaged:
    versions = packages.list_versions(session=session, slug=problem.slug)
    shown = next((v for v in versions if v.id == problem.published_version_id), None)
    return _managed(problem, shown, versions[0] if versions else None)


def _managed(
    problem: Problem, shown: ProblemVersion | None, newest: ProblemVersion | None
) -> ProblemManaged:
    """An uploaded problem, titled by its published version, else by its newest."""
    titled = shown or newest
    title = titled.manifest.get("title", problem.slug) if titled else problem.slug
    return ProblemManaged(
        slug=problem.slug,
        title=str(title),
        state=problem.state,
        builtin=False,
        published_version=version_public(shown, problem) if shown else None,
        latest_version=version_public(newest, problem) if newest else None,
    )


@router.get("/problems/{slug}/versions", response_model=ProblemVersionList, responses=_ERRORS)
def list_versions(slug: str, session: SessionDep, user: Instructor) -> ProblemVersionList:
    """Every version of an uploaded problem, newest first (their reports: one by one)."""
    problem = _uploaded(session, slug)
    versions = packages.list_versions(session=session, slug=slug)
    return ProblemVersionList(items=[version_public(v, problem) for v in versions])


def _version(session: Session, slug: str, version_id: int) -> tuple[Problem, ProblemVersion]:
    problem = _uploaded(session, slug)
    version = packages.get_version(session=session, slug=slug, version_id=version_id)
    if version is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no version {version_id} of {slug}")
    return problem, version


@router.get(
    "/problems/{slug}/versions/{version_id}",
    response_model=ProblemVersionPublic,
    responses=_ERRORS,
)
def get_version(
    slug: str, version_id: int, session: SessionDep, user: Instructor
) -> ProblemVersionPublic:
    """One version with its check's report."""
    problem, version = _version(session, slug, version_id)
    return version_public(version, problem, with_report=True)


def _not_passed(version: ProblemVersion) -> str:
    if version.status == CheckStatus.CHECKING:
        return f"version {version.number} is still being checked"
    failed = [c for c in (version.report or {}).get("checks", []) if not c.get("ok")]
    why = f": {failed[0]['name']}: {failed[0]['message']}" if failed else ""
    return f"version {version.number} failed its check{why}"[:1000]


def _passed(session: Session, slug: str, version_id: int) -> tuple[Problem, ProblemVersion]:
    """The version, 409 unless its check passed."""
    problem, version = _version(session, slug, version_id)
    if version.status != CheckStatus.PASSED:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=_not_passed(version))
    return problem, version


@router.post(
    "/problems/{slug}/versions/{version_id}/publish",
    response_model=ProblemPublished,
    responses=_ERRORS,
)
def publish(
    slug: str,
    version_id: int,
    session: SessionDep,
    services: ServicesDep,
    user: Instructor,
    body: PublishRequest | None = None,
) -> ProblemPublished:
    """Students see this version and are graded against it from now on (state published).
    409 unless its check passed. `{"rejudge": true}`: the submissions whose verdict the
    version's preview changes are rejudged against it on the rejudge queue (409 unless that
    preview is ready and of the submissions as they are now), the scores they replace kept
    (store/repo/regrades.py)."""
    problem, version = _passed(session, slug, version_id)
    rejudge: list[int] = []
    if body is not None and body.rejudge:
        row = _current_preview(session, slug, version)
        if row is None or row.status != previews.READY:
            raise HTTPException(
                status.HTTP_409_CONFLICT,
                detail="no ready rejudge preview of this version for the submissions as they "
                f"are now: POST /api/v1/problems/{slug}/versions/{version_id}/preview first, "
                "or publish without rejudge",
            )
        kept = regrades.changes(session=session, slug=slug, row=row)
        rejudge = regrades.to_rejudge(row, kept)
        regrades.record(session=session, key=row.key, found=kept, applied_by=user.id)
    packages.publish(session=session, problem=problem, version=version)
    queued = repo.rejudge(session=session, submission_ids=rejudge) if rejudge else []
    session.commit()
    for submission_id in queued:  # after the commit: a worker must find the version published
        services.enqueue(submission_id, priority=Priority.REJUDGE)
    managed = problem_managed(session, problem)
    return ProblemPublished(**managed.model_dump(), rejudged=queued)


def _current_preview(session: Session, slug: str, version: ProblemVersion) -> StrengthReport | None:
    """The version's preview of the problem's submissions as they are now, if asked for."""
    items, _ = previews.preview_submissions(session=session, slug=slug)
    return previews.find(session=session, key=previews.preview_key(version.id, items))


def preview_public(
    session: Session, slug: str, version_id: int | None, row: StrengthReport
) -> RejudgePreview:
    """The preview as the versions page shows it; its score changes once it is ready
    (computed from the assignments as they are now, not stored: an extension or an
    override granted since is seen)."""
    found = previews.changes(row)
    graded = [c for c in found if c.new_verdict is not None]
    changed = [c for c in graded if c.changed]
    found.sort(key=lambda c: not c.changed)  # changed ones first, newest first within
    scores = []
    if row.status == previews.READY:
        scores = [
            PreviewScoreChange(
                **{k: v for k, v in asdict(c).items() if k not in ("user_id", "credited")}
            )
            for c in regrades.changes(session=session, slug=slug, row=row)
        ]
    return RejudgePreview(
        slug=slug,
        version_id=version_id,
        key=row.key,
        status=row.status,
        done=len(row.report["results"]),
        total=len(found),
        truncated=bool(row.report.get("truncated")),
        changed=len(changed),
        changes=[PreviewChange(**asdict(c), changed=c.changed) for c in found],
        score_changes=scores,
        error=row.error,
    )


@router.post(
    "/problems/{slug}/versions/{version_id}/preview",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RejudgePreview,
    responses=_ERRORS,
)
def start_preview(
    slug: str,
    version_id: int,
    response: Response,
    session: SessionDep,
    services: ServicesDep,
    user: Instructor,
) -> RejudgePreview:
    """Grade the problem's submissions (each student's latest finished one per language and
    style, and every one that can count for an assignment) against this version, storing
    no judging: which verdicts and assignment scores publishing it would change. A worker
    computes it on the rejudge queue; follow the Location. A preview of the same
    submissions computed already is answered as it is (200)."""
    _, version = _passed(session, slug, version_id)
    items, truncated = previews.preview_submissions(session=session, slug=slug)
    key = previews.preview_key(version.id, items)
    send = previews.start(
        session=session,
        key=key,
        slug=slug,
        version_id=version.id,
        items=items,
        truncated=truncated,
    )
    if send:
        services.request_preview(key)  # lost: the next request finds it lost and sends it
    row = previews.find(session=session, key=key)
    assert row is not None  # just made
    response.headers["Location"] = f"/api/v1/problems/{slug}/versions/{version_id}/preview"
    if row.status == previews.READY:
        response.status_code = status.HTTP_200_OK
    return preview_public(session, slug, version_id, row)


@router.get(
    "/problems/{slug}/versions/{version_id}/preview",
    response_model=RejudgePreview,
    responses=_ERRORS,
)
def get_preview(
    slug: str, version_id: int, session: SessionDep, user: Instructor
) -> RejudgePreview:
    """The preview of this version for the submissions as they are now: computing (with
    its progress, done of total), ready or failed. 404 when none was asked for (a new
    submission or a rejudge since makes another set: ask again with POST)."""
    _, version = _version(session, slug, version_id)
    row = _current_preview(session, slug, version)
    if row is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            detail=f"no rejudge preview of version {version.number} for the submissions as "
            f"they are now: POST /api/v1/problems/{slug}/versions/{version_id}/preview",
        )
    return preview_public(session, slug, version_id, row)


@router.patch("/problems/{slug}", response_model=ProblemManaged, responses=_ERRORS)
def set_state(
    slug: str, body: ProblemStateUpdate, session: SessionDep, user: Instructor
) -> ProblemManaged:
    """published (needs a published version), hidden (students do not see it), retired
    (students see it and their history; no new submissions or runs)."""
    problem = _uploaded(session, slug)
    if body.state == "published" and problem.published_version_id is None:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail="no version is published yet: publish one that passed its check",
        )
    packages.set_state(session=session, problem=problem, state=body.state)
    session.commit()
    return problem_managed(session, problem)

"""Regrades: a rejudge of a problem as it is now (after a hidden board was added, say),
previewed first, verdicts and assignment scores, then applied from that preview, and the
scores each applied regrade replaced (an assignment's history).

The preview is the version preview's machinery (store/repo/rejudge_previews.py, graded by
worker/rejudge_preview.py on the rejudge queue) with the problem as a rejudge grades it now
as its target; its key names the current boards, so a board added or removed since makes it
stale. Applying is `POST /problems/{slug}/rejudge {"preview": key}` (api/routers/
submissions.py, beside the plain rejudge), through `apply_preview` here.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response, status
from sqlalchemy.orm import Session

from api.deps import Instructor, ServicesDep, SessionDep
from api.routers.assignments import find_assignment
from api.routers.problem_packages import preview_public
from api.routers.problems import find_problem
from api.schemas import (
    DbId,
    Message,
    RegradeList,
    RegradeScorePublic,
    RejudgePreview,
)
from store import repo
from store.models import StrengthReport
from store.repo import problem_packages as packages
from store.repo import regrades
from store.repo import rejudge_previews as previews

router = APIRouter(tags=["regrades"])

_ERRORS: dict[int | str, dict] = {
    401: {"model": Message},
    403: {"model": Message},
    404: {"model": Message},
    409: {"model": Message},
}


def current_preview_key(session: Session, slug: str) -> tuple[str, list[previews.Item], bool]:
    """The key of a preview of `slug` as a rejudge grades it now, for its submissions as they
    are now, with those submissions and whether the bound cut them (404: no such problem)."""
    find_problem(slug, session, instructor=True)
    uploaded = packages.get_problem(session=session, slug=slug)
    target = previews.current_target(
        session=session,
        slug=slug,
        published_version_id=uploaded.published_version_id if uploaded else None,
    )
    items, truncated = previews.preview_submissions(session=session, slug=slug)
    return previews.preview_key(target, items), items, truncated


def _location(slug: str) -> str:
    return f"/api/v1/problems/{slug}/rejudge/preview"


@router.post(
    "/problems/{slug}/rejudge/preview",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RejudgePreview,
    responses=_ERRORS,
)
def start_rejudge_preview(
    slug: str, response: Response, session: SessionDep, services: ServicesDep, user: Instructor
) -> RejudgePreview:
    """Grade the problem's submissions that can count (see the version preview) as a
    rejudge would now, storing no judging: which verdicts and assignment scores it changes.
    A worker computes it; follow the Location. The same one computed already: 200."""
    key, items, truncated = current_preview_key(session, slug)
    send = previews.start(
        session=session, key=key, slug=slug, version_id=None, items=items, truncated=truncated
    )
    if send:
        services.request_preview(key)  # lost: the next request finds it lost and sends it
    row = previews.find(session=session, key=key)
    assert row is not None  # just made
    response.headers["Location"] = _location(slug)
    if row.status == previews.READY:
        response.status_code = status.HTTP_200_OK
    return preview_public(session, slug, None, row)


@router.get("/problems/{slug}/rejudge/preview", response_model=RejudgePreview, responses=_ERRORS)
def get_rejudge_preview(slug: str, session: SessionDep, user: Instructor) -> RejudgePreview:
    """The preview for the problem and its submissions as they are now: computing, ready or
    failed. 404 when none was asked for (a submission, rejudge or board since: POST again)."""
    key, _, _ = current_preview_key(session, slug)
    row = previews.find(session=session, key=key)
    if row is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            detail=f"no rejudge preview of {slug} as it is now: POST {_location(slug)}",
        )
    return preview_public(session, slug, None, row)


def apply_preview(session: Session, slug: str, key: str, user_id: int) -> list[int]:
    """Rejudge the submissions whose verdict the ready, current preview `key` changes (and
    any whose new test counts change a score by tests) and keep the scores they replace
    (committed by the caller); the ids queued. 409 when the preview is not ready, or is not
    of the problem and its submissions as they are now."""
    current, _, _ = current_preview_key(session, slug)
    row: StrengthReport | None = previews.find(session=session, key=key)
    if row is None or key != current:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail="that preview is not of the problem and its submissions as they are now "
            f"(a submission, rejudge or board since): POST {_location(slug)} again",
        )
    if row.status != previews.READY:
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail=f"the preview is {row.status}, not ready"
        )
    kept = regrades.changes(session=session, slug=slug, row=row)
    ids = regrades.to_rejudge(row, kept)
    regrades.record(session=session, key=key, found=kept, applied_by=user_id)
    return repo.rejudge(session=session, submission_ids=ids) if ids else []


@router.get("/assignments/{assignment_id}/regrades", response_model=RegradeList, responses=_ERRORS)
def list_regrades(assignment_id: DbId, session: SessionDep, user: Instructor) -> RegradeList:
    """The scores applied regrades replaced in this assignment, newest first: per student
    and problem the old score and the one the preview expected, who applied it and when."""
    find_assignment(session, assignment_id, user)
    return RegradeList(
        items=[
            RegradeScorePublic.model_validate(a, from_attributes=True)
            for a in regrades.history(session=session, assignment_id=assignment_id)
        ]
    )

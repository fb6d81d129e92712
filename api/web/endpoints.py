"""JSON endpoints the web pages need beyond the core contract (mounted under /api/v1).

- `POST /problems/{slug}/boards/preview` (any account): validate a board, its reference answer
  and one optimal line, without saving it: the board editor's live preview, for instructors'
  hidden boards and students' own run cases alike (a run of such a case shows its reference
  answer anyway).
- `GET /problems/{slug}/plan`: how many tests a submission will get (the live progress bar).
- `GET /submissions/{id}/tests/{index}/explanation`: the optimal line of play for a test the
  viewer may see the input of (a hidden board's line only for instructors).
- `GET /stats/problems`: acceptance per problem, and whether the viewer solved it, counting
  each verdict as students are shown it (from its release; the visible tests' while the
  problem holds its hidden results back).
- `GET /problems/{slug}/stats` (instructors): verdict distribution and submissions per day.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, status
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from sqlalchemy.orm import Session

from api import catalog
from api.deps import (
    CurrentUser,
    Instructor,
    OptionalUser,
    ServicesDep,
    SessionDep,
    SettingsDep,
    find_submission,
)
from api.presenters import view_for
from api.routers.problems import find_problem, validated_case
from api.schemas import BoardCreate, DbId, Message
from judge import problems
from judge.grading.plan import plan_size, small_positions
from judge.verdict import Verdict
from store import repo
from store.models import Role
from store.repo import stats

router = APIRouter(tags=["web"])


class BoardPreview(BaseModel):
    problem: str
    input: dict[str, Any]
    answer: Any
    explanation: dict[str, Any]


class TestPlan(BaseModel):
    samples: int
    small: int  # the small tier is one test (0 when the problem declares none)...
    small_positions: int  # ...of this many positions
    worst: int
    hidden: int
    random: int
    total: int


class ProblemStat(BaseModel):
    slug: str
    title: str
    submissions: int  # finished submissions
    accepted: int
    acceptance: float | None  # accepted / submissions; None before the first verdict
    solvers: int  # distinct users with an accepted submission
    mine: str | None  # "solved", "tried" or None for the viewer


class VerdictCount(BaseModel):
    verdict: str
    count: int


class DayCount(BaseModel):
    date: date
    total: int
    accepted: int


class ProblemStats(BaseModel):
    problem: str
    title: str
    submissions: int
    pending: int  # queued or running now
    users: int
    solvers: int
    verdicts: list[VerdictCount]  # every verdict, in a stable order, zeros included
    days: list[DayCount]  # one per UTC day, oldest first, zeros included


def _solve(module: problems.ProblemSpec, case: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    return module.reference(case), module.explain(case)


def _with_code(module: problems.ProblemSpec, session: Session, slug: str) -> None:
    """409 for what needs an uploaded problem's code in this process (it runs in a worker)."""
    if catalog.is_uploaded(session, slug):
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail="an uploaded problem's answers are computed by a worker: use a run",
        )


@router.post(
    "/problems/{slug}/boards/preview",
    response_model=BoardPreview,
    responses={
        401: {"model": Message},
        404: {"model": Message},
        409: {"model": Message},
        422: {"model": Message},
    },
)
async def preview_board(
    slug: str, board_in: BoardCreate, user: CurrentUser, session: SessionDep
) -> BoardPreview:
    """A drawn board checked and solved, nothing stored: what `POST /problems/{slug}/boards`
    would store, and a student's own case before it is run (409 for an uploaded problem:
    its code runs in a worker only)."""
    module = find_problem(slug, session, user.role == Role.INSTRUCTOR)
    _with_code(module, session, slug)
    case = validated_case(module, board_in.input)
    answer, explanation = await run_in_threadpool(_solve, module, case)
    return BoardPreview(problem=slug, input=case, answer=answer, explanation=explanation)


@router.get("/problems/{slug}/plan", response_model=TestPlan, responses={404: {"model": Message}})
def test_plan(slug: str, session: SessionDep, settings: SettingsDep, user: CurrentUser) -> TestPlan:
    """Tests a submission made now would get: samples, the small tier, the worst cases,
    random boards, hidden boards."""
    entry = catalog.lookup(session, slug, user.role == Role.INSTRUCTOR)
    if entry is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"unknown problem {slug!r}")
    module = entry.spec
    count = module.RANDOM_COUNT if settings.random_count is None else settings.random_count
    if entry.plan is not None:  # an uploaded problem: what the worker counted with its code
        positions, worst = entry.plan.get("small_positions", 0), entry.plan.get("worst", 0)
        hidden = entry.plan.get("hidden", 0)
    else:
        hidden = repo.hidden_board_count(session=session, problem=slug)
        positions, worst = len(small_positions(module)), len(module.WORST_CASES)
    small = 1 if positions else 0
    return TestPlan(
        samples=len(module.SAMPLES),
        small=small,
        small_positions=positions,
        worst=worst,
        hidden=hidden,
        random=count,
        total=plan_size(module, hidden, count)
        if entry.plan is None
        else len(module.SAMPLES) + small + worst + count + hidden,
    )


@router.get(
    "/submissions/{submission_id}/tests/{index}/explanation",
    response_model=dict[str, Any],
    responses={404: {"model": Message}},
)
async def explain_test(
    submission_id: DbId,
    index: Annotated[int, Path(ge=0, le=1_000_000)],
    session: SessionDep,
    viewer: CurrentUser,
) -> dict[str, Any]:
    """One optimal line of play on the input of a test the viewer can see."""
    sub = find_submission(session, submission_id, viewer)
    rows = repo.current_tests(session=session, submission=sub, after_index=index - 1)
    # Under a received-only assignment, not even which tests exist (or their inputs).
    view = view_for(session, viewer, sub.user_id)
    if viewer.role != Role.INSTRUCTOR and view.received_only(sub.problem) is not None:
        rows = []
    row = rows[0] if rows and rows[0].index == index else None
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no test {index} in this result")
    if row.input is None or (row.kind == "hidden" and viewer.role != Role.INSTRUCTOR):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="this test's input is hidden")
    module = find_problem(sub.problem, session, instructor=True)
    _with_code(module, session, sub.problem)
    validated_case(module, row.input)
    return await run_in_threadpool(module.explain, row.input)


@router.get("/stats/problems", response_model=list[ProblemStat])
def problem_stats(
    services: ServicesDep, session: SessionDep, viewer: OptionalUser
) -> list[ProblemStat]:
    """Acceptance rate of every problem (public, as the problem list is), and the viewer's
    own standing on it when logged in: each verdict counted as students are shown it."""
    totals = services.problem_totals.get(session=session)
    mine = stats.standing(session=session, user_id=viewer.id) if viewer else {}
    out = []
    for slug, module in catalog.shown(session).items():
        counts = totals.get(slug, stats.ProblemTotals(0, 0, 0))
        out.append(
            ProblemStat(
                slug=slug,
                title=module.TITLE,
                submissions=counts.finished,
                accepted=counts.accepted,
                acceptance=counts.accepted / counts.finished if counts.finished else None,
                solvers=counts.solvers,
                mine=mine.get(slug),
            )
        )
    return out


VERDICT_ORDER = [v.value for v in Verdict if v is not Verdict.SKIPPED]


@router.get(
    "/problems/{slug}/stats",
    response_model=ProblemStats,
    responses={403: {"model": Message}, 404: {"model": Message}},
)
def problem_detail_stats(
    slug: str,
    services: ServicesDep,
    session: SessionDep,
    user: Instructor,
    days: Annotated[int, Query(ge=1, le=366, description="UTC days to chart, ending today")] = 30,
) -> ProblemStats:
    """Verdict distribution of finished submissions and submissions per UTC day."""
    module = find_problem(slug, session, instructor=True)
    chart = stats.recent_days(days)
    since = stats.day_start(chart[0])
    detail = services.stats_cache.get(
        session=session,
        key=("problem", slug, since),
        compute=lambda s: stats.problem_detail(session=s, problem=slug, since=since),
    )
    by_verdict = dict(detail.verdicts)
    verdicts = [VerdictCount(verdict=v, count=by_verdict.pop(v, 0)) for v in VERDICT_ORDER]
    verdicts += [VerdictCount(verdict=str(v), count=n) for v, n in by_verdict.items() if v]
    return ProblemStats(
        problem=slug,
        title=module.TITLE,
        submissions=detail.finished,
        pending=detail.pending,
        users=detail.users,
        solvers=detail.solvers,
        verdicts=verdicts,
        days=[
            DayCount(
                date=d, total=detail.days.get(d, (0, 0))[0], accepted=detail.days.get(d, (0, 0))[1]
            )
            for d in chart
        ],
    )

"""Problem statements, and the instructors' hidden boards of each problem."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Response, status
from sqlalchemy.orm import Session

from api import catalog, offered_languages
from api.deps import Instructor, SessionDep
from api.markdown import render_markdown
from api.schemas import (
    BoardCreate,
    BoardCreated,
    BoardPublic,
    DbId,
    LimitsPublic,
    Message,
    ProblemPublic,
    ProblemSummary,
    ReleasePublic,
    ReleaseUpdate,
    Sample,
    ViewPublic,
)
from judge import problems
from judge.languages import styles_of
from store import repo
from store.models import Board

router = APIRouter(tags=["problems"])


# What hidden boards are for an uploaded problem: part of its package, graded as its hidden
# tier, so that every version says what it is graded on.
UPLOADED_BOARDS = (
    "hidden boards of an uploaded problem live in its package's boards/ folder: "
    "upload a new version"
)


def find_problem(slug: str, session: Session, instructor: bool = False) -> problems.ProblemSpec:
    """The problem a URL names (api.catalog); 404 when there is none for this viewer."""
    return catalog.find(session, slug, instructor)


def known_problem(slug: str, session: Session, instructor: bool = False) -> problems.ProblemSpec:
    """The problem a body names; 422 when there is none (a body's field, not the URL)."""
    return catalog.known(session, slug, instructor)


def builtin_boards(slug: str, session: Session) -> problems.ProblemSpec:
    """A problem whose hidden boards are added here (a built-in): 409 for an uploaded one."""
    module = find_problem(slug, session, instructor=True)
    if slug not in problems.registry():
        raise HTTPException(status.HTTP_409_CONFLICT, detail=UPLOADED_BOARDS)
    return module


def validated_case(module: problems.ProblemSpec, case: Any, where: str = "") -> Any:
    """The case if the problem accepts it; else 422 with the validator's message (after
    `where`, which says which case of several)."""
    try:
        module.validate(case)
    except Exception as exc:  # InvalidCase, or anything a malformed case trips on
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, detail=f"{where}invalid board: {exc}"
        ) from exc
    return case


def _limits(module: problems.ProblemSpec) -> LimitsPublic:
    limits = module.LIMITS
    return LimitsPublic(time_s=limits.time_s, memory_mb=limits.memory_mb, total_s=limits.total_s)


def _view(module: problems.ProblemSpec) -> ViewPublic:
    return ViewPublic(kind=module.VIEW.kind, bounds=dict(module.VIEW.bounds))


# The problems and their statements are public (no login): submitting and running need one.
@router.get("/problems", response_model=list[ProblemSummary])
def list_problems(session: SessionDep) -> list[ProblemSummary]:
    return [
        ProblemSummary(slug=slug, title=m.TITLE, limits=_limits(m), view=_view(m))
        for slug, m in catalog.shown(session).items()
    ]


@router.get("/problems/{slug}", response_model=ProblemPublic, responses={404: {"model": Message}})
def get_problem(slug: str, session: SessionDep) -> ProblemPublic:
    module = find_problem(slug, session)
    return ProblemPublic(
        slug=slug,
        title=module.TITLE,
        limits=_limits(module),
        view=_view(module),
        statement=module.STATEMENT,
        statement_html=render_markdown(module.STATEMENT),
        params=list(module.PARAMS),
        samples=[Sample(input=s["input"], answer=s["answer"]) for s in module.SAMPLES],
        param_types={name: t.name for name, t in module.PARAM_TYPES.items()},
        answer_type=module.ANSWER.name,
        styles=[s.value for s in styles_of(module)],
        stdio_statement=offered_languages.stdio_statement(module),
        languages=offered_languages.on_problem(module),
        hidden_release_at=repo.hidden_release(session=session, problem=slug),
    )


@router.put(
    "/problems/{slug}/release",
    response_model=ReleasePublic,
    responses={401: {"model": Message}, 403: {"model": Message}, 404: {"model": Message}},
)
def set_release(
    slug: str, body: ReleaseUpdate, session: SessionDep, user: Instructor
) -> ReleasePublic:
    """Hold the problem's hidden results back from students until `hidden_release_at`
    ("pretests now, system tests at the deadline"): until then a student sees each
    judging over its visible tests alone (`hidden_pending`), and then whole. null: each
    judging is shown whole once released. Instructors see everything at once either way."""
    find_problem(slug, session, instructor=True)
    repo.set_hidden_release(
        session=session, problem=slug, at=body.hidden_release_at, user_id=user.id
    )
    session.commit()
    return ReleasePublic(
        problem=slug, hidden_release_at=repo.hidden_release(session=session, problem=slug)
    )


def _board(board: Board) -> BoardPublic:
    return BoardPublic(
        id=board.id,
        problem=board.problem,
        input=board.input,
        answer=board.answer,
        author=board.author.username if board.author else None,
        created_at=board.created_at,
    )


@router.get(
    "/problems/{slug}/boards",
    response_model=list[BoardPublic],
    responses={403: {"model": Message}, 404: {"model": Message}},
)
def list_boards(slug: str, session: SessionDep, user: Instructor) -> list[BoardPublic]:
    """Hidden boards of a problem (instructors only)."""
    find_problem(slug, session, instructor=True)
    return [_board(b) for b in repo.list_boards(session=session, problem=slug)]


@router.post(
    "/problems/{slug}/boards",
    status_code=status.HTTP_201_CREATED,
    response_model=BoardCreated,
    responses={
        403: {"model": Message},
        404: {"model": Message},
        409: {"model": Message},
        422: {"model": Message},
    },
)
def add_board(
    slug: str, board_in: BoardCreate, session: SessionDep, user: Instructor
) -> BoardCreated:
    """Add a hidden board: validated by the problem, answered once by its reference solver.
    409 for an uploaded problem: its hidden boards are its package's boards/."""
    module = builtin_boards(slug, session)
    case = validated_case(module, board_in.input)
    answer = module.reference(case)
    explanation = module.explain(case)
    board = repo.add_board(
        session=session, problem=slug, case=case, answer=answer, author_id=user.id
    )
    session.commit()
    return BoardCreated(**_board(board).model_dump(), explanation=explanation)


@router.delete(
    "/problems/{slug}/boards/{board_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={403: {"model": Message}, 404: {"model": Message}},
)
def delete_board(slug: str, board_id: DbId, session: SessionDep, user: Instructor) -> Response:
    find_problem(slug, session, instructor=True)
    if not repo.delete_board(session=session, problem=slug, board_id=board_id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no board {board_id} in {slug}")
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)

"""Per hidden board, for instructors: how many submissions fail it, and its label and note."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from api.deps import Instructor, SessionDep
from api.routers.problems import find_problem
from api.schemas import BoardNotes, BoardReport, DbId, Message
from store import repo
from store.models import Board
from store.repo.board_report import BoardFailures, board_failures, set_notes

router = APIRouter(tags=["problems"])


def _clean(text: str | None) -> str | None:
    """Stripped, and None when empty; control characters (but line breaks in a note) out."""
    if text is None:
        return None
    kept = "".join(c for c in text if c.isprintable() or c == "\n").strip()
    return kept or None


def _report(board: Board, counts: BoardFailures | None) -> BoardReport:
    return BoardReport(
        id=board.id,
        label=board.label,
        note=board.note,
        judged=counts.judged if counts else 0,
        failing=counts.failing if counts else 0,
        failing_students=counts.failing_students if counts else 0,
    )


@router.get(
    "/problems/{slug}/boards/report",
    response_model=list[BoardReport],
    responses={401: {"model": Message}, 403: {"model": Message}, 404: {"model": Message}},
)
def report(slug: str, session: SessionDep, user: Instructor) -> list[BoardReport]:
    """Each hidden board with its label and note, and how many submissions (and students)
    fail it among those whose current judging ran it."""
    find_problem(slug, session, instructor=True)
    counts = board_failures(session=session, problem=slug)
    return [_report(b, counts.get(b.id)) for b in repo.list_boards(session=session, problem=slug)]


@router.patch(
    "/problems/{slug}/boards/{board_id}",
    response_model=BoardReport,
    responses={401: {"model": Message}, 403: {"model": Message}, 404: {"model": Message}},
)
def change_notes(
    slug: str, board_id: DbId, notes: BoardNotes, session: SessionDep, user: Instructor
) -> BoardReport:
    """Set a board's label and note (null or empty clears them); grading ignores both."""
    find_problem(slug, session, instructor=True)
    board = repo.get_board(session=session, problem=slug, board_id=board_id)
    if board is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no board {board_id} in {slug}")
    set_notes(session=session, board=board, label=_clean(notes.label), note=_clean(notes.note))
    session.commit()
    counts = board_failures(session=session, problem=slug).get(board.id)
    return _report(board, counts)

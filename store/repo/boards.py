"""The problems' hidden boards, with their cached reference answers."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, select
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import Board


def add_board(
    *, session: Session, problem: str, case: dict[str, Any], answer: int, author_id: int | None
) -> Board:
    board = Board(problem=problem, input=case, answer=answer, author_id=author_id)
    session.add(board)
    session.flush()
    return board


def list_boards(*, session: Session, problem: str) -> list[Board]:
    return list(session.scalars(select(Board).where(Board.problem == problem).order_by(Board.id)))


def get_board(*, session: Session, problem: str, board_id: int) -> Board | None:
    board = session.get(Board, board_id)
    return board if board is not None and board.problem == problem else None


def delete_board(*, session: Session, problem: str, board_id: int) -> bool:
    result = session.execute(delete(Board).where(Board.id == board_id, Board.problem == problem))
    return rowcount(result) == 1


def _hidden(problem: str) -> ColumnElement[bool]:
    """The boards a submission to the problem is graded on: one filter, so the test plan the
    pages count and the grading agree."""
    return and_(Board.problem == problem, Board.hidden)


def hidden_cases(*, session: Session, problem: str) -> list[dict[str, Any]]:
    """The problem's hidden boards in grading order, with their cached reference answers."""
    boards = session.scalars(select(Board).where(_hidden(problem)).order_by(Board.id))
    return [{"id": board.id, "input": board.input, "answer": board.answer} for board in boards]


def hidden_board_count(*, session: Session, problem: str) -> int:
    """How many hidden boards a submission to the problem gets (the test plan)."""
    return session.scalar(select(func.count()).where(_hidden(problem))) or 0

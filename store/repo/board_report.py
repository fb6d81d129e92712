"""Hidden boards as an instructor judges them: how many submissions each one fails (a weak
board is one nobody fails), and the label and note the instructor gave it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from store.models import Board, Submission, TestRow

# Not a failure of the board's: the test passed, or it never ran (the time budget ran out).
NOT_FAILED = ("AC", "SKIPPED")


@dataclass(frozen=True)
class BoardFailures:
    board_id: int
    judged: int  # submissions whose current judging ran the board
    failing: int  # ... and failed it
    failing_students: int  # distinct students among those


def board_failures(*, session: Session, problem: str) -> dict[int, BoardFailures]:
    """Per hidden board of the problem, from the test rows kept (each submission's current
    judging): one aggregate over the partial index `ix_test_results_board`."""
    failed = TestRow.verdict.not_in(NOT_FAILED)
    rows = session.execute(
        select(
            TestRow.board_id,
            func.count(distinct(TestRow.submission_id)),
            func.count(distinct(TestRow.submission_id)).filter(failed),
            func.count(distinct(Submission.user_id)).filter(failed),
        )
        .join(Submission, Submission.id == TestRow.submission_id)
        .where(
            TestRow.board_id.in_(select(Board.id).where(Board.problem == problem)),
            TestRow.board_id.is_not(None),
        )
        .group_by(TestRow.board_id)
    )
    return {
        board_id: BoardFailures(board_id, judged, failing, students)
        for board_id, judged, failing, students in rows
        if board_id is not None  # the query excludes them; the column type cannot say so
    }


def set_notes(*, session: Session, board: Board, label: str | None, note: str | None) -> None:
    board.label = label
    board.note = note
    session.flush()

"""The course view: accounts can be disabled, boards get a label and a note; indexes for
the progress table and for counting the submissions each hidden board fails.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # The default lives in the model; the server default only filled the existing rows.
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.alter_column("disabled", server_default=None)
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_submissions_progress",
            ["user_id", "problem", "status", "verdict", "created_at"],
            unique=False,
        )
    with op.batch_alter_table("boards", schema=None) as batch_op:
        batch_op.add_column(sa.Column("label", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("note", sa.Text(), nullable=True))
    with op.batch_alter_table("test_results", schema=None) as batch_op:
        batch_op.create_index(
            "ix_test_results_board",
            ["board_id", "verdict", "submission_id"],
            unique=False,
            postgresql_where=sa.text("board_id IS NOT NULL"),
            sqlite_where=sa.text("board_id IS NOT NULL"),
        )


def downgrade() -> None:
    with op.batch_alter_table("test_results", schema=None) as batch_op:
        batch_op.drop_index("ix_test_results_board")
    with op.batch_alter_table("boards", schema=None) as batch_op:
        batch_op.drop_column("note")
        batch_op.drop_column("label")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_progress")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("disabled")

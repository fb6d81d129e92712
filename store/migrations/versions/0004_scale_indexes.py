"""Indexes for the history's orders and filters and for the statistics; drop the test rows'
index that duplicates the unique index's leading column; cached strength reports.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NEW_INDEXES = {
    "ix_submissions_created": ["created_at", "id"],
    "ix_submissions_verdict_created": ["verdict", "created_at", "id"],
    "ix_submissions_finished": ["finished_at"],
    "ix_submissions_problem_stats": ["problem", "status", "verdict", "user_id"],
}
# Recreated with the id appended (the tie-break of newest first).
WIDENED = {
    "ix_submissions_user_created": (["user_id", "created_at"], ["user_id", "created_at", "id"]),
    "ix_submissions_problem_created": (["problem", "created_at"], ["problem", "created_at", "id"]),
}


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        for name, (_, columns) in WIDENED.items():
            batch_op.drop_index(name)
            batch_op.create_index(name, columns, unique=False)
        for name, columns in NEW_INDEXES.items():
            batch_op.create_index(name, columns, unique=False)
    with op.batch_alter_table("test_results", schema=None) as batch_op:
        batch_op.drop_index("ix_test_results_submission_id")
    op.create_table(
        "strength_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("problem", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_strength_reports")),
        sa.UniqueConstraint("key", name=op.f("uq_strength_reports_key")),
    )
    with op.batch_alter_table("strength_reports", schema=None) as batch_op:
        batch_op.create_index(
            "ix_strength_reports_problem", ["problem", "requested_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("strength_reports", schema=None) as batch_op:
        batch_op.drop_index("ix_strength_reports_problem")
    op.drop_table("strength_reports")
    with op.batch_alter_table("test_results", schema=None) as batch_op:
        batch_op.create_index("ix_test_results_submission_id", ["submission_id"], unique=False)
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        for name in NEW_INDEXES:
            batch_op.drop_index(name)
        for name, (columns, _) in WIDENED.items():
            batch_op.drop_index(name)
            batch_op.create_index(name, columns, unique=False)

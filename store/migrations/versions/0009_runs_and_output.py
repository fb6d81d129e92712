"""Runs (a source on the samples or the student's own cases, not a submission), and what a
visible test printed and where its bug is.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem", sa.String(length=64), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("cases", sa.JSON(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("case_count", sa.Integer(), nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("token", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_expires", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_runs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index("ix_runs_user_created", ["user_id", "created_at"], unique=False)
        batch_op.create_index("ix_runs_created", ["created_at"], unique=False)
        batch_op.create_index("ix_runs_status", ["status", "created_at"], unique=False)
    with op.batch_alter_table("test_results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stdout", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("stderr", sa.Text(), nullable=True))
        batch_op.add_column(
            sa.Column("output_cut", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("diagnosis", sa.JSON(), nullable=True))
    # The default lives in the model; the server default only filled the existing rows.
    with op.batch_alter_table("test_results", schema=None) as batch_op:
        batch_op.alter_column("output_cut", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("test_results", schema=None) as batch_op:
        batch_op.drop_column("diagnosis")
        batch_op.drop_column("output_cut")
        batch_op.drop_column("stderr")
        batch_op.drop_column("stdout")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index("ix_runs_status")
        batch_op.drop_index("ix_runs_created")
        batch_op.drop_index("ix_runs_user_created")
    op.drop_table("runs")

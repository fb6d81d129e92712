"""Regrades: the scores a regrade applied from a rejudge preview replaced
(`regrade_scores`), per assignment, student and problem, with who applied it and when.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _user_fk(column: str, ondelete: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["users.id"], name=op.f(f"fk_regrade_scores_{column}_users"), ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "regrade_scores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("preview_key", sa.String(64), nullable=False),
        sa.Column("applied_by", sa.Integer(), nullable=True),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("old_score", sa.Float(), nullable=False),
        sa.Column("new_score", sa.Float(), nullable=False),
        sa.Column("old_total", sa.Float(), nullable=False),
        sa.Column("new_total", sa.Float(), nullable=False),
        sa.Column("overridden", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_regrade_scores_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        _user_fk("user_id", "CASCADE"),
        _user_fk("applied_by", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_regrade_scores")),
    )
    op.create_index(
        "ix_regrade_scores_assignment", "regrade_scores", ["assignment_id", "applied_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_regrade_scores_assignment", table_name="regrade_scores")
    op.drop_table("regrade_scores")

"""`credit_changes`: per bump of an assignment's credit version, the student whose credit it
may change (none: anyone's), so that a cached gradebook recomputes only their rows.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | Sequence[str] | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Empty: the versions bumped before it have no rows, so a gradebook cached for one of
    # them is computed again in full (store/repo/gradebook.py reads a gap so).
    op.create_table(
        "credit_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_credit_changes_assignment_version",
        "credit_changes",
        ["assignment_id", "version"],
    )


def downgrade() -> None:
    op.drop_index("ix_credit_changes_assignment_version", table_name="credit_changes")
    op.drop_table("credit_changes")

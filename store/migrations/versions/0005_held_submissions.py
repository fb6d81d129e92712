"""Held submissions (status `held`, their reason), the last infrastructure failure, the
sweeper's resend count, and an index on claim times (the sweeper reads them).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_failure", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("hold_reason", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("resends", sa.Integer(), nullable=False, server_default="0"))
        batch_op.create_index("ix_submissions_started", ["started_at"], unique=False)
    # The default lives in the model; the server default only filled the existing rows.
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.alter_column("resends", server_default=None)


def downgrade() -> None:
    # Held rows go back to the queue: older code knows no `held` status.
    op.execute("UPDATE submissions SET status = 'queued' WHERE status = 'held'")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_started")
        batch_op.drop_column("resends")
        batch_op.drop_column("hold_reason")
        batch_op.drop_column("last_failure")

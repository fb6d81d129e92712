"""Workers' heartbeats (one row per worker process and lane: grading, run, hidden, sweeper),
read by /healthz and the submission page; and the worker holding each claim, and whether
the grading is waiting for its hidden tier on the hidden lane (`away_since`), so that a
grading its worker left because it was being stopped (a deploy), or while none of its code
ran there, is not counted as one of the submission's interrupted attempts.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "worker_heartbeats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("lane", sa.String(16), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stopping_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_worker_heartbeats")),
    )
    op.create_index("ix_worker_heartbeats_lane_beat", "worker_heartbeats", ["lane", "beat_at"])
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("claimed_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("away_since", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("away_since")
        batch.drop_column("claimed_by")
    op.drop_index("ix_worker_heartbeats_lane_beat", table_name="worker_heartbeats")
    op.drop_table("worker_heartbeats")

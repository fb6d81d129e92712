"""When a queued submission's latest message was dropped (deferred) because another of its
user's submissions went first: only then does the worker that finishes that one send it
again. A message still queued is left to arrive: sending another would deliver it twice and,
stamped as sent now, make the older rows still queued look overtaken to the sweeper. The
sweeper also reads it as the queue moving, when every message consumed lately was dropped.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("deferred_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("deferred_at")

"""Whether a submission's latest message was sent delayed (for its user's previous
judging's release): such a message is taken out of the queue at once and run at its time,
outside the queue's order, so the sweeper must not read its claim as the queue having moved
past older rows (as it already does not for a retry's).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | Sequence[str] | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(
            sa.Column("sent_delayed", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("sent_delayed")

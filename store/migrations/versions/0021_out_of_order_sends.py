"""Whether a submission's latest message may be claimed out of the queue's order: one sent
delayed (for its user's previous judging's release), which Celery takes out of the queue at
once and runs at its time, or one the sweeper sent again while the first may still be
queued ahead of it (whichever is consumed first claims the row). The sweeper must not read
such a claim as the queue having moved past older rows, as it already does not for a
retry's: one misread resend made the rows between look overtaken, and their resends more.

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
            sa.Column("sent_out_of_order", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("sent_out_of_order")

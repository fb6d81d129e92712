"""Each worker leases a block of sandbox uids of its own (sandbox_uid_blocks).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sandbox_uid_blocks",
        sa.Column("block", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("boot_id", sa.String(length=64), nullable=False),
        sa.Column("pid_namespace", sa.String(length=64), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("block", name=op.f("pk_sandbox_uid_blocks")),
    )


def downgrade() -> None:
    op.drop_table("sandbox_uid_blocks")

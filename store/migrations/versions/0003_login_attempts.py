"""Failed logins and registrations, counted for throttling (login_attempts).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=True),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_attempts")),
    )
    with op.batch_alter_table("login_attempts", schema=None) as batch_op:
        batch_op.create_index(
            "ix_login_attempts_kind_username", ["kind", "username", "created_at"], unique=False
        )
        batch_op.create_index(
            "ix_login_attempts_kind_address", ["kind", "address", "created_at"], unique=False
        )
        batch_op.create_index("ix_login_attempts_created", ["created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("login_attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_login_attempts_created")
        batch_op.drop_index("ix_login_attempts_kind_address")
        batch_op.drop_index("ix_login_attempts_kind_username")
    op.drop_table("login_attempts")

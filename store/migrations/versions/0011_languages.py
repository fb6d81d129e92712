"""The language and style of each submission and run (issue 10: C++, Java, Kotlin; a
function or a whole program reading stdin). Rows from before are Python functions.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("submissions", "runs")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("language", sa.String(16), nullable=False, server_default="python")
            )
            batch.add_column(
                sa.Column("style", sa.String(16), nullable=False, server_default="function")
            )
    # The history filtered by language, newest first, like its other filters.
    op.create_index(
        "ix_submissions_language_created", "submissions", ["language", "created_at", "id"]
    )


def downgrade() -> None:
    op.drop_index("ix_submissions_language_created", table_name="submissions")
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("style")
            batch.drop_column("language")

"""The gradebook's figures: each judging's passed and total tests per kind stored on its
submission (`submissions.test_counts`, backfilled from the current judging's test rows),
`assignments.credit_version` (what its cached gradebook is keyed by), and the problem's
index covering the gradebook's attempts query on PostgreSQL.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-03

"""

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | Sequence[str] | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_submissions_problem_created"
INDEX_COLUMNS = ["problem", "created_at", "id"]
# Copied from store/models.py (a migration does not import the models: they move on).
INCLUDED = ["user_id", "status", "verdict", "test_counts"]
BATCH = 1000

submissions = sa.table(
    "submissions",
    sa.column("id", sa.Integer()),
    sa.column("status", sa.String()),
    sa.column("lease_token", sa.Integer()),
    sa.column("test_counts", sa.JSON()),
)
tests = sa.table(
    "test_results",
    sa.column("submission_id", sa.Integer()),
    sa.column("lease_token", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("verdict", sa.String()),
)


def _counts(connection: Any) -> dict[int, dict[str, list[int]]]:
    """Finished submission id -> kind -> [passed, total] over its current judging's tests
    (none for one that ran no test: a compile error)."""
    found: dict[int, dict[str, list[int]]] = defaultdict(dict)
    for (sid,) in connection.execute(
        sa.select(submissions.c.id).where(submissions.c.status == "done")
    ):
        found[sid] = {}
    rows = connection.execute(
        sa.select(
            tests.c.submission_id,
            tests.c.kind,
            sa.func.sum(sa.case((tests.c.verdict == "AC", 1), else_=0)),
            sa.func.count(),
        )
        .join(
            submissions,
            sa.and_(
                submissions.c.id == tests.c.submission_id,
                submissions.c.lease_token == tests.c.lease_token,
            ),
        )
        .where(submissions.c.status == "done")
        .group_by(tests.c.submission_id, tests.c.kind)
    )
    for sid, kind, passed, total in rows:
        found[sid][kind] = [int(passed or 0), int(total)]
    return found


def _backfill(connection: Any) -> None:
    update = (
        sa.update(submissions)
        .where(submissions.c.id == sa.bindparam("sid"))
        .values(test_counts=sa.bindparam("counts", type_=sa.JSON()))
    )
    items = [{"sid": sid, "counts": counts} for sid, counts in _counts(connection).items()]
    for at in range(0, len(items), BATCH):
        connection.execute(update, items[at : at + BATCH])


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("test_counts", sa.JSON(), nullable=True))
    with op.batch_alter_table("assignments") as batch:
        batch.add_column(
            sa.Column("credit_version", sa.Integer(), nullable=False, server_default="0")
        )
    _backfill(op.get_bind())
    # INCLUDE is PostgreSQL's (SQLite ignores the option: its index stays the key alone).
    with op.batch_alter_table("submissions") as batch:
        batch.drop_index(INDEX)
        batch.create_index(INDEX, INDEX_COLUMNS, unique=False, postgresql_include=INCLUDED)


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_index(INDEX)
        batch.create_index(INDEX, INDEX_COLUMNS, unique=False)
        batch.drop_column("test_counts")
    with op.batch_alter_table("assignments") as batch:
        batch.drop_column("credit_version")

"""What students are shown of each judging, and from when (issue 19): the release moment R
(the judging's duration in whole quanta, later for a problem holding its hidden results
back), the passed/total over the rows a student is shown, the verdict and counts over the
visible tests alone; and the problems' hidden-result release times.

Rows from before: released when they finished (students saw them then), their figures
counted from the test rows still kept (those of each submission's current judging; a
compile or internal error has none); an earlier judging whose rows are gone keeps None.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("submissions", "judgings")
COLUMNS = (
    ("released_at", lambda: sa.DateTime(timezone=True)),
    ("shown_passed", sa.Integer),
    ("shown_total", sa.Integer),
    ("visible_verdict", lambda: sa.String(16)),
    ("visible_passed", sa.Integer),
    ("visible_total", sa.Integer),
)


def _figures(table: str, submission_id: str) -> str:
    """The UPDATE that counts a table's figures from the test rows of its judging (the
    rule of store.release.student_figures, in SQL)."""
    rows = f"t.submission_id = {table}.{submission_id} AND t.lease_token = {table}.lease_token"
    first_hidden_failure = (
        '(SELECT min(h."index") FROM test_results h WHERE h.submission_id = t.submission_id '
        "AND h.lease_token = t.lease_token AND h.kind = 'hidden' AND h.verdict <> 'AC')"
    )
    shown = f'(t.kind <> \'hidden\' OR t."index" <= coalesce({first_hidden_failure}, t."index"))'
    count = "SELECT count(*) FROM test_results t WHERE " + rows
    failing_visible = (
        f"SELECT t.verdict FROM test_results t WHERE {rows} AND t.kind <> 'hidden' "
        "AND t.verdict <> 'AC' ORDER BY t.\"index\" LIMIT 1"
    )
    any_failing = f"EXISTS (SELECT 1 FROM test_results t WHERE {rows} AND t.verdict <> 'AC')"
    return (
        f"UPDATE {table} SET "
        f"shown_passed = ({count} AND t.verdict = 'AC' AND {shown}), "
        f"shown_total = ({count} AND {shown}), "
        f"visible_passed = ({count} AND t.kind <> 'hidden' AND t.verdict = 'AC'), "
        f"visible_total = ({count} AND t.kind <> 'hidden'), "
        f"visible_verdict = coalesce(({failing_visible}), "
        f"CASE WHEN {any_failing} THEN 'AC' ELSE {table}.verdict END) "
    )


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            for name, kind in COLUMNS:
                batch.add_column(sa.Column(name, kind(), nullable=True))
    op.create_index("ix_submissions_released", "submissions", ["released_at"])
    op.create_table(
        "problem_releases",
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("hidden_release_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("set_by", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["set_by"],
            ["users.id"],
            name="fk_problem_releases_set_by_users",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("problem", name="pk_problem_releases"),
    )
    # Rows from before: students saw each result when it finished.
    op.execute("UPDATE submissions SET released_at = finished_at WHERE status = 'done'")
    op.execute("UPDATE judgings SET released_at = finished_at")
    op.execute(_figures("submissions", "id") + "WHERE status = 'done'")
    # A judging's rows are kept while it is its submission's latest (same token); a compile
    # or internal error never had any.
    op.execute(
        _figures("judgings", "submission_id")
        + "WHERE EXISTS (SELECT 1 FROM test_results t WHERE t.submission_id = "
        "judgings.submission_id AND t.lease_token = judgings.lease_token) "
        "OR judgings.verdict IN ('CE', 'IE')"
    )


def downgrade() -> None:
    op.drop_table("problem_releases")
    op.drop_index("ix_submissions_released", table_name="submissions")
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            for name, _ in reversed(COLUMNS):
                batch.drop_column(name)

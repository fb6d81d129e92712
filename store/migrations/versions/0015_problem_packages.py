"""Problems uploaded as packages: `problems` (state, published version) and
`problem_versions` (each uploaded zip, its manifest and its check's report); the package
digest a judging graded against, on `submissions` and `judgings`.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "problem_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("archive", sa.LargeBinary(), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("uploaded_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("check_sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("check_sends", sa.Integer(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["uploaded_by"],
            ["users.id"],
            name=op.f("fk_problem_versions_uploaded_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_problem_versions")),
        sa.UniqueConstraint("slug", "digest", name="uq_problem_versions_slug_digest"),
        sa.UniqueConstraint("slug", "number", name="uq_problem_versions_slug_number"),
    )
    op.create_index(op.f("ix_problem_versions_slug"), "problem_versions", ["slug"])
    op.create_table(
        "problems",
        sa.Column("slug", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("published_version_id", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["published_version_id"],
            ["problem_versions.id"],
            name=op.f("fk_problems_published_version_id_problem_versions"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name=op.f("fk_problems_created_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("slug", name=op.f("pk_problems")),
    )
    for table in ("submissions", "judgings"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("problem_version", sa.String(64), nullable=True))


def downgrade() -> None:
    for table in ("judgings", "submissions"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("problem_version")
    op.drop_table("problems")
    op.drop_index(op.f("ix_problem_versions_slug"), table_name="problem_versions")
    op.drop_table("problem_versions")

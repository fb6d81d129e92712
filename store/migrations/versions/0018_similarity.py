"""Code similarity: the fingerprint index (`similarity_fingerprints`), the submissions it
holds (`similarity_documents`) and the pairs of students found (`similarity_pairs`).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _fk(table: str, column: str, target: str, ondelete: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column],
        [f"{target}.id"],
        name=op.f(f"fk_{table}_{column}_{target}"),
        ondelete=ondelete,
    )


def upgrade() -> None:
    op.create_table(
        "similarity_documents",
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("indexed_at", sa.DateTime(timezone=True), nullable=False),
        _fk("similarity_documents", "submission_id", "submissions", "CASCADE"),
        sa.PrimaryKeyConstraint("submission_id", name=op.f("pk_similarity_documents")),
    )
    op.create_table(
        "similarity_fingerprints",
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("hash", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        _fk("similarity_fingerprints", "submission_id", "submissions", "CASCADE"),
        _fk("similarity_fingerprints", "user_id", "users", "CASCADE"),
        sa.PrimaryKeyConstraint(
            "submission_id", "position", name=op.f("pk_similarity_fingerprints")
        ),
    )
    op.create_index(
        "ix_similarity_fingerprints_lookup",
        "similarity_fingerprints",
        ["problem", "language", "hash"],
    )
    op.create_table(
        "similarity_pairs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("user_a", sa.Integer(), nullable=False),
        sa.Column("user_b", sa.Integer(), nullable=False),
        sa.Column("submission_a", sa.Integer(), nullable=False),
        sa.Column("submission_b", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("a_coverage", sa.Float(), nullable=False),
        sa.Column("b_coverage", sa.Float(), nullable=False),
        sa.Column("matched", sa.Integer(), nullable=False),
        sa.Column("found_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reviewed_by", sa.Integer(), nullable=True),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True),
        _fk("similarity_pairs", "user_a", "users", "CASCADE"),
        _fk("similarity_pairs", "user_b", "users", "CASCADE"),
        _fk("similarity_pairs", "submission_a", "submissions", "CASCADE"),
        _fk("similarity_pairs", "submission_b", "submissions", "CASCADE"),
        _fk("similarity_pairs", "reviewed_by", "users", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_similarity_pairs")),
        sa.UniqueConstraint("problem", "user_a", "user_b", name="uq_similarity_pairs_users"),
    )
    op.create_index("ix_similarity_pairs_problem_score", "similarity_pairs", ["problem", "score"])


def downgrade() -> None:
    op.drop_index("ix_similarity_pairs_problem_score", table_name="similarity_pairs")
    op.drop_table("similarity_pairs")
    op.drop_index("ix_similarity_fingerprints_lookup", table_name="similarity_fingerprints")
    op.drop_table("similarity_fingerprints")
    op.drop_table("similarity_documents")

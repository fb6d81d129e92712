"""Assignments: `assignments` (due time, late rule, which submission counts, feedback),
their problems with points (`assignment_problems`), students' extensions
(`assignment_extensions`) and instructors' score overrides (`score_overrides`).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _user_fk(table: str, column: str, ondelete: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["users.id"], name=op.f(f"fk_{table}_{column}_users"), ondelete=ondelete
    )


def _assignment_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["assignment_id"],
        ["assignments.id"],
        name=op.f(f"fk_{table}_assignment_id_assignments"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("release_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("late_rule", sa.String(16), nullable=False),
        sa.Column("late_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("late_percent", sa.Float(), nullable=True),
        sa.Column("late_factor", sa.Float(), nullable=True),
        sa.Column("counts", sa.String(8), nullable=False),
        sa.Column("feedback", sa.String(16), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        _user_fk("assignments", "created_by", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assignments")),
    )
    op.create_index("ix_assignments_release", "assignments", ["release_at"])
    op.create_table(
        "assignment_problems",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=True),
        sa.Column("scoring", sa.String(8), nullable=False),
        sa.Column("weights", sa.JSON(), nullable=True),
        _assignment_fk("assignment_problems"),
        sa.PrimaryKeyConstraint("assignment_id", "position", name=op.f("pk_assignment_problems")),
        sa.UniqueConstraint("assignment_id", "problem", name="uq_assignment_problems_problem"),
    )
    op.create_index("ix_assignment_problems_problem", "assignment_problems", ["problem"])
    op.create_table(
        "assignment_extensions",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("late_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("granted_by", sa.Integer(), nullable=True),
        sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
        _assignment_fk("assignment_extensions"),
        _user_fk("assignment_extensions", "user_id", "CASCADE"),
        _user_fk("assignment_extensions", "granted_by", "SET NULL"),
        sa.PrimaryKeyConstraint("assignment_id", "user_id", name=op.f("pk_assignment_extensions")),
    )
    op.create_index("ix_assignment_extensions_user", "assignment_extensions", ["user_id"])
    op.create_table(
        "score_overrides",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _assignment_fk("score_overrides"),
        _user_fk("score_overrides", "user_id", "CASCADE"),
        _user_fk("score_overrides", "author_id", "SET NULL"),
        sa.PrimaryKeyConstraint(
            "assignment_id", "user_id", "problem", name=op.f("pk_score_overrides")
        ),
    )


def downgrade() -> None:
    op.drop_table("score_overrides")
    op.drop_index("ix_assignment_extensions_user", table_name="assignment_extensions")
    op.drop_table("assignment_extensions")
    op.drop_index("ix_assignment_problems_problem", table_name="assignment_problems")
    op.drop_table("assignment_problems")
    op.drop_index("ix_assignments_release", table_name="assignments")
    op.drop_table("assignments")

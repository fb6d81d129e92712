"""LTI 1.3: registered platforms (`lti_platforms`), the tool's keys (`lti_keys`), linked LMS
users (`lti_accounts`), courses (`lti_contexts`), assignments' line items (`lti_line_items`),
scores waiting to be posted (`lti_score_posts`) and the launch storage (`lti_cache`).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _fk(table: str, column: str, target: str, ondelete: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("deployment_ids", sa.JSON(), nullable=False),
        sa.Column("auth_login_url", sa.String(2048), nullable=False),
        sa.Column("auth_token_url", sa.String(2048), nullable=False),
        sa.Column("key_set_url", sa.String(2048), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("lti_platforms", "created_by", "users", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_platforms")),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),
    )
    op.create_table(
        "lti_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kid", sa.String(64), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_keys")),
        sa.UniqueConstraint("kid", name=op.f("uq_lti_keys_kid")),
    )
    op.create_table(
        "lti_accounts",
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        _fk("lti_accounts", "platform_id", "lti_platforms", "CASCADE"),
        _fk("lti_accounts", "user_id", "users", "CASCADE"),
        sa.PrimaryKeyConstraint("platform_id", "sub", name=op.f("pk_lti_accounts")),
    )
    op.create_index("ix_lti_accounts_user", "lti_accounts", ["user_id"])
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("memberships_url", sa.String(2048), nullable=True),
        sa.Column("lineitems_url", sa.String(2048), nullable=True),
        _fk("lti_contexts", "platform_id", "lti_platforms", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_contexts")),
        sa.UniqueConstraint("platform_id", "context_id", name="uq_lti_contexts_platform_context"),
    )
    op.create_table(
        "lti_line_items",
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        _fk("lti_line_items", "context_id", "lti_contexts", "CASCADE"),
        _fk("lti_line_items", "assignment_id", "assignments", "CASCADE"),
        sa.PrimaryKeyConstraint("context_id", "assignment_id", name=op.f("pk_lti_line_items")),
    )
    op.create_index("ix_lti_line_items_assignment", "lti_line_items", ["assignment_id"])
    op.create_table(
        "lti_score_posts",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        _fk("lti_score_posts", "assignment_id", "assignments", "CASCADE"),
        _fk("lti_score_posts", "user_id", "users", "CASCADE"),
        sa.PrimaryKeyConstraint("assignment_id", "user_id", name=op.f("pk_lti_score_posts")),
    )
    op.create_index("ix_lti_score_posts_due", "lti_score_posts", ["due_at"])
    op.create_table(
        "lti_cache",
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_lti_cache")),
    )
    op.create_index("ix_lti_cache_expires", "lti_cache", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_lti_cache_expires", table_name="lti_cache")
    op.drop_table("lti_cache")
    op.drop_index("ix_lti_score_posts_due", table_name="lti_score_posts")
    op.drop_table("lti_score_posts")
    op.drop_index("ix_lti_line_items_assignment", table_name="lti_line_items")
    op.drop_table("lti_line_items")
    op.drop_table("lti_contexts")
    op.drop_index("ix_lti_accounts_user", table_name="lti_accounts")
    op.drop_table("lti_accounts")
    op.drop_table("lti_keys")
    op.drop_table("lti_platforms")

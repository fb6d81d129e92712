"""The Alembic migrations build exactly the schema the models describe, and go back down."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, inspect

from store.migrate import alembic_config, upgrade


def test_migrations_leave_no_difference_from_the_models(db_engine) -> None:
    """On SQLite and PostgreSQL (db_engine: both, migrated to head)."""
    url = db_engine.url.render_as_string(hide_password=False)
    command.check(alembic_config(url))  # raises when the models need a new migration


def test_migrations_downgrade_to_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'schema.sqlite'}"
    upgrade(url)
    command.downgrade(alembic_config(url), "base")
    engine = create_engine(url)
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    engine.dispose()

"""The Alembic migrations build exactly the schema the models describe, and go back down."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from store.migrate import alembic_config, upgrade
from store.models import Base


def test_migrations_match_the_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'schema.sqlite'}"
    upgrade(url)
    engine = create_engine(url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert diff == []


def test_migrations_downgrade_to_nothing(tmp_path):
    from alembic import command

    url = f"sqlite:///{tmp_path / 'schema.sqlite'}"
    upgrade(url)
    command.downgrade(alembic_config(url), "base")
    engine = create_engine(url)
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    engine.dispose()

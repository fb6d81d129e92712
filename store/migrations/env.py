"""Alembic environment: runs migrations on the URL given by store.migrate or the settings."""

from __future__ import annotations

from alembic import context

from store.db import make_engine
from store.models import Base

config = context.config


def database_url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from config import Settings

    return Settings().db_url


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(), target_metadata=Base.metadata, render_as_batch=True, literal_binds=True
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(database_url())
    try:
        with engine.connect() as connection:
            # Batch mode: SQLite can only ALTER tables by copying them.
            context.configure(
                connection=connection,
                target_metadata=Base.metadata,
                render_as_batch=True,
                compare_type=True,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

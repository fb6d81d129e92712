"""Per-process resources of a worker: built on first use, so after Celery forks its pool."""

from __future__ import annotations

from contextlib import contextmanager
from functools import cached_property

from sqlalchemy.orm import Session

from store.db import make_engine, make_session_factory
from store.settings import Settings


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @cached_property
    def session_factory(self):
        return make_session_factory(make_engine(self.settings.db_url))

    @contextmanager
    def session(self) -> Session:
        with self.session_factory() as session:
            yield session

    @cached_property
    def sandbox(self):
        from judge.sandbox import make_sandbox

        return make_sandbox(self.settings.sandbox)

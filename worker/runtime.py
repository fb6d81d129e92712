"""Per-process resources of a worker: built on first use, so after Celery forks its pool.

The sandbox is configured here, from the service settings: the sandbox reads no environment.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, TypedDict

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.orm import Session, sessionmaker

from config import Settings
from judge.execution.build import BuildCache
from judge.sandbox import Sandbox, SandboxConfig, make_sandbox
from store.db import make_engine, make_session_factory
from store.repo.judging import Claim

if TYPE_CHECKING:  # worker/hidden.py imports this module
    from worker.hidden import SendToHiddenLane


class Machinery(TypedDict):
    """What a task hands the judge (grade(), run_cases()) besides the work itself."""

    build_cache: BuildCache
    sandbox: Sandbox
    interrupts: tuple[type[BaseException], ...]


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # This worker's first sandbox uid, from its leased block (worker/uid_block_lease.py); set
        # at worker start, before the pool forks. None: settings.sandbox_uid_base.
        self.uid_base: int | None = None
        # This worker's heartbeat row (worker/liveness.py), set at worker start like uid_base:
        # its claims name it. None: not registered (the database was down at start).
        self.worker_id: int | None = None
        # The claim this (pool) process is grading now, if any: one task at a time per
        # process. Its hidden tier sent away marks the row meanwhile (worker/tasks.py).
        self.current_claim: Claim | None = None
        # Where this worker's gradings send their hidden tiers (worker/hidden.py), or None:
        # run here, under the phase lock.
        self.hidden_tier: SendToHiddenLane | None = None

    @cached_property
    def session_factory(self) -> sessionmaker[Session]:
        settings = self.settings
        engine = make_engine(settings.db_url, stalled_transaction_s=settings.stalled_transaction_s)
        return make_session_factory(engine)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self.session_factory() as session:
            yield session

    def sandbox_config(self) -> SandboxConfig:
        settings = self.settings
        return SandboxConfig(
            mode=settings.sandbox or "bwrap",
            python=settings.sandbox_python,
            slots=settings.sandbox_slots,
            uid_base=self.uid_base if self.uid_base is not None else settings.sandbox_uid_base,
            slot_dir=settings.sandbox_slot_dir,
            cgroup_parent=settings.cgroup_parent,
            phase_dir=settings.sandbox_phase_dir,
        )

    @cached_property
    def sandbox(self) -> Sandbox:
        return make_sandbox(self.sandbox_config())

    @cached_property
    def build_cache(self) -> BuildCache:
        """Where this worker keeps compiled submissions (shared by every worker on the host
        that names the same directory: entries are written atomically)."""
        settings = self.settings
        return BuildCache(str(settings.build_cache_path), settings.build_cache_bytes)

    def machinery(self) -> Machinery:
        """The build cache (a rejudge or a rerun does not compile again), the sandbox, and
        the task's soft time limit as what interrupts a run."""
        return Machinery(
            build_cache=self.build_cache,
            sandbox=self.sandbox,
            interrupts=(SoftTimeLimitExceeded,),
        )

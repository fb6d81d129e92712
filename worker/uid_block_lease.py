"""Each worker's own block of sandbox uids, leased in the database while it runs.

With `docker compose up --scale worker=N` every worker container has its own /run, so the
slot locks (judge/sandbox/slots.py) no longer keep two sandboxes of one host off the same
uid, where they would share its process limit. The uids must differ per worker, and a
derivation from the hostname (a hash) could collide, unnoticed. So each worker claims a
numbered block in the database, which every worker of the deployment already shares (Redis
is not there in the embedded setup): block N is `sandbox_slots` uids from
`sandbox_uid_base + N * sandbox_slots`. The claim is renewed while the worker runs and
released when it stops; a killed worker's block is free again when its lease expires, or at
once when the claimant can prove the holder dead (same boot and pid namespace, process gone).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from store.db import make_engine, make_session_factory
from store.repo import uid_blocks
from store.repo.uid_blocks import Holder
from worker.runtime import Runtime

log = logging.getLogger(__name__)

LEASE_S = 300.0  # outlives a database outage; a crashed worker's block waits this long
RENEW_EVERY_S = 20.0
MAX_BLOCKS = 1024
CLAIM_RETRY_S = 2.0


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (tells a reused pid apart)."""
    text = _read(f"/proc/{pid}/stat")
    try:
        return int(text.rsplit(")", 1)[1].split()[19])
    except (IndexError, ValueError):
        return None


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def this_process() -> Holder:
    pid = os.getpid()
    return Holder(
        host=socket.gethostname()[:255],
        boot_id=_read("/proc/sys/kernel/random/boot_id"),
        pid_namespace=_pid_namespace(),
        pid=pid,
        started=start_time(pid) or 0,
    )


def is_gone(holder: Holder) -> bool:
    """True only when `holder` provably no longer runs: it ran on this boot of this kernel
    in our pid namespace (so its pid means the same here), and that pid is gone or now
    belongs to a later process. Anything else (another host, another container) is left to
    its lease."""
    me = this_process()
    if not holder.boot_id or holder.boot_id != me.boot_id:
        return False
    if not holder.pid_namespace or holder.pid_namespace != me.pid_namespace:
        return False
    return start_time(holder.pid) != holder.started


def block_count(runtime: Runtime) -> int:
    settings = runtime.settings
    return min(MAX_BLOCKS, ((1 << 31) - settings.sandbox_uid_base) // settings.sandbox_slots)


class UidBlockLease:
    """Claims a block for this worker process and keeps it until `release()`."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        # Its own engine, not the runtime's: this runs in the main process, and a pool of
        # connections opened here would be inherited by the forked pool processes (two
        # processes on one PostgreSQL connection). Disposed after every use for that reason.
        self._engine = make_engine(runtime.settings.db_url)
        self._sessions = make_session_factory(self._engine)
        self.holder = this_process()
        self.block: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @contextmanager
    def _session(self) -> Iterator[Session]:
        try:
            with self._sessions() as session:
                yield session
        finally:
            self._engine.dispose()  # no connection left open for a fork

    @property
    def uid_base(self) -> int:
        settings = self.runtime.settings
        assert self.block is not None
        return settings.sandbox_uid_base + self.block * settings.sandbox_slots

    def claim(self, timeout: float = 300.0) -> int:
        """Claim a block, waiting for the database when it is not reachable yet."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with self._session() as session:
                    self.block = uid_blocks.claim_block(
                        session=session,
                        holder=self.holder,
                        lease_s=LEASE_S,
                        blocks=block_count(self.runtime),
                        is_gone=is_gone,
                    )
                break
            except Exception as exc:  # the database is not up yet: wait for it
                if time.monotonic() > deadline:
                    raise
                log.warning("could not claim a sandbox uid block yet (%s); retrying", exc)
                time.sleep(CLAIM_RETRY_S)
        if self.block is None:
            raise RuntimeError(
                f"every sandbox uid block ({block_count(self.runtime)}) is held by a live "
                "worker: stop one, or lower JUDGE_SANDBOX_SLOTS (the uids each worker takes)"
            )
        return self.uid_base

    def describe(self) -> str:
        last = self.uid_base + self.runtime.settings.sandbox_slots - 1
        return f"sandbox uids {self.uid_base}-{last} (block {self.block}) are this worker's"

    def start_renewing(self) -> None:
        self._thread = threading.Thread(target=self._renew, name="uid-block-lease", daemon=True)
        self._thread.start()

    def _renew(self) -> None:
        block = self.block
        assert block is not None  # start_renewing() runs after claim()
        while not self._stop.wait(RENEW_EVERY_S):
            try:
                with self._session() as session:
                    kept = uid_blocks.renew_block(
                        session=session, block=block, holder=self.holder, lease_s=LEASE_S
                    )
            except Exception:  # a database hiccup: the lease outlives it, try again
                log.warning("could not renew sandbox uid block %s", self.block, exc_info=True)
                continue
            if not kept:
                # The lease ran out (a database outage longer than LEASE_S) and another
                # worker took the block: its sandboxes would share our uids. Stop (warm
                # shutdown: running gradings finish); a restart claims a fresh block.
                log.critical(
                    "sandbox uid block %s was taken over by another worker: shutting down",
                    self.block,
                )
                os.kill(os.getpid(), signal.SIGTERM)
                return

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.block is None:
            return
        try:
            with self._session() as session:
                uid_blocks.release_block(session=session, block=self.block, holder=self.holder)
        except Exception:  # it expires instead
            log.warning("could not release sandbox uid block %s", self.block, exc_info=True)

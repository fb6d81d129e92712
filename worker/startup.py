"""What a worker does when it starts and stops, besides consuming the queue.

At start (Celery's worker_init, in the main process before the pool forks):
- remove what killed gradings left in the temporary directory: run directories whose owner
  is dead (judge.sandbox.remove_stale_run_dirs) and billiard's directories of dead workers;
- give billiard a temporary directory that is locked while this worker lives, so a killed
  worker's is recognisably stale too (billiard's own `pymp-*` carry no owner);
- as root with the bubblewrap sandbox, lease this worker's own block of sandbox uids.
- register this worker's heartbeat in its lane (worker/liveness.py), beaten while it runs;
- remove the problem packages nobody graded against for two weeks from the cache
  (worker/packages.py).
When asked to stop (worker_shutting_down: SIGTERM, a deploy): mark the heartbeat stopping.
At stop (worker_shutdown): give the block back.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing.process
import os
import tempfile

from celery import Celery, signals

from judge.sandbox import remove_stale_run_dirs
from judge.sandbox.workdirs import locked_dir, remove_stale
from worker.liveness import WorkerBeat
from worker.packages import prune_cache
from worker.runtime import Runtime
from worker.uid_block_lease import UidBlockLease

log = logging.getLogger(__name__)

# billiard's temporary directory (a `pymp-*` by default), ours named so and locked.
POOL_TMP_PREFIX = "pymp-judge-"
# A package check's folder (worker/package_check.py), locked while the check runs.
CHECK_TMP_PREFIX = "judge-check-"


def remove_leftovers() -> list[str]:
    """The run directories, pool temporary directories and package checks' folders of dead
    owners; theirs only."""
    parent = tempfile.gettempdir()
    removed = remove_stale_run_dirs(parent) + remove_stale(parent, POOL_TMP_PREFIX)
    removed += remove_stale(parent, CHECK_TMP_PREFIX)  # package checks (package_check.py)
    if removed:
        log.info("removed %d stale temporary directories: %s", len(removed), removed)
    return removed


def adopt_pool_tmpdir() -> str:
    """A locked temporary directory for billiard (multiprocessing's per-process `tempdir`,
    which get_temp_dir() would otherwise create as an anonymous pymp-*). Removed at exit;
    after a kill, the lock is gone and the next start or sweep removes it."""
    box = locked_dir(POOL_TMP_PREFIX)
    process = multiprocessing.process.current_process()
    # _config: the process's private settings, where billiard reads tempdir (not in typeshed).
    process._config["tempdir"] = box.path  # type: ignore[attr-defined]
    pid = os.getpid()
    atexit.register(lambda: box.remove() if os.getpid() == pid else None)
    return box.path


def wants_uid_block(runtime: Runtime) -> bool:
    return os.geteuid() == 0 and (runtime.settings.sandbox or "bwrap") == "bwrap"


def connect(app: Celery, runtime: Runtime, lane: str) -> None:
    """Run the start and stop steps in `app`'s worker (signals are process-wide); `lane`:
    the worker's heartbeat lane (grading, run or hidden)."""
    lease: list[UidBlockLease] = []

    def started(sender=None, **_) -> None:
        if getattr(sender, "app", None) is not app:
            return
        remove_leftovers()
        prune_cache(runtime)
        adopt_pool_tmpdir()
        beat = WorkerBeat(runtime.settings, lane)
        beat.start()
        runtime.worker_id = beat.worker_id  # before the pool forks: the claims carry it
        # Sent with the hostname, not the app: connected here, in this app's worker only.
        signals.worker_shutting_down.connect(lambda **_: beat.stopping(), weak=False)
        if wants_uid_block(runtime):
            block = UidBlockLease(runtime)
            runtime.uid_base = block.claim()
            block.start_renewing()
            lease.append(block)

    def stopping(sender=None, **_) -> None:
        if getattr(sender, "app", None) is not app:
            return
        while lease:
            lease.pop().release()

    def ready(sender=None, **_) -> None:
        # Logged once Celery's logging is set up (it is not yet at worker_init).
        if getattr(sender, "app", None) is app and lease:
            log.info(lease[0].describe())

    signals.worker_init.connect(started, weak=False)
    signals.worker_ready.connect(ready, weak=False)
    signals.worker_shutdown.connect(stopping, weak=False)

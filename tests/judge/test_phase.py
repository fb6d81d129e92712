"""The phase lock: runs holding hidden input and runs whose output a student sees never
overlap, on one machine, whoever starts them; a waiting phase is never starved."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading

import pytest

from judge.sandbox.phase import PhaseLock

BLOCKED_S = 0.3  # long enough to see a thread that should be blocked get through


def enter(lock: PhaseLock, hidden: bool, entered: list[str], name: str) -> threading.Thread:
    """A thread that enters the phase, notes it, and holds it until its event is set."""
    release = threading.Event()

    def body() -> None:
        held = lock.acquire(hidden)
        entered.append(name)
        release.wait(30)
        os.close(held)

    thread = threading.Thread(target=body, daemon=True)
    thread.release = release  # type: ignore[attr-defined]
    thread.start()
    return thread


def wait_for(entered: list[str], name: str) -> None:
    for _ in range(300):
        if name in entered:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{name} never entered; entered: {entered}")


@pytest.fixture
def lock(tmp_path):
    return PhaseLock(str(tmp_path / "phase"))


def test_runs_of_one_phase_share_it(lock):
    entered: list[str] = []
    first = enter(lock, False, entered, "visible 1")
    wait_for(entered, "visible 1")
    second = enter(lock, False, entered, "visible 2")
    wait_for(entered, "visible 2")  # while the first still holds it
    hidden_a = enter(lock, True, entered, "hidden a")
    first.release.set()
    second.release.set()
    wait_for(entered, "hidden a")
    hidden_b = enter(lock, True, entered, "hidden b")
    wait_for(entered, "hidden b")
    hidden_a.release.set()
    hidden_b.release.set()


def test_a_hidden_run_waits_for_every_visible_one_and_they_for_it(lock):
    entered: list[str] = []
    visible = enter(lock, False, entered, "visible")
    wait_for(entered, "visible")
    hidden = enter(lock, True, entered, "hidden")
    threading.Event().wait(BLOCKED_S)
    assert "hidden" not in entered
    visible.release.set()
    wait_for(entered, "hidden")
    later = enter(lock, False, entered, "later visible")
    threading.Event().wait(BLOCKED_S)
    assert "later visible" not in entered
    hidden.release.set()
    wait_for(entered, "later visible")
    later.release.set()


def test_a_waiting_phase_is_not_starved_by_the_running_one(lock):
    """Visible runs keep arriving while one runs: once a hidden run waits, they queue
    behind it, and it gets in as soon as the running ones end."""
    entered: list[str] = []
    running = enter(lock, False, entered, "visible 0")
    wait_for(entered, "visible 0")
    hidden = enter(lock, True, entered, "hidden")
    threading.Event().wait(0.1)
    newcomers = [enter(lock, False, entered, f"visible {n}") for n in range(1, 4)]
    threading.Event().wait(BLOCKED_S)
    assert entered == ["visible 0"]  # the newcomers did not get past the waiting run
    running.release.set()
    wait_for(entered, "hidden")
    assert entered[:2] == ["visible 0", "hidden"]
    hidden.release.set()
    for n, thread in enumerate(newcomers, 1):
        wait_for(entered, f"visible {n}")
        thread.release.set()


def test_a_dead_holder_leaves_the_phase(lock, tmp_path):
    """A crashed process's descriptors close with it, and so does its hold."""
    code = (
        "import sys, time; from judge.sandbox.phase import PhaseLock; "
        f"PhaseLock({str(tmp_path / 'phase')!r}).acquire(False); print('in', flush=True); "
        "time.sleep(60)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "in"
        entered: list[str] = []
        hidden = enter(lock, True, entered, "hidden")
        threading.Event().wait(BLOCKED_S)
        assert entered == []
        holder.kill()
        wait_for(entered, "hidden")
        hidden.release.set()
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_directory_must_be_ours(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(PermissionError):
        PhaseLock(str(tmp_path / "link")).acquire(False)


def negative_dentries() -> int:
    with open("/proc/sys/fs/dentry-state") as f:
        return int(f.read().split()[4])


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may drop the kernel's caches")
def test_the_first_visible_run_after_hidden_ones_empties_the_name_cache(tmp_path):
    """A hidden run's failed lookups stay in the kernel's name cache, machine-wide, for a
    later run to time: the turn to the visible phase drops them (and only that turn)."""
    lock = PhaseLock(str(tmp_path / "phase"))
    os.close(lock.acquire(hidden=False))
    os.close(lock.acquire(hidden=False))
    assert lock.drops == 0  # visible after visible: nothing to clean
    os.close(lock.acquire(hidden=True))
    # Another process on the machine (a judge's turn to its visible phase) may drop the
    # caches meanwhile: the lookups are made again until they are seen.
    for _ in range(5):
        for n in range(20_000):  # what a hidden run could leave: lookups of names not there
            with contextlib.suppress(FileNotFoundError):
                os.stat(tmp_path / f"bit-{n}")
        left = negative_dentries()
        if left >= 20_000:
            break
    assert left >= 20_000
    os.close(lock.acquire(hidden=False))
    assert lock.drops == 1
    assert negative_dentries() < left - 15_000
    os.close(lock.acquire(hidden=False))
    assert lock.drops == 1

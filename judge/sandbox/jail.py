"""How one run is confined, and the choice of jail: `make_jail(config, python)` returns a
factory `limits -> Jail` plus notes on protections that are not available on this machine
(said in every verdict), and `ready`, which waits for the sandbox's start-up check. What the
sandbox sees is layout.py, the processes of a run and their accounting processes.py, the
bubblewrap command line and its limits bwrap.py.

The bubblewrap jail, from the outside in:

- a grading slot (slots.py): an unprivileged uid of its own per concurrent run; as root the
  child drops to it (setgroups([]), setresgid, setresuid) before exec'ing bwrap, so bwrap holds
  no capabilities and RLIMIT_NPROC counts only this run's processes;
- a per-run cgroup (cgroups.py) joined before exec: memory, pids and CPU of the whole tree,
  the tree capped at one CPU, OOM kills detected, everything killed and the group removed at
  the end;
- rlimits set after the uid drop: CPU, AS, NPROC, FSIZE, NOFILE, CORE 0, MEMLOCK 0;
- bwrap started with a two-variable environment (its pid 1's /proc/1/environ is readable
  inside), `--unshare-all` (no network at all, own pid namespace), `--disable-userns`,
  `--cap-drop ALL`, `--die-with-parent`, `--new-session`, `--clearenv`, a seccomp filter
  (seccomp.py), read-only binds of only the interpreter, its stdlib (site-packages masked)
  and the shared libraries they load, a size-capped private /tmp, the submission directory
  read-only at /box, of /proc its own processes and an allow list, a /dev without ptys
  (layout.py); then `python -I -S -B`;
- this process is a child subreaper, so a sandbox init orphaned by a kill is reparented here
  and reaped (zombies would otherwise pile up against RLIMIT_NPROC).

Ending a run kills by its cgroup (or, without one, the sandbox's pid namespace, by killing
its pid 1), never every process of the slot uid: on a host shared with other workers or
containers, a uid is not proof that a process is this run's.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from judge.sandbox.bwrap import BwrapJail, bwrap_config
from judge.sandbox.config import SandboxConfig
from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.limits import RunLimits
from judge.sandbox.processes import Jail


def make_jail(
    config: SandboxConfig, python: str
) -> tuple[Callable[[RunLimits, bool, bool], Jail], list[str], Callable[[], None]]:
    """A factory of jails, called with a run's limits, whether it holds hidden input and
    whether it waits for the sandbox's start-up check (only an early start does not:
    Sandbox.start_early); and `ready`: waits for that check and raises SandboxUnavailable if
    it failed."""
    notes: list[str] = []
    if config.mode == "none":
        notes.append(
            "UNSANDBOXED: JUDGE_SANDBOX=none, the submission ran unconfined "
            "(local development only)"
        )
        return (lambda limits, hidden, checked: Jail(limits, python, notes)), notes, lambda: None
    real = os.path.realpath(python)
    try:
        mtime = os.stat(real).st_mtime
    except OSError as e:
        raise SandboxUnavailable(f"sandbox interpreter {python} not found: {e}") from e
    bwrap = bwrap_config(config, real, mtime)
    notes += bwrap.notes

    def jail(limits: RunLimits, hidden: bool, checked: bool) -> Jail:
        return BwrapJail(limits, bwrap, hidden, checked=checked)

    return jail, notes, bwrap.ready

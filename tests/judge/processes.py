"""Which processes belong to this test run (others may run sandboxes at the same time)."""

from __future__ import annotations

import os


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def descends_from_us(pid: int) -> bool:
    """A sandbox process that escaped its run is reparented to the nearest subreaper: this
    pytest process. So ours descend from it, and another test run's sandboxes never do."""
    me = os.getpid()
    for _ in range(64):
        if pid == me:
            return True
        if pid <= 1:
            return False
        pid = _parent(pid)
    return False

"""What a run may use and what it used: shared by the sandbox's front (the Process a caller
holds) and the jails that enforce the limits and measure the usage."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunLimits:
    cpu_s: float  # CPU time of the whole process tree
    wall_s: float  # wall time of the whole run
    memory_bytes: int  # memory of the whole process tree
    output_bytes: int = 1 << 20  # stdout + stderr
    result_bytes: int = 32 << 20  # the results channel
    # One line on it: longer is a malformed report. Room for the longest a harness writes
    # honestly: an answer (32,000 digits), a message and traceback, two streams of output.
    result_line_bytes: int = 128 << 10
    pids: int = 32
    file_bytes: int = 1 << 20  # largest file it may write (RLIMIT_FSIZE)
    tmp_bytes: int = 8 << 20  # size of its private /tmp
    # RLIMIT_AS as a backstop above the cgroup's memory limit. False for a JVM, which
    # reserves far more address space than it uses: its memory is the cgroup's limit (and
    # -Xmx) alone.
    address_space: bool = True
    nofile: int = 64  # open files (RLIMIT_NOFILE)


@dataclass
class Usage:
    """The whole tree's usage, as the jail measured it when the run ended."""

    cpu_s: float = 0.0
    peak_memory_bytes: int = 0
    oom_killed: bool = False

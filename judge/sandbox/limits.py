"""What a run may use and what it used: shared by the sandbox's front (the Process a caller
holds) and the jails that enforce the limits and measure the usage."""

from __future__ import annotations

from dataclasses import dataclass

from judge.sandbox.errors import MachineBusy


@dataclass(frozen=True)
class RunLimits:
    cpu_s: float  # CPU time of the whole process tree
    wall_s: float  # wall time of the whole run
    memory_bytes: int  # memory of the whole process tree
    output_bytes: int = 1 << 20  # stdout + stderr
    result_bytes: int = 32 << 20  # the results channel
    # One line on it: longer is a malformed report. Room for the longest a harness writes
    # honestly: an answer (64 KiB at most, harness.MAX_REPORTED_BYTES), a message and
    # traceback, two streams of output (16 KiB each once escaped).
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


# How long a run may be kept past a wall bound while the machine is too busy to give it the
# CPU it asks for, as a multiple of the bound. A run owed the whole of its CPU limit finishes
# within it while it gets more than about a quarter of a CPU (a test's guard, 1.2x its limit
# + 0.5 s, is capped at 3.6x + 1.5 s): 3 runnable tasks a core, a 2-core machine at load 6, is
# fine. Past it the run ends as MachineBusy and is retried later, rather than holding a
# grading slot longer still for a verdict the machine cannot give fairly.
BUSY_CAP_FACTOR = 3.0
# ... and at least this much past it: a short bound (a compile step, a test's start) is mostly
# process start-up, which a burst of other work delays most.
BUSY_CAP_EXTRA_S = 5.0


def busy_cap_s(bound_s: float) -> float:
    """The wall time at which a run kept past `bound_s` for a busy machine ends MachineBusy."""
    return max(bound_s * BUSY_CAP_FACTOR, bound_s + BUSY_CAP_EXTRA_S)


def charged_s(wall_s: float, cpu_wait_s: float | None, cpu_s: float | None) -> float:
    """The wall time that counts against a run: all of it but the time it waited for a CPU
    that other work held (None: not measured, so all of it), and never less than the CPU it
    used. What is left is its CPU and its time asleep or blocked."""
    waited = max(cpu_wait_s or 0.0, 0.0)
    return max(wall_s - waited, cpu_s or 0.0)


@dataclass(frozen=True)
class WallBound:
    """A bound on a run's wall time that only its CPU and its time asleep count against
    (charged_s): time spent waiting for a CPU that other work held moves it on, up to
    busy_cap_s(bound) in wall time."""

    bound_s: float

    @property
    def cap_s(self) -> float:
        return busy_cap_s(self.bound_s)

    def wait_more(self, wall_s: float, cpu_wait_s: float | None, cpu_s: float | None) -> float:
        """How much longer to wait before asking again: 0 once the charged time reached the
        bound. Raises MachineBusy once the wall time reached the cap first."""
        left = self.bound_s - charged_s(wall_s, cpu_wait_s, cpu_s)
        if left <= 0:
            return 0.0
        if wall_s >= self.cap_s:
            raise MachineBusy(
                f"the machine is too busy: a run waited {cpu_wait_s or 0.0:.1f} s for a CPU "
                f"and reached {wall_s:.1f} s of wall time on a {self.bound_s:g} s bound"
            )
        return min(left, self.cap_s - wall_s)

"""The sandbox's front: Sandbox starts runs, Process is one run in progress, make_sandbox picks
the jail. The only place in the judge that spawns processes.

    sandbox = make_sandbox(SandboxConfig())       # bubblewrap, or refuses (see make_sandbox)
    with sandbox.run_python({"harness.py": b"...", "solution.py": b"..."},
                            "harness.py", ["--results-fd", "{results_fd}"], limits) as proc:
        line = proc.read_result(timeout=2.0)      # one line from the results channel
    outcome = proc.outcome                        # exit status, limits hit, output, usage

The submission's files are mounted read-only; the process gets a private results pipe (its
fd number is substituted for "{results_fd}" in the arguments), stdout and stderr go to one
capped pipe, stdin is closed. A command with `input_pipe` also gets a pipe the judge writes
to as it goes ("{input_fd}"; `write_input` never waits, `close_input` ends it). Whole-tree
wall, CPU, memory, process and output limits are enforced from outside, and everything is
killed and reaped when the run ends. The wall limit counts only the run's CPU and its time
asleep or blocked, not time it waited for a CPU that other work held (limits.WallBound).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from judge.sandbox.command import Command
from judge.sandbox.config import SandboxConfig, default_python
from judge.sandbox.errors import MachineBusy, OverlongLine, SandboxUnavailable
from judge.sandbox.jail import make_jail
from judge.sandbox.limits import RunLimits, WallBound
from judge.sandbox.outputs import OutputRefused, collect_output
from judge.sandbox.phase import PhaseLock, default_phase_dir
from judge.sandbox.processes import Jail
from judge.sandbox.workdirs import RUN_DIR_PREFIX, LockedDir, locked_dir, remove_stale


@dataclass
class RunOutcome:
    exit_code: int | None = None  # None when killed by a signal
    signal: int | None = None
    limit: str | None = None  # "wall", "cpu", "memory", "output", "results" when one was hit
    output: bytes = b""  # stdout + stderr, up to the cap
    cpu_s: float = 0.0
    wall_s: float = 0.0
    # Time the run waited for a CPU that other work held (Process.cpu_wait_seconds), or None
    # where it cannot be measured.
    cpu_wait_s: float | None = None
    limit_s: float | None = None  # the bound of `limit` when it is "cpu" or "wall"
    peak_memory_bytes: int = 0
    notes: list[str] = field(default_factory=list)
    # Why /box/out did not come out (Command.writable), or None; see outputs.py.
    output_refused: str | None = None


def _limit_of_death(code: int, oom_killed: bool) -> str | None:
    """The limit a process died of when the judge's own watch had not seen it yet: the
    cgroup's memory, or the RLIMIT_CPU the sandbox set (SIGXCPU, or bwrap's init reporting it
    as 128 + SIGXCPU), which on a busy machine can fire before the next CPU poll."""
    if oom_killed:
        return "memory"
    if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        return "cpu"
    return None


class Process:
    """One sandboxed run in progress; use as a context manager so it is always cleaned up."""

    def __init__(
        self,
        popen: subprocess.Popen,
        results_r: int,
        output_r: int,
        limits: RunLimits,
        jail: Jail,
        cleanup,
        unterminated_last_line: bool = False,
        input_w: int | None = None,
    ) -> None:
        # The phase this run holds (judge/sandbox/phase.py): left once the run is killed,
        # reaped and cleaned up, whatever raises meanwhile. Set by Sandbox.run.
        self.phase_fd: int | None = None
        self.phase_wait_s = 0.0  # how long the run waited for its phase before it started
        self._popen = popen
        self._limits = limits
        self._jail = jail
        self._cleanup = cleanup
        # A whole program's stdout (the results channel) may end without a final newline: its
        # last line still counts, once the channel closed of itself (not on a kill).
        self._unterminated_last_line = unterminated_last_line
        self._started = time.monotonic()
        self._next_poll = 0.0  # when read_result next checks the tree's CPU and memory
        self._wall = WallBound(limits.wall_s)
        self._wall_due = self._started + limits.wall_s  # when the wall bound is next asked
        # (time, waiting so far) at each reading of the waiting, for cpu_wait_since; bounded:
        # losing the oldest only makes the waiting counted smaller.
        self._wait_readings: deque[tuple[float, float]] = deque(maxlen=4096)
        self._waited: float | None = None  # the most any reading proved
        self._buffer = bytearray()
        self._results_total = 0
        self._output = bytearray()
        self._output_total = 0
        self._eof = {results_r: False, output_r: False}
        self._results_r = results_r
        self._output_r = output_r
        self._selector = selectors.DefaultSelector()
        self._selector.register(results_r, selectors.EVENT_READ)
        self._selector.register(output_r, selectors.EVENT_READ)
        # The input pipe's write end (non-blocking), what is queued for it and not yet taken,
        # and whether it closes once that is written.
        self._input_w = input_w
        self._input = bytearray()
        self._input_closing = False
        self.outcome: RunOutcome | None = None
        self._limit: str | None = None

    # -- reading -------------------------------------------------------------------------
    def read_result(self, timeout: float) -> bytes | None:
        """The next line on the results channel (without the newline).

        None when the channel is closed (the process ended or was killed for a limit, see
        `outcome.limit`). Raises TimeoutError when `timeout` seconds pass without a line; the
        process keeps running (the caller decides whether to kill it). Raises OverlongLine
        (after killing the process) for a line over `limits.result_line_bytes`: the judge's
        memory stays bounded whatever the process writes.
        """
        deadline = time.monotonic() + timeout
        max_line = self._limits.result_line_bytes
        while True:
            newline = self._buffer.find(b"\n", 0, max_line + 1)
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                return line
            if len(self._buffer) > max_line:
                self._buffer.clear()
                self.kill()
                raise OverlongLine(f"a report line longer than {max_line} bytes")
            if self._eof[self._results_r] or self._limit:
                if self._unterminated_last_line and self._buffer and not self._limit:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line
                return None
            now = time.monotonic()
            # The tree's CPU, memory and waiting, once per poll interval while waiting (not
            # before every line of a run answering one test at a time: each check reads the
            # cgroup), and when the wall limit is due.
            if now >= self._next_poll or now >= self._wall_due:
                self._next_poll = now + self._jail.poll_interval
                cpu = self.cpu_seconds()
                if cpu is not None and cpu >= self._limits.cpu_s:
                    self._hit("cpu")
                    continue
                if self._jail.memory_exceeded():
                    self._hit("memory")
                    continue
                waited = self.cpu_wait_seconds()  # a reading every poll, for cpu_wait_since
                if now >= self._wall_due and self._wall_reached(now, waited, cpu):
                    self._hit("wall")
                    continue
            if now >= deadline:
                raise TimeoutError
            # Wake for input, the caller's deadline, the wall limit, or a CPU poll.
            self._pump(min(deadline, self._wall_due, self._next_poll) - now)

    def _wall_reached(self, now: float, waited: float | None, cpu: float | None) -> bool:
        """Whether the run's charged time reached the wall limit; if not, when to ask again
        (the time it waited for a CPU moves the limit on). MachineBusy past the cap."""
        try:
            more = self._wall.wait_more(now - self._started, waited, cpu)
        except MachineBusy:
            self.kill()
            raise
        self._wall_due = now + more
        return more <= 0

    @property
    def started(self) -> float:
        """When the process was started (time.monotonic())."""
        return self._started

    def buffered_lines(self) -> int:
        """Complete lines already taken from the results channel and not yet returned: the
        rest of a burst (a program printing its answers at once)."""
        return self._buffer.count(b"\n")

    def cpu_seconds(self) -> float | None:
        """CPU used so far by the whole process tree, or None where it cannot be measured."""
        return self._jail.cpu_seconds(self._popen.pid)

    def cpu_wait_seconds(self) -> float | None:
        """Time the whole process tree has waited for a CPU that other work held since the
        run started, at least (processes.WaitClock), or None where it cannot be measured."""
        return None if self._read_wait() is None else self._waited

    def cpu_wait_since(self, since: float) -> float | None:
        """The same since `since` (a time.monotonic()), counted from the first reading at or
        after it (read_result takes one every poll interval while it waits)."""
        proven = self._read_wait()
        if proven is None:
            return None
        readings = self._wait_readings
        while readings[0][0] < since:  # the last reading is this one: never emptied
            readings.popleft()
        return max(proven - readings[0][1], 0.0)

    def _read_wait(self) -> float | None:
        # What the jail proves may go down (WaitClock): a reading is kept as it is, so that
        # the difference of two is proven too, and the most any proved is the run's.
        proven = self._jail.cpu_wait_seconds(self._popen.pid)
        if proven is not None:
            self._waited = max(self._waited or 0.0, proven)
            self._wait_readings.append((time.monotonic(), proven))
        return proven

    # -- writing -------------------------------------------------------------------------
    def write_input(self, data: bytes) -> None:
        """Queue `data` for the input pipe (Command.input_pipe) and write what the pipe takes
        now, never waiting: the rest goes in while `read_result` waits, as the process reads.
        Dropped once the process closed its end or the input was closed."""
        if self._input_w is None or self._input_closing:
            return
        self._input += data
        self._flush_input()

    def close_input(self) -> None:
        """End the input: the process reads EOF once what is queued has gone in."""
        self._input_closing = True
        self._flush_input()

    def _flush_input(self) -> None:
        fd = self._input_w
        if fd is None:
            return
        while self._input:
            try:
                written = os.write(fd, self._input)
            except BlockingIOError:
                break
            except OSError:  # the process closed its end (EPIPE): nobody will read the rest
                self._close_input()
                return
            del self._input[:written]
        if not self._input and self._input_closing:
            self._close_input()
            return
        waiting = fd in self._selector.get_map()
        if self._input and not waiting:
            self._selector.register(fd, selectors.EVENT_WRITE)
        elif waiting and not self._input:
            self._selector.unregister(fd)

    def _close_input(self) -> None:
        fd, self._input_w = self._input_w, None
        self._input.clear()
        if fd is not None:
            if fd in self._selector.get_map():
                self._selector.unregister(fd)
            os.close(fd)

    def _pump(self, wait: float) -> None:
        for key, _ in self._selector.select(max(wait, 0.0)):
            fd = key.fd
            if fd == self._input_w:
                self._flush_input()
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._eof[fd] = True
                self._selector.unregister(fd)
                continue
            if fd == self._results_r:
                self._results_total += len(chunk)
                if self._results_total > self._limits.result_bytes:
                    self._hit("results")
                else:
                    self._buffer += chunk
            else:
                room = self._limits.output_bytes - len(self._output)
                self._output += chunk[: max(room, 0)]
                self._output_total += len(chunk)
                if self._output_total > self._limits.output_bytes:
                    self._hit("output")

    def _hit(self, limit: str) -> None:
        if self._limit is None:
            self._limit = limit
        self.kill()

    # -- ending --------------------------------------------------------------------------
    def kill(self) -> None:
        self._jail.kill(self._popen)

    def finish(self, grace: float = 1.0) -> RunOutcome:
        """Wait for the process to end (killing it after `grace` seconds), clean up, leave
        the phase."""
        if self.outcome is not None:
            return self.outcome
        try:
            return self._finish(grace)
        finally:
            # Even when ending raised (a task's time limit in a wait): the tree was sent
            # SIGKILL first, so nothing of it runs code any more, and a phase held for ever
            # would stop every run of the other phase on the machine.
            if self.phase_fd is not None:
                if self.outcome is None:
                    self.kill()
                os.close(self.phase_fd)
                self.phase_fd = None

    def _finish(self, grace: float) -> RunOutcome:
        self.cpu_wait_seconds()  # a last reading while its tasks are there (else the last one)
        self._close_input()  # a driver waiting for its next test reads EOF and ends
        end = time.monotonic() + grace
        while self._popen.poll() is None and (left := end - time.monotonic()) > 0:
            if self._selector.get_map():
                self._pump(min(0.02, left))
            else:  # both pipes at EOF: nothing to select on, wait for the exit itself
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._popen.wait(timeout=left)
        self.kill()
        self._popen.wait()
        # Drain what is left so the last output is kept, without blocking on a held pipe.
        for _ in range(64):
            if all(self._eof.values()) or not self._selector.get_map():
                break
            self._pump(0.0)
            if not self._selector.select(0):
                break
        usage = self._jail.finish(self._popen)
        code = self._popen.returncode
        limit = self._limit or _limit_of_death(code, usage.oom_killed)
        self.outcome = RunOutcome(
            exit_code=code if code >= 0 else None,
            signal=-code if code < 0 else None,
            limit=limit,
            output=bytes(self._output),
            cpu_s=usage.cpu_s,
            wall_s=time.monotonic() - self._started,
            cpu_wait_s=self._waited,
            limit_s={"cpu": self._limits.cpu_s, "wall": self._limits.wall_s}.get(limit or ""),
            peak_memory_bytes=usage.peak_memory_bytes,
            notes=list(self._jail.notes),
        )
        self._selector.close()
        for fd in (self._results_r, self._output_r):
            os.close(fd)
        self.outcome.output_refused = self._cleanup(self._jail.ended_clean)
        return self.outcome

    def __enter__(self) -> Process:
        return self

    def __exit__(self, *exc) -> None:
        self.finish(grace=0.0 if exc[0] else 1.0)


# How much more CPU and wall time an early run (Sandbox.start_early) may have been given than
# the run that takes it asks for: the budget it was started with ran on meanwhile.
EARLY_SLACK_S = 1.0


@dataclass
class _Early:
    command: Command
    limits: RunLimits
    hidden: bool
    process: Process

    def serves(self, command: Command, limits: RunLimits, hidden: bool) -> bool:
        given = self.limits
        budget = (given.cpu_s - limits.cpu_s, given.wall_s - limits.wall_s)
        return (
            (self.command, self.hidden) == (command, hidden)
            and replace(given, cpu_s=limits.cpu_s, wall_s=limits.wall_s) == limits
            and all(0 <= extra <= EARLY_SLACK_S for extra in budget)
        )


class Sandbox:
    """Starts sandboxed runs; `sandboxed` is False only when explicitly configured off."""

    def __init__(
        self,
        jail_factory,
        python: str,
        sandboxed: bool,
        notes: list[str],
        phases: PhaseLock | None = None,
        ready: Callable[[], None] = lambda: None,
    ) -> None:
        self._jail_factory = jail_factory
        self.python = python
        self.sandboxed = sandboxed
        self.notes = notes
        self.phases = phases  # None: no lock (benchmarks measuring what it costs)
        self._ready = ready
        self._early: _Early | None = None

    def ready(self) -> None:
        """Wait for the start-up check (make_sandbox(..., check_later=True)); raises
        SandboxUnavailable if the sandbox cannot run here. Every run waits for it too."""
        self._ready()

    def run_python(
        self, files: dict[str, bytes], script: str, args: list[str], limits: RunLimits
    ) -> Process:
        """Run `script` (one of `files`) on the sandbox's Python with `args`."""
        argv = ("{python}", "-I", "-S", "-B", f"/box/{script}", *args)
        return self.run(Command(argv=argv, files=files), limits)

    def run(
        self, command: Command, limits: RunLimits, *, hidden: bool = False, phase: bool = True
    ) -> Process:
        """Start `command` (judge/sandbox/command.py says what each field does).

        `hidden`: the run holds hidden input (a hidden tier). It waits until no run whose
        output a student sees is going on the machine, and those wait for it (phase.py);
        the phase is held until the run is killed and reaped. Its seccomp filter also
        refuses what would leave a number for a later run to read (seccomp.HIDDEN_DENIED).
        The time spent waiting is the Process's `phase_wait_s`.

        `phase=False`: the run takes no phase. Only for the judge's own work confined (a
        problem's code answering the judge, judge/problems/host.py), which holds no student
        code and so modulates nothing for a student's run to read: it runs beside either
        phase, as the judge's own process does. A long-lived run holding a phase would stop
        every run of the other phase on the machine while it lives.
        """
        if hidden and not phase:
            raise ValueError("a run holding hidden input must take the hidden phase")
        if self._early is not None:
            early = self._take_early(command, limits, hidden, phase)
            if early is not None:
                return early
        process = self._run(command, limits, hidden, phase, checked=True)
        assert process is not None  # it waits for its phase
        return process

    def start_early(self, command: Command, limits: RunLimits, *, hidden: bool = False) -> None:
        """Start the run a later `run(command, limits, hidden=hidden)` will ask for, while the
        caller still loads what comes before it (a command line's grading: issue 24). It does
        not wait for the start-up check; the run() that takes it does, and ends it if the
        check failed. The run() is handed this process when it asks for the same command and
        limits, but for a CPU and wall budget at most EARLY_SLACK_S smaller (it ran on
        meanwhile). Any other run() ends it first, as does `discard_early()`: an early run
        holds its phase (a hidden one keeps every visible run on the machine waiting), so it
        starts only if it can take its phase at once, and else not at all."""
        self.discard_early()
        process = self._run(command, limits, hidden, phase=True, checked=False, wait=False)
        if process is not None:
            self._early = _Early(command, limits, hidden, process)

    def discard_early(self) -> None:
        """End the early run nothing took (start_early)."""
        early, self._early = self._early, None
        if early is not None:
            early.process.finish(grace=0.0)

    def _take_early(
        self, command: Command, limits: RunLimits, hidden: bool, phase: bool
    ) -> Process | None:
        early = self._early
        assert early is not None
        process = early.process
        fresh = time.monotonic() - process.started <= EARLY_SLACK_S  # its wall bound ran on
        if not (phase and fresh and early.serves(command, limits, hidden)):
            self.discard_early()
            return None
        self._early = None
        process.phase_wait_s = 0.0  # before the grading began: not time its budget lost
        try:
            self.ready()
        except BaseException:
            process.finish(grace=0.0)
            raise
        return process

    def _run(
        self,
        command: Command,
        limits: RunLimits,
        hidden: bool,
        phase: bool,
        *,
        checked: bool,
        wait: bool = True,
    ) -> Process | None:
        """The run; None when `wait` is False and its phase would have to be waited for."""
        waited = time.monotonic()
        held = None
        if self.phases is not None and phase:
            held = self.phases.acquire(hidden) if wait else self.phases.try_acquire(hidden)
            if held is None:
                return None
        waited = time.monotonic() - waited
        try:
            try:
                proc = self._start(command, limits, hidden, checked)
            except subprocess.SubprocessError:
                # The child failed between fork and exec (joining its cgroup, dropping to the
                # slot uid, its rlimits): seen once in thousands of runs on a loaded machine,
                # and nothing of the submission had run yet. Once more, then it is the
                # machine's fault.
                try:
                    proc = self._start(command, limits, hidden, checked)
                except subprocess.SubprocessError as e:
                    raise SandboxUnavailable(f"the sandbox's process could not start: {e}") from e
        except BaseException:
            if held is not None:
                os.close(held)
            raise
        proc.phase_fd, proc.phase_wait_s = held, waited
        return proc

    def _start(self, command: Command, limits: RunLimits, hidden: bool, checked: bool) -> Process:
        for name in [*command.files, *command.trees]:
            if "/" in name or name.startswith(".") or name in ("", "out"):
                raise ValueError(f"bad file name {name!r}")
        for source in command.trees.values():
            if os.path.realpath(source) != source or not os.path.isdir(source):
                raise ValueError(f"a tree must be a directory named by its real path: {source}")
        box: LockedDir = locked_dir(RUN_DIR_PREFIX)
        workdir = box.path
        jail = None
        pipes: list[int] = []
        stdin = None
        try:
            os.chmod(workdir, 0o755)
            for name, data in command.files.items():
                path = Path(workdir, name)
                path.write_bytes(data)
                path.chmod(0o444)
            if command.writable is not None:
                os.mkdir(os.path.join(workdir, "out"), 0o700)
            if command.stdin is not None:
                stdin_path = Path(workdir, ".stdin")
                stdin_path.write_bytes(command.stdin)
                stdin_path.chmod(0o444)
                stdin = os.open(stdin_path, os.O_RDONLY)
            jail = self._jail_factory(limits, hidden, checked)
            results_r, results_w = os.pipe()
            output_r, output_w = os.pipe()
            pipes += (results_r, results_w, output_r, output_w)
            input_r = input_w = None
            if command.input_pipe:
                input_r, input_w = os.pipe()
                pipes += (input_r, input_w)
                os.set_blocking(input_w, False)
            inherited = (results_w,) if input_r is None else (results_w, input_r)

            def resolve(arg: str) -> str:
                arg = arg.replace("{results_fd}", str(results_w)).replace("{python}", self.python)
                return arg if input_r is None else arg.replace("{input_fd}", str(input_r))

            argv = jail.command(replace(command, argv=tuple(map(resolve, command.argv))), workdir)
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL if stdin is None else stdin,
                stdout=results_w if command.stdout_to_results else output_w,
                stderr=output_w,
                pass_fds=(*inherited, *jail.pass_fds),
                env=jail.environment(command),
                cwd=jail.cwd(workdir),
                preexec_fn=jail.preexec,
                start_new_session=True,
            )
        except BaseException:
            if jail is not None:
                jail.abort()  # the slot, cgroup and descriptors it took
            for fd in pipes:
                os.close(fd)
            if stdin is not None:
                os.close(stdin)
            box.remove()
            raise
        try:
            os.close(results_w)
            os.close(output_w)
            if input_r is not None:
                os.close(input_r)
            if stdin is not None:
                os.close(stdin)
            jail.started(popen)
        except BaseException:  # the process runs: end it before its phase is left
            with contextlib.suppress(OSError):
                os.killpg(popen.pid, signal.SIGKILL)
            popen.wait()
            jail.abort()
            box.remove()
            raise

        def cleanup(ended_clean: bool) -> str | None:
            """Take /box/out out (when asked for), then remove the run's directory."""
            refused = None
            if command.writable is not None:
                try:
                    if not ended_clean:
                        raise OutputRefused("a process of the run outlived it")
                    collect_output(os.path.join(workdir, "out"), command.writable)
                except OutputRefused as e:
                    refused = str(e)
            box.remove()
            return refused

        return Process(
            popen,
            results_r,
            output_r,
            limits,
            jail,
            cleanup,
            unterminated_last_line=command.stdout_to_results,
            input_w=input_w,
        )


def make_sandbox(config: SandboxConfig, *, check_later: bool = False) -> Sandbox:
    """The sandbox `config` describes (built by the caller: the sandbox reads no environment).

    The mode is "bwrap" or "none". "none" runs unconfined and is for local development only;
    every verdict then says so. Without bubblewrap the judge refuses rather than silently
    running unconfined, and where bwrap cannot run (its start-up check, one trivial run) it
    refuses with bwrap's own message: here, or with `check_later` at `Sandbox.ready()` (the
    check runs meanwhile; a run started before waits for it, and one started early,
    `Sandbox.start_early`, is not handed over before it passed).
    """
    mode = config.mode
    python = config.python or default_python()
    if mode not in ("bwrap", "none"):
        raise SandboxUnavailable(f"JUDGE_SANDBOX={mode!r}: expected 'bwrap' or 'none'")
    if mode == "bwrap" and shutil.which("bwrap") is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed, so submissions cannot be sandboxed: "
            "install the Debian package 'bubblewrap', or set JUDGE_SANDBOX=none to run "
            "submissions unconfined (local development only)"
        )
    factory, notes, ready = make_jail(config, python)
    if not check_later:
        ready()
    # Always, the command line's too: its hidden boards must not run beside a student's
    # visible run on the same machine either.
    phases = PhaseLock(config.phase_dir or default_phase_dir())
    return Sandbox(factory, python, mode != "none", notes, phases, ready)


def remove_stale_run_dirs(parent: str | None = None) -> list[str]:
    """Remove the run directories of killed runs (nobody holds their lock): at worker start
    and from the sweeper. A live run's, whoever's it is, stays."""
    return remove_stale(parent or tempfile.gettempdir(), RUN_DIR_PREFIX)

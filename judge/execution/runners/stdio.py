"""The stdio style: a whole program reads several cases on stdin, in the problem's format
(`Problem.STDIO`), and writes one answer per line on stdout, which is the results channel.

Tests are batched into runs of up to BATCH cases (the small tier's tiny positions up to
SMALL_BATCH), so most runs hold several cases: state left over from a previous case is this
format's classic bug, and it shows. Each answer line is read as it comes and judged by the
problem's ANSWER type (`ValueType.parse_line`: strictly, a malformed line is WA). When a run
dies (time, memory, output, a crash) the answers already read keep their verdicts, the case
being answered gets the run's, and the next case starts a fresh run. The last case of a run
is judged when the run has ended, so a crash after the last answer, or lines beyond the last
case, count against it.

Time: a run may use the per-case limit times its cases, plus the language's start. Each
answer line is also held to the per-case limit: the CPU used since the previous line (the
start allowed on a run's first) must fit in it. A program may hold its output back (a
buffered stdout) and print its answers at once: the lines of such a burst share its CPU, held
to the limit times their number, and each shows its share. Memory is the run's peak, shown on
its last case. The run's wall limit counts its CPU and its time asleep or blocked, not time it
waited for a CPU that other work held (Process.read_result, limits.WallBound).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from judge import answers
from judge.execution.runners.base import OUTPUT_LIMIT, Outcome, Runner, death
from judge.languages.base import RunRequest, Style
from judge.problems import stdio_input
from judge.sandbox import OverlongLine, Process, RunLimits
from judge.sandbox.limits import busy_cap_s
from judge.verdict import Verdict

BATCH = 8  # cases per run
SMALL_BATCH = 64  # small-tier positions per run (each takes microseconds; a start does not)
LINE_BYTES = 8192  # one answer line: more is WA (an int answer has at most 4000 digits)
RESULT_BYTES = 1 << 20  # all of a run's stdout: more is OLE


@dataclass
class _Clock:
    """CPU and wall time at the previous answer line, and the rest of a burst of lines."""

    cpu: float = 0.0
    wall: float = field(default_factory=time.monotonic)
    first: bool = True  # no line yet: the run's start is allowed on top
    burst_left: int = 0  # lines of the current burst not yet judged
    share: tuple[float, float] = (0.0, 0.0)  # each burst line's CPU and wall


class StdioRunner(Runner):
    """Runs a whole program on a list of cases, several per run: up to BATCH cases, or up to
    SMALL_BATCH of cases `together` groups (the small tier's positions), never both in one
    run. `capture_output`: the run's stderr, on its last case."""

    def _run_from(self, cases, start: int, remaining: float, judge_one) -> int:
        return self._run_batch(
            cases, start, self._batch_end(start, len(cases)), remaining, judge_one
        )

    def _batch_end(self, start: int, count: int) -> int:
        """Where the run starting at case `start` ends (exclusive)."""
        group_end = start + 1 if self.together is None else self.together(start)
        if group_end > start + 1:
            return min(group_end, start + SMALL_BATCH, count)
        end = start + 1
        while end < min(start + BATCH, count) and (
            self.together is None or self.together(end) <= end + 1
        ):
            end += 1
        return end

    def _limits(self, count: int, remaining: float) -> RunLimits:
        run_s = self.time_s * min(count, BATCH) + self.start_s
        cpu = min(run_s, remaining)
        # A hidden run's wall allowance beyond its CPU is small: time asleep is a channel.
        wall = run_s * 1.25 + 0.5 if self.hidden_input else 2 * run_s + 1.0
        return self.program.language.run_limits(
            RunLimits(
                cpu_s=cpu,
                wall_s=min(wall, remaining + 1.0),
                memory_bytes=self.memory_mb << 20,
                result_bytes=RESULT_BYTES,
                result_line_bytes=LINE_BYTES,
            )
        )

    def _run_batch(self, cases, start: int, end: int, remaining: float, judge_one) -> int:
        """One run on cases[start:end]; returns where the next run starts, or len(cases)
        when `judge_one` asked to stop."""
        program, batch = self.program, list(cases[start:end])
        limits = self._limits(len(batch), remaining)
        request = RunRequest(self.problem, Style.STDIO, program.source, program.artifact)
        command = replace(
            program.language.run_command(request),
            stdin=stdio_input(self.problem, batch),
            stdout_to_results=True,
        )
        read: list[Outcome] = []  # the answers read, in case order
        overlong = extra = False
        proc = self.sandbox.run(command, limits, hidden=self.hidden_input)
        self._waited(proc)
        with proc:
            clock = _Clock()
            while True:
                try:
                    line = proc.read_result(timeout=busy_cap_s(limits.wall_s) + 1.0)
                except TimeoutError:  # the wall limit ends a run before this: a backstop
                    proc.kill()
                    break
                except OverlongLine:  # the process is killed
                    overlong = True
                    break
                if line is None:
                    break
                if len(read) == len(batch):
                    if line.strip():  # blank lines after the last answer are forgiven
                        extra = True
                        proc.kill()
                        break
                    continue
                read.append(self._answer(proc, line, clock))
                # The last one waits for the run's end.
                if len(read) < len(batch) and not judge_one(start + len(read) - 1, read[-1]):
                    proc.kill()
                    return len(cases)
            result = proc.finish(grace=1.0)
        self._credit_cpu_wait(result.cpu_wait_s)
        self.notes.extend(n for n in result.notes if n not in self.notes)
        peak_kb = result.peak_memory_bytes // 1024
        self.peak_memory_kb = max(self.peak_memory_kb, peak_kb)
        stderr = ""
        if self.capture_output:
            stderr = answers.clean_text(result.output.decode("utf-8", "replace"), OUTPUT_LIMIT)
        cut = len(result.output) > OUTPUT_LIMIT

        if overlong:
            ended = Outcome(Verdict.WA, f"an answer line longer than {LINE_BYTES} bytes")
        elif extra:
            ended = Outcome(
                Verdict.WA,
                f"more answer lines than the {len(batch)} cases of the run's input",
            )
        elif result.limit is not None or result.exit_code != 0:
            ended = Outcome(*death(result))
        elif len(read) < len(batch):
            ended = Outcome(
                Verdict.WA,
                f"no answer: the program ended after {len(read)} answer line(s) "
                f"for the {len(batch)} cases of its input",
            )
        else:
            ended = read[-1]  # a clean end after every answer: the last one stands
        if len(read) == len(batch):
            position = len(read) - 1  # every case answered: the end counts against the last
            ended.got = read[-1].got
        else:
            position = len(read)  # the case being answered
        if not read or ended is not read[-1]:
            ended.cpu_s = max(result.cpu_s - clock.cpu, 0.0)
            ended.wall_s = max(time.monotonic() - clock.wall, 0.0)
        ended.rss_kb = min(peak_kb, self.memory_mb << 10)
        ended.stderr, ended.output_cut = stderr, cut and self.capture_output
        ended.fatal = ended is not read[-1] if read else True
        if not judge_one(start + position, ended):
            return len(cases)
        return start + position + 1

    def _answer(self, proc: Process, line: bytes, clock: _Clock) -> Outcome:
        """One answer line, judged by type only (the expected answer is the grader's): AC
        with the value, WA saying what is wrong with the line, or TLE when the CPU spent on
        it (its burst's, shared) is over the per-case limit."""
        over = ""
        if clock.burst_left > 0:
            clock.burst_left -= 1
        else:
            now_cpu, now_wall = proc.cpu_seconds() or 0.0, time.monotonic()
            spent, took = max(now_cpu - clock.cpu, 0.0), now_wall - clock.wall
            lines = 1 + proc.buffered_lines()
            allowed = self.time_s * lines + (self.start_s if clock.first else 0.0)
            if spent > allowed:
                per = f" for {lines} answers at once" if lines > 1 else ""
                over = f"took {spent:.2f} s of CPU{per}, the limit is {self.time_s:g} s a case"
            clock.cpu, clock.wall, clock.first = now_cpu, now_wall, False
            clock.burst_left, clock.share = lines - 1, (spent / lines, took / lines)
        cpu, wall = clock.share
        text = line.decode("utf-8", "replace")
        try:
            got = self.problem.ANSWER.parse_line(text)
        except answers.BadAnswerLine as exc:
            return Outcome(Verdict.WA, str(exc), cpu_s=cpu, wall_s=wall)
        verdict = Verdict.TLE if over else Verdict.AC
        return Outcome(verdict, over, got=got, cpu_s=cpu, wall_s=wall)

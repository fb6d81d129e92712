"""A run started before it is asked for (Sandbox.start_early): a command line grading only
hidden boards starts their process while the grading loads (issue 24). The run that asks for
exactly that process gets it; anything else ends it first."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from judge import cli, problems
from judge.sandbox import RunLimits, SandboxConfig, SandboxUnavailable, make_sandbox
from judge.sandbox.command import Command
from judge.sandbox.front import EARLY_SLACK_S, Sandbox

SOLUTION = Path(__file__).parents[2] / "tests/submissions/accepted/footholds_minimax.py"
CPP = "tests/submissions/cpp/accepted/footholds_minimax_pair.cpp"
LIMITS = RunLimits(cpu_s=5, wall_s=6, memory_bytes=128 << 20)
# Says which process answered: its pid, read by the run that takes it.
SAY_PID = b"import os, sys\nos.write(int(sys.argv[1]), b'%d\\n' % os.getpid())\n"


def command(code: bytes = SAY_PID) -> Command:
    argv = ("{python}", "-I", "-S", "-B", "/box/t.py", "{results_fd}")
    return Command(argv=argv, files={"t.py": code})


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    """A sandbox with a phase lock of its own: these runs hold the hidden phase."""
    return make_sandbox(SandboxConfig(mode="bwrap", phase_dir=str(tmp_path / "phase")))


def pid_of(proc) -> int:
    with proc:
        line = proc.read_result(timeout=10)
    assert line is not None, proc.outcome
    return int(line)


def test_the_run_asking_for_the_early_process_gets_it(sandbox: Sandbox) -> None:
    sandbox.start_early(command(), LIMITS, hidden=True)
    early = sandbox._early
    assert early is not None
    # The budget ran on meanwhile: asked with a little less, it is still the same process.
    asked = replace(LIMITS, cpu_s=LIMITS.cpu_s - 0.2, wall_s=LIMITS.wall_s - 0.2)
    proc = sandbox.run(command(), asked, hidden=True)
    assert proc is early.process and sandbox._early is None
    pid = pid_of(proc)
    assert pid > 0 and proc.outcome is not None and proc.outcome.exit_code == 0
    # Taken once: the next run is a process of its own.
    assert pid_of(sandbox.run(command(), LIMITS, hidden=True)) > 0
    assert sandbox.run(command(), LIMITS, hidden=True) is not proc


@pytest.mark.parametrize(
    "change",
    [
        {"code": b"import os, sys\nos.write(int(sys.argv[1]), b'other\\n')\n"},
        {"hidden": False},
        {"limits": replace(LIMITS, memory_bytes=256 << 20)},
        {"limits": replace(LIMITS, cpu_s=LIMITS.cpu_s + 0.5)},  # more than it was given
        {"limits": replace(LIMITS, cpu_s=LIMITS.cpu_s - EARLY_SLACK_S - 0.5)},  # too long ago
    ],
    ids=["another-program", "visible", "other-memory", "more-cpu", "much-less-cpu"],
)
def test_a_run_asking_for_anything_else_ends_the_early_process_first(
    sandbox: Sandbox, change: dict
) -> None:
    sandbox.start_early(command(), LIMITS, hidden=True)
    early = sandbox._early
    assert early is not None
    asked = command(change.get("code", SAY_PID))
    proc = sandbox.run(asked, change.get("limits", LIMITS), hidden=change.get("hidden", True))
    # Ended, and its phase left, before the new run started (else a visible run would wait
    # for ever on the hidden phase the early one held).
    assert early.process.outcome is not None and early.process.phase_fd is None
    assert proc is not early.process and sandbox._early is None
    with proc:
        assert proc.read_result(timeout=10) is not None


def test_a_discarded_early_process_ends_and_leaves_its_phase(sandbox: Sandbox) -> None:
    sandbox.start_early(command(), LIMITS, hidden=True)
    early = sandbox._early
    assert early is not None
    sandbox.discard_early()
    assert sandbox._early is None
    assert early.process.outcome is not None and early.process.phase_fd is None
    sandbox.discard_early()  # nothing left: nothing to do


def test_the_early_process_waits_for_the_check_only_when_it_is_taken(sandbox: Sandbox) -> None:
    """It starts before the sandbox's start-up check ended; the run that takes it waits for
    the check, and when the check failed ends it and says why."""
    asked = []

    def failed_check() -> None:
        asked.append(1)
        raise SandboxUnavailable("bubblewrap is installed but cannot run a sandbox here")

    sandbox._ready = failed_check
    sandbox.start_early(command(), LIMITS, hidden=True)
    early = sandbox._early
    assert early is not None and asked == []
    with pytest.raises(SandboxUnavailable, match="cannot run a sandbox here"):
        sandbox.run(command(), LIMITS, hidden=True)
    assert asked == [1] and early.process.outcome is not None and sandbox._early is None


def boards(tmp_path: Path, count: int, *extra: str) -> Path:
    footholds, rng = problems.get("footholds"), random.Random(3)
    path = tmp_path / "boards.jsonl"
    lines = [json.dumps(footholds.generate(rng, "random")) for _ in range(count)]
    path.write_text("\n".join([*lines, *extra]) + "\n")
    return path


def watch(monkeypatch, tmp_path: Path) -> dict[str, list]:
    """What the command's sandbox did with its early process. The command gets a phase lock
    of its own: on the machine's, a visible run of another test would keep it from starting
    early (Sandbox.start_early waits for no phase)."""
    monkeypatch.setenv("JUDGE_SANDBOX_PHASE_DIR", str(tmp_path / "phase"))
    seen: dict[str, list] = {"started": [], "taken": [], "discarded": []}
    start, take, discard = Sandbox.start_early, Sandbox._take_early, Sandbox.discard_early

    def start_early(self, *args, **kwargs):
        start(self, *args, **kwargs)
        seen["started"].append(self._early)

    def take_early(self, *args, **kwargs):
        taken = take(self, *args, **kwargs)
        seen["taken"].append(taken)
        return taken

    def discard_early(self):
        seen["discarded"].append(self._early)
        discard(self)

    monkeypatch.setattr(Sandbox, "start_early", start_early)
    monkeypatch.setattr(Sandbox, "_take_early", take_early)
    monkeypatch.setattr(Sandbox, "discard_early", discard_early)
    return seen


def test_the_command_grades_the_boards_in_the_process_it_started_early(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    seen = watch(monkeypatch, tmp_path)
    path = boards(tmp_path, 12)
    argv = ["grade", "footholds", str(SOLUTION), "--plan", "boards", "--hidden", str(path)]
    assert cli.main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["verdict"], result["passed"], result["total"]) == ("AC", 12, 12)
    [early] = seen["started"]
    assert seen["taken"] == [early.process]  # the hidden tier's one process
    assert early.process.outcome is not None  # and it ended with the grading


def test_the_command_ends_the_early_process_when_it_refuses_the_boards(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    seen = watch(monkeypatch, tmp_path)
    path = boards(tmp_path, 3, "[1, 2]")
    argv = ["grade", "footholds", str(SOLUTION), "--plan", "boards", "--hidden", str(path)]
    assert cli.main(argv) == cli.EXIT_USAGE
    assert "boards.jsonl:4" in capsys.readouterr().err
    [early] = seen["started"]
    assert seen["taken"] == [] and seen["discarded"][-1] is early
    assert early.process.outcome is not None


def test_nothing_starts_early_where_the_grading_would_not_take_it(tmp_path: Path) -> None:
    """Only a plan of hidden boards alone, a function-style program that needs no build: a
    whole default plan, or a C++ file, starts nothing before the grading asks."""
    path = boards(tmp_path, 2)
    script = (
        "import os, sys\n"
        "from judge import cli\n"
        "from judge.sandbox.front import Sandbox\n"
        "def refuse(self, *args, **kwargs):\n"  # not an exception: the command would go on
        "    os._exit(97)\n"
        "Sandbox.start_early = refuse\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    cpp = Path(__file__).parents[2] / CPP
    for argv in (
        ["grade", "footholds", str(SOLUTION), "--hidden", str(path), "--random", "1"],
        ["grade", "footholds", str(cpp), "--plan", "boards", "--hidden", str(path)],
    ):
        done = subprocess.run(
            [sys.executable, "-c", script, *argv, "--json"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout)["verdict"] == "AC"


def test_a_compiled_language_is_not_asked_how_it_builds_before_the_grading_does(
    sandbox: Sandbox, monkeypatch
) -> None:
    """Asked for its build command early, C++ compiled its driver's runtime (0.6 s) outside
    the build cache in every command."""
    from judge.grading.early import start_hidden_tier_early
    from judge.languages import cpp, get_language
    from judge.languages.base import Style

    def compiled() -> bytes:
        raise AssertionError("the C++ runtime was compiled")

    monkeypatch.setattr(cpp, "_compile_runtime", compiled)
    footholds = problems.get("footholds")
    source = (Path(__file__).parents[2] / CPP).read_bytes()
    language = get_language("cpp")
    assert not start_hidden_tier_early(footholds, language, Style.FUNCTION, source, sandbox)
    assert sandbox._early is None
    python = get_language("python")
    assert start_hidden_tier_early(
        footholds, python, Style.FUNCTION, SOLUTION.read_bytes(), sandbox
    )
    sandbox.discard_early()


def test_an_early_start_takes_its_phase_at_once_or_not_at_all(sandbox: Sandbox) -> None:
    """A hidden early run waits for no visible run of the machine (nor makes them wait longer
    while a command loads): with the other phase held, nothing starts early."""
    assert sandbox.phases is not None
    held = sandbox.phases.acquire(False)  # a visible run going on
    try:
        sandbox.start_early(command(), LIMITS, hidden=True)
        assert sandbox._early is None
    finally:
        os.close(held)
    sandbox.start_early(command(), LIMITS, hidden=True)
    assert sandbox._early is not None
    sandbox.discard_early()


def test_an_early_process_is_handed_over_fresh_or_not_at_all(sandbox: Sandbox) -> None:
    """Its wall bound runs from its start: one started longer than EARLY_SLACK_S ago is ended
    and the run gets a fresh process. The phase it waited for came before the grading."""
    sandbox.start_early(command(), LIMITS, hidden=True)
    early = sandbox._early
    assert early is not None
    early.process._started -= EARLY_SLACK_S + 0.5
    proc = sandbox.run(command(), LIMITS, hidden=True)
    assert proc is not early.process and early.process.outcome is not None
    with proc:
        assert proc.read_result(timeout=10) is not None

    sandbox.start_early(command(), LIMITS, hidden=True)
    early = sandbox._early
    assert early is not None
    early.process.phase_wait_s = 0.25
    taken = sandbox.run(command(), LIMITS, hidden=True)
    assert taken is early.process and taken.phase_wait_s == 0.0
    pid_of(taken)


def test_a_source_on_a_pipe_is_read_once_by_the_grading(tmp_path: Path) -> None:
    """An early start reads the file: a pipe (/dev/stdin) would then be empty for the
    grading, so a file that is not a regular one starts nothing early."""
    path = boards(tmp_path, 3)
    argv = ["grade", "footholds", "/dev/stdin", "--language", "python", "--plan", "boards"]
    done = subprocess.run(
        [sys.executable, "-m", "judge", *argv, "--hidden", str(path), "--json"],
        input=SOLUTION.read_text(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["passed"] == 3

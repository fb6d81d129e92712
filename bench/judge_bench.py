"""Grading-core benchmarks: sandboxed grading against the unsandboxed floor."""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.plans import without_fixed_tiers
from judge import problems
from judge.diagnosis.probe import search
from judge.grading.grade import grade
from judge.grading.plan import plan_tests
from judge.sandbox import SandboxConfig, default_python, make_sandbox

ROOT = Path(__file__).resolve().parent.parent
UNMEMOIZED = ROOT / "tests/submissions/accepted/footholds_minimax.py"
NUMBERGAME_DP = ROOT / "tests/submissions/accepted/numbergame_dp.py"
MINMAX_SWAPPED = ROOT / "tests/submissions/wrong_answer/footholds_minmax_swapped.py"
CPP_MINIMAX = ROOT / "tests/submissions/cpp/accepted/footholds_minimax_pair.cpp"
DMOJ_MEDIAN_S = 8.5  # DMOJ judge 4.1 on 100 small footholds boards, this machine (SANDBOX-NOTES)

FLOOR_RUNNER = """
import json, sys
spec = json.load(open(sys.argv[1]))
namespace = {}
exec(compile(open(sys.argv[2]).read(), "solution.py", "exec"), namespace)
for case in spec["tests"]:
    namespace["solution"](*[case[p] for p in spec["params"]])
"""


def median_time(action: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def floor_time(problem, cases: list[dict], source: Path, repeat: int) -> float:
    """The same solution on the same cases in one plain python3 process, no sandbox."""
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp, "spec.json")
        spec.write_text(json.dumps({"params": list(problem.PARAMS), "tests": cases}))
        runner = Path(tmp, "run.py")
        runner.write_text(FLOOR_RUNNER)
        command = [default_python(), str(runner), str(spec), str(source)]
        return median_time(lambda: subprocess.run(command, check=True), repeat)


def plan_cases(plan) -> list[dict]:
    """Every case the plan runs, the small tier's positions one by one."""
    return [case for t in plan for case in (t.positions if t.positions is not None else [t.input])]


def small_boards(count: int, seed: int) -> list[dict]:
    footholds = problems.get("footholds")
    rng = random.Random(seed)
    return [{"input": footholds.generate(rng, "random")} for _ in range(count)]


def plan_figures(report, problem, path: Path, sandbox, seed: int, repeat: int) -> None:
    """The full default plan against the floor, and what the small tier adds to it."""
    plan = plan_tests(problem, seed=seed)
    cases = plan_cases(plan)
    source = path.read_bytes()
    # The same plan without the small tier (the worst cases in both), graded in turns with the
    # full one so that a change in the machine's load falls on both alike.
    bare = without_fixed_tiers(problem, keep_worst=True)
    with_small, without_small = [], []
    for _ in range(repeat):
        with_small.append(
            median_time(lambda: grade(problem, source, seed=seed, sandbox=sandbox), 1)
        )
        without_small.append(
            median_time(lambda: grade(bare, source, seed=seed, sandbox=sandbox), 1)
        )
    graded, without = statistics.median(with_small), statistics.median(without_small)
    floor = floor_time(problem, cases, path, repeat)
    report(
        f"full default plan, {problem.SLUG} {path.stem} ({len(plan)} tests, "
        f"{len(cases)} calls with every small position)",
        f"graded {graded * 1000:.0f} ms, floor {floor * 1000:.0f} ms, "
        f"ratio {graded / floor:.2f}x (target <= 1.3x floor + 60 ms = "
        f"{(1.3 * floor + 0.06) * 1000:.0f} ms)",
    )
    positions = len(cases) - len(plan_tests(bare, seed=seed))
    report(
        f"small tier, {problem.SLUG} ({positions} positions), added to {path.stem}",
        f"+{(graded - without) * 1000:.0f} ms ({without * 1000:.0f} ms without it, "
        f"{graded * 1000:.0f} ms with it; target <= 500 ms)",
    )


# `python -m judge grade` on the problem without its fixed tiers, as the boards were graded
# when the target was set: judge.cli.main as `python -m judge` runs it, in a fresh process.
BARE_CLI = """
import sys
from bench.plans import without_fixed_tiers
from judge import cli, problems
bare = without_fixed_tiers(problems.get(sys.argv[2]))
problems.get = lambda slug: bare
sys.exit(cli.main(sys.argv[1:]))
"""


def cli_figures(report, problem, hidden: list[dict], seed: int, floor: float, repeat: int) -> None:
    """The command line, a fresh process per grading (interpreter start, imports, the sandbox
    layout from its cache), against the same calls in one plain python3 process."""
    with tempfile.TemporaryDirectory() as tmp:
        boards = Path(tmp, "boards.jsonl")
        boards.write_text("".join(json.dumps(h["input"]) + "\n" for h in hidden))
        args = ["grade", problem.SLUG, str(UNMEMOIZED), "--hidden", str(boards)]
        args += ["--random", "0", "--seed", str(seed), "--json"]
        full = [sys.executable, "-m", "judge", *args]
        bare = [sys.executable, "-c", BARE_CLI, *args]
        # As an installed judge starts: from compiled bytecode (PYTHONDONTWRITEBYTECODE would
        # have every start compile the judge's modules again).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

        def run_cli(command: list[str]) -> None:
            subprocess.run(command, check=True, capture_output=True, cwd=ROOT, env=env)

        for command in (full, bare):  # fills the layout cache, the bytecode, the page cache
            run_cli(command)
        cli = median_time(lambda: run_cli(bare), repeat)
        cli_full = median_time(lambda: run_cli(full), repeat)
    report(
        f"the same from the command line ({len(hidden)} boards, a fresh process each)",
        f"{cli * 1000:.0f} ms (target <= 200 ms), {cli / floor:.2f}x the floor; DMOJ "
        f"{DMOJ_MEDIAN_S:.1f} s -> {DMOJ_MEDIAN_S / cli:.0f}x faster (target >= 40x)",
    )
    plan = plan_tests(problem, hidden, seed=seed, random_count=0)
    calls = plan_cases(plan)
    full_floor = floor_time(problem, calls, UNMEMOIZED, repeat)
    report(
        f"  with the fixed tiers, as `python -m judge grade` plans it ({len(calls)} calls)",
        f"{cli_full * 1000:.0f} ms, floor {full_floor * 1000:.0f} ms, "
        f"ratio {cli_full / full_floor:.2f}x",
    )


# DMOJ as a peer: not a requirement of the project (nothing installs it); the bench looks for
# it and says how to set it up when it is missing.
DMOJ_SETUP = (
    "apt-get install libseccomp-dev; python3 -m venv /tmp/dmoj-venv; "
    "/tmp/dmoj-venv/bin/pip install dmoj (or set DMOJ_CLI to a dmoj-cli)"
)
# The same solution as a whole program for DMOJ: one case as JSON on stdin, its answer out.
DMOJ_MAIN = """

import json as _json, sys as _sys
_case = _json.loads(_sys.stdin.read())
print(solution(*[_case[_p] for _p in {params!r}]))
"""


def dmoj_cli() -> str | None:
    found = os.environ.get("DMOJ_CLI") or shutil.which("dmoj-cli")
    fallback = "/tmp/dmoj-venv/bin/dmoj-cli"
    return found or (fallback if os.access(fallback, os.X_OK) else None)


def dmoj_problem(tmp: str, problem, hidden: list[dict], write_input) -> None:
    """The boards as a DMOJ problem under tmp/problems: `write_input(board)` each N.in, the
    reference answer each N.out; the problem's limits."""
    folder = Path(tmp, "problems", problem.SLUG)
    folder.mkdir(parents=True)
    cases = ["test_cases:"]
    for n, board in enumerate(hidden):
        Path(folder, f"{n}.in").write_text(write_input(board["input"]))
        Path(folder, f"{n}.out").write_text(f"{problem.reference(board['input'])}\n")
        cases.append(f"- {{in: {n}.in, out: {n}.out, points: 1}}")
    memory_kb = problem.LIMITS.memory_mb << 10
    limits = f"time_limit: {problem.LIMITS.time_s}\nmemory_limit: {memory_kb}\n"
    Path(folder, "init.yml").write_text(limits + "\n".join(cases) + "\n")
    Path(tmp, "judge.yml").write_text(
        f"problem_storage_globs:\n  - {tmp}/problems/*\nruntime:\n"
        "  python3: /usr/bin/python3\n  g++17: /usr/bin/g++\n"
    )


def dmoj_runner(tmp: str, problem, count: int, executor: str, whole: Path):
    """A fresh `dmoj-cli submit` of `whole` that raises unless all `count` tests are AC; None
    without dmoj-cli."""
    cli = dmoj_cli()
    if cli is None:
        return None
    peer = [cli, "-c", str(Path(tmp, "judge.yml")), "-e", executor, "--no-ansi"]
    peer += ["--skip-self-test", "submit", problem.SLUG, executor, str(whole)]

    def run_dmoj() -> None:
        done = subprocess.run(peer, capture_output=True, text=True, timeout=600, cwd=tmp)
        accepted = done.stdout.count(" AC [")
        if accepted != count:
            tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
            raise RuntimeError(f"{accepted} of {count} AC: {' | '.join(tail)}")

    return run_dmoj


def ours_runner(problem, source: Path, boards: Path, count: int, seed: int, env: dict):
    """A fresh `python -m judge grade --plan boards` of `source` that asserts all AC."""
    ours = [sys.executable, "-m", "judge", "grade", problem.SLUG, str(source)]
    ours += ["--plan", "boards", "--hidden", str(boards), "--seed", str(seed), "--json"]

    def run_ours() -> None:
        done = subprocess.run(ours, capture_output=True, cwd=ROOT, env=env, text=True)
        result = json.loads(done.stdout)
        assert result["verdict"] == "AC" and result["total"] == count, result

    return run_ours


def write_boards(tmp: str, hidden: list[dict]) -> Path:
    boards = Path(tmp, "boards.jsonl")
    boards.write_text("".join(json.dumps(h["input"]) + "\n" for h in hidden))
    return boards


def alone_judge_env(tmp: str) -> dict[str, str]:
    """As an installed judge starts: from compiled bytecode (PYTHONDONTWRITEBYTECODE would
    have every start compile the judge's modules again); and alone on the machine, as DMOJ
    is: a phase lock of the bench's own (unless JUDGE_SANDBOX_PHASE_DIR is set). The
    machine-wide one is shared with every judge here, a test suite's too, and a hidden tier
    waits there while any of them runs a visible test (5.8 s of a 7 s grading at load 8, by
    hand): time DMOJ, which has no such lock, is not charged."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("JUDGE_SANDBOX_PHASE_DIR", str(Path(tmp, "phase")))
    return env


def dmoj_figures(report, problem, hidden: list[dict], seed: int, repeat: int) -> float | None:
    """The same boards, and nothing else, graded by DMOJ (its ptrace sandbox, a process per
    test) and by `python -m judge grade --plan boards`, each a fresh process per grading, in
    turns. Never fails the bench: without DMOJ, or when it cannot run here, the peer column is
    skipped with the reason. Returns DMOJ's median seconds, if measured."""
    with tempfile.TemporaryDirectory(prefix="judge-bench-dmoj-") as tmp:
        dmoj_problem(tmp, problem, hidden, lambda board: json.dumps(board) + "\n")
        whole = Path(tmp, "whole.py")
        whole.write_text(UNMEMOIZED.read_text() + DMOJ_MAIN.format(params=list(problem.PARAMS)))
        boards = write_boards(tmp, hidden)
        env = alone_judge_env(tmp)
        run_ours = ours_runner(problem, UNMEMOIZED, boards, len(hidden), seed, env)
        name = f"DMOJ peer, the same {len(hidden)} boards only"
        run_dmoj = dmoj_runner(tmp, problem, len(hidden), "PY3", whole)
        if run_dmoj is None:
            report(name, f"skipped: dmoj-cli not found (to set it up: {DMOJ_SETUP})")
            return None
        try:
            run_dmoj()  # the page cache, its executor's first start
        except (OSError, subprocess.SubprocessError, RuntimeError) as exc:
            report(name, f"skipped: DMOJ does not run here ({exc}; to set it up: {DMOJ_SETUP})")
            return None
        run_ours()
        theirs, mine = [], []
        for _ in range(repeat):  # in turns: a change in the machine's load falls on both
            theirs.append(median_time(run_dmoj, 1))
            mine.append(median_time(run_ours, 1))
    dmoj_s, ours_s = statistics.median(theirs), statistics.median(mine)
    report(
        name,
        f"DMOJ {dmoj_s * 1000:.0f} ms, `python -m judge grade --plan boards` "
        f"{ours_s * 1000:.0f} ms (fresh processes both): {dmoj_s / ours_s:.1f}x faster",
    )
    return dmoj_s


# The same C++ solution as a whole program for DMOJ: one board on stdin as a contest problem
# gives it (rows and columns, the rows, then aloc and bloc), its answer out. Ours grades the
# file itself: footholds declares no stdin/stdout format, so its C++ driver calls solution().
DMOJ_CPP_MAIN = """
int main() {
    int rows, cols;
    if (scanf("%d %d", &rows, &cols) != 2) return 1;
    vector<vector<int>> board(rows, vector<int>(cols));
    for (auto& row : board)
        for (int& cell : row) scanf("%d", &cell);
    vector<int> aloc(2), bloc(2);
    scanf("%d %d %d %d", &aloc[0], &aloc[1], &bloc[0], &bloc[1]);
    printf("%d\\n", solution(board, aloc, bloc));
}
"""


def plain_board(board: dict) -> str:
    rows = [" ".join(map(str, row)) for row in board["board"]]
    corners = " ".join(map(str, [*board["aloc"], *board["bloc"]]))
    return f"{len(rows)} {len(board['board'][0])}\n" + "\n".join(rows) + f"\n{corners}\n"


def dmoj_cpp_figures(report, problem, hidden: list[dict], seed: int, repeat: int) -> None:
    """The same boards and the same C++17 solution: DMOJ's CPP17 executor (g++, every
    submission compiled, its compile in its time) against `python -m judge grade --plan
    boards`, a fresh process each, in turns: ours once with the build cache warm (the same
    source again) and once compiling (a source the cache has not seen: the solution with a
    comment of its own appended). Cold is a new submission on a set-up machine: the judge's
    runtime object (in the bench's build cache, made by the first run), the sandbox layout and
    the precompiled <bits/stdc++.h> ($TMPDIR/judge-cpp-pch-UID) are the machine's one-time
    set-up and are kept. Skipped with the reason, never failing the bench, without DMOJ."""
    name = f"DMOJ peer in C++17, the same {len(hidden)} boards only"
    with tempfile.TemporaryDirectory(prefix="judge-bench-dmoj-cpp-") as tmp:
        dmoj_problem(tmp, problem, hidden, plain_board)
        whole = Path(tmp, "whole.cpp")
        whole.write_text(CPP_MINIMAX.read_text() + DMOJ_CPP_MAIN)
        run_dmoj = dmoj_runner(tmp, problem, len(hidden), "CPP17", whole)
        if run_dmoj is None:
            report(name, f"skipped: dmoj-cli not found (to set it up: {DMOJ_SETUP})")
            return
        try:
            run_dmoj()  # the page cache, its executor's first start
        except (OSError, subprocess.SubprocessError, RuntimeError) as exc:
            report(name, f"skipped: DMOJ does not run here ({exc}; to set it up: {DMOJ_SETUP})")
            return
        boards = write_boards(tmp, hidden)
        # The bench's own build cache (and sandbox layout), not the user's.
        env = {**alone_judge_env(tmp), "XDG_CACHE_HOME": str(Path(tmp, "cache"))}
        warm_source = Path(tmp, "solution.cpp")
        warm_source.write_text(CPP_MINIMAX.read_text())
        run_warm = ours_runner(problem, warm_source, boards, len(hidden), seed, env)
        run_warm()  # the machine's set-up, then the build cached
        theirs, warm, cold = [], [], []
        for n in range(repeat):  # in turns: a change in the machine's load falls on all
            theirs.append(wall_and_cpu(run_dmoj))
            warm.append(wall_and_cpu(run_warm))
            fresh = Path(tmp, f"cold{n}.cpp")
            fresh.write_text(CPP_MINIMAX.read_text() + f"// cold run {n} of the bench\n")
            cold.append(wall_and_cpu(ours_runner(problem, fresh, boards, len(hidden), seed, env)))
    (dmoj_s, dmoj_cpu), (warm_s, warm_cpu), (cold_s, cold_cpu) = (
        (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for runs in (theirs, warm, cold)
    )
    report(
        name,
        f"DMOJ CPP17 {dmoj_s * 1000:.0f} ms (its compile included), `python -m judge grade "
        f"--plan boards` with the build cache warm {warm_s * 1000:.0f} ms: "
        f"{dmoj_s / warm_s:.1f}x faster (goal >= 10x); CPU {dmoj_cpu * 1000:.0f} vs "
        f"{warm_cpu * 1000:.0f} ms",
    )
    report(
        "  compiling it (a source the build cache has not seen)",
        f"{cold_s * 1000:.0f} ms: {dmoj_s / cold_s:.1f}x faster than DMOJ (goal >= 3x); "
        f"CPU {cold_cpu * 1000:.0f} ms",
    )


def wall_and_cpu(action: Callable[[], object]) -> tuple[float, float]:
    """Seconds of wall clock and of CPU (user + system, of every process the action waited
    for, and theirs): the CPU figure moves less with the machine's load."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    action()
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def diagnosis_figures(report, problem, board: dict, sandbox, repeat: int) -> None:
    """Where is the bug, below a failing full 5x5 board, as grading runs it (the graded
    answer known, the rest asked in the sandbox)."""
    source = MINMAX_SWAPPED.read_bytes()
    got = (
        grade(
            problem,
            source,
            hidden_cases=[{"input": board}],
            random_count=0,
            seed=1,
            sandbox=sandbox,
            diagnose=False,
        )
        .tests[-1]
        .got
    )
    found = []
    took = median_time(lambda: found.append(search(problem, source, sandbox, board, got)), repeat)
    last = found[-1]
    shape = "none found" if last is None else f"{last.depth} moves down, {last.calls} calls"
    report(
        "where is the bug below a failing full 5x5 board (min and max swapped)",
        f"{took * 1000:.0f} ms, {shape} (target <= 2000 ms)",
    )


def run(report: Callable[[str, str], None], repeat: int = 5, boards: int = 100) -> None:
    footholds = problems.get("footholds")
    sandbox = make_sandbox(SandboxConfig.from_environ(os.environ))
    seed = 20261130

    for problem, path in ((footholds, UNMEMOIZED), (problems.get("numbergame"), NUMBERGAME_DP)):
        plan_figures(report, problem, path, sandbox, seed, repeat)

    hidden = small_boards(boards, seed)
    source = UNMEMOIZED.read_bytes()
    bare = without_fixed_tiers(footholds)  # as measured before the fixed tiers: comparable
    graded = median_time(
        lambda: grade(
            bare, source, hidden_cases=hidden, seed=seed, random_count=0, sandbox=sandbox
        ),
        repeat,
    )
    all_cases = [s["input"] for s in footholds.SAMPLES] + [h["input"] for h in hidden]
    floor = floor_time(footholds, all_cases, UNMEMOIZED, repeat)
    report(
        f"{boards} small boards as hidden cases",
        f"graded {graded * 1000:.0f} ms ({graded * 1000 / len(all_cases):.2f} ms/test), "
        f"floor {floor * 1000:.0f} ms, ratio {graded / floor:.2f}x; "
        f"DMOJ {DMOJ_MEDIAN_S:.1f} s -> {DMOJ_MEDIAN_S / graded:.0f}x faster (target >= 25x)",
    )

    cli_figures(report, footholds, hidden, seed, floor, repeat)
    dmoj_figures(report, footholds, hidden, seed, repeat)
    dmoj_cpp_figures(report, footholds, hidden, seed, repeat)

    worst = {"board": [[1] * 5 for _ in range(5)], "aloc": [0, 0], "bloc": [4, 4]}
    diagnosis_figures(report, footholds, worst, sandbox, repeat)
    solve = median_time(lambda: footholds.reference(worst), repeat)
    report("reference footholds, full 5x5, opposite corners", f"{solve * 1000:.1f} ms")
    numbergame = problems.get("numbergame")
    row = {"board": [random.Random(1).randint(-1000, 1000) for _ in range(50)]}
    solve = median_time(lambda: numbergame.reference(row), repeat)
    report("reference numbergame, n = 50", f"{solve * 1000:.2f} ms")

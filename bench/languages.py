"""Per-language benchmarks: compiling (cold and from the cache), a full footholds plan graded
in the sandbox against the same compiled program run unconfined on the same boards, and
submit-to-verdict through the service (cold: a source never compiled; cached: the same
source again).

    python -m bench --only languages
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from bench.judge_bench import median_time, plan_cases
from bench.report import Report
from judge import problems
from judge.execution.build import BuildCache, built
from judge.grading.grade import grade
from judge.grading.plan import plan_tests
from judge.languages import RunRequest, Style, get_language
from judge.sandbox import RunLimits, SandboxConfig, make_sandbox
from tests.service.stack import Stack, service_env, wait_for

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests/submissions"
PACKAGED = ROOT / "problems/footholds/submissions"
# A correct footholds solution per language (the corpus's).
FOOTHOLDS = {
    "python": SUBMISSIONS / "accepted/footholds_minimax.py",
    "cpp": SUBMISSIONS / "cpp/accepted/footholds_minimax_pair.cpp",
    "java": PACKAGED / "accepted/footholds_minimax_port.java",
    "kotlin": PACKAGED / "accepted/footholds_data_class_enum.kt",
}
# Targets from the issue: submit-to-verdict p50 through the service, cold / cached.
SERVICE_TARGET_S = {"cpp": (2.5, 1.5), "java": (3.0, 1.5), "kotlin": (6.0, 1.5)}
SEED = 20261201


def unconfined_time(
    problem, language, source: bytes, artifact, cases, repeat: int, one_at_a_time: bool = False
) -> float:
    """The compiled program (the same driver and artifact) on every case in one unconfined
    process: what the sandbox and the grading around it are compared with. Its tests go in
    all at once, or `one_at_a_time` as a grading hands them over (each once the report before
    it is read): the difference is what feeding them one at a time costs."""
    unconfined = make_sandbox(SandboxConfig(mode="none"))
    request = RunRequest(problem, Style.FUNCTION, source, artifact)
    command = language.run_command(request)
    base = RunLimits(cpu_s=120, wall_s=120, memory_bytes=problem.LIMITS.memory_mb << 20)
    limits = language.run_limits(base)
    lines = [language.test_line(problem, case) for case in cases]

    def once() -> None:
        with unconfined.run(command, limits) as proc:
            assert proc.read_result(timeout=120) is not None  # ready
            if one_at_a_time:
                for line in lines:
                    proc.write_input(line)
                    assert proc.read_result(timeout=120) is not None
            else:
                proc.write_input(b"".join(lines))
            proc.close_input()
            while proc.read_result(timeout=120) is not None:
                pass
        assert proc.outcome is not None and proc.outcome.exit_code == 0, proc.outcome

    return median_time(once, repeat)


def judge_figures(report: Report, name: str, repeat: int) -> None:
    footholds = problems.get("footholds")
    language = get_language(name)
    source = FOOTHOLDS[name].read_bytes()
    sandbox = make_sandbox(SandboxConfig())
    with tempfile.TemporaryDirectory(prefix="judge-bench-builds-") as tmp:
        colds = []
        for n in range(repeat):  # a fresh cache each time: a real compile
            cache = BuildCache(str(Path(tmp, f"cold{n}")))
            started = time.perf_counter()
            with built(footholds, language, Style.FUNCTION, source, sandbox, cache):
                colds.append(time.perf_counter() - started)
        cache = BuildCache(str(Path(tmp, "warm")))
        with built(footholds, language, Style.FUNCTION, source, sandbox, cache) as program:
            cases = plan_cases(plan_tests(footholds, seed=SEED))
            floor = unconfined_time(footholds, language, source, program.artifact, cases, repeat)
            fed = unconfined_time(
                footholds, language, source, program.artifact, cases, repeat, one_at_a_time=True
            )

        def cached_build() -> None:
            with built(footholds, language, Style.FUNCTION, source, sandbox, cache):
                pass

        cached = median_time(cached_build, repeat)

        def graded_once() -> None:
            result = grade(
                footholds,
                source,
                seed=SEED,
                sandbox=sandbox,
                language=name,
                build_cache=cache,
                diagnose=False,
            )
            assert result.verdict.value == "AC", (result.verdict, result.message)

        graded = median_time(graded_once, repeat)
    compile_s = statistics.median(colds)
    target = 1.3 * floor + 0.1 + cached
    report(
        f"{language.title}: compile footholds, cold / from the cache",
        f"{compile_s * 1000:.0f} ms / {cached * 1000:.0f} ms",
    )
    report(
        f"{language.title}: full footholds plan ({len(cases)} calls), graded (cached build)",
        f"{graded * 1000:.0f} ms, unconfined {floor * 1000:.0f} ms, ratio {graded / floor:.2f}x "
        f"(target <= 1.3x + 100 ms + the cache fetch = {target * 1000:.0f} ms)",
    )
    report(
        f"{language.title}: the same {len(cases)} calls unconfined, one test at a time (each "
        "once the report before it is read) vs all at once",
        f"{fed * 1000:.0f} ms vs {floor * 1000:.0f} ms: "
        f"{(fed - floor) / len(cases) * 1e6:.0f} us per test",
    )


def service_figures(report: Report, names: list[str], submissions: int) -> None:
    with tempfile.TemporaryDirectory(prefix="judge-bench-lang-") as tmp:
        env = service_env(
            Path(tmp),
            JUDGE_WORKER_SLOTS="2",
            JUDGE_SUBMIT_RATE_PER_MINUTE="100000",
            JUDGE_MAX_QUEUED_PER_USER="1000",
        )
        stack = Stack("bench-lang", Path(tmp), env).start()
        try:
            token = stack.register("bench-lang")
            for name in names:
                source = FOOTHOLDS[name].read_text()
                comment = "#" if name == "python" else "//"

                def latency(text: str, name: str = name) -> float:
                    started = time.monotonic()
                    response = stack.request(
                        "POST",
                        "/api/v1/submissions",
                        token,
                        json={"problem": "footholds", "source": text, "language": name},
                    )
                    assert response.status_code == 202, response.text
                    sid = response.json()["id"]

                    def done() -> float | None:
                        body = stack.detail(token, sid)
                        if body["status"] != "done":
                            return None
                        assert body["verdict"] == "AC", body
                        return time.monotonic()

                    return wait_for(done, timeout=300, interval=0.02, what=f"{sid}") - started

                # Cold: a source the cache has never seen (a comment makes it new).
                cold = [
                    latency(f"{source}\n{comment} {n} {time.time_ns()}\n")
                    for n in range(submissions)
                ]
                latency(source)  # compiles it once
                cached = [latency(source) for _ in range(submissions)]
                cold_target, cached_target = SERVICE_TARGET_S.get(name, (None, None))
                targets = f" (targets {cold_target} s / {cached_target} s)" if cold_target else ""
                report(
                    f"{get_language(name).title}: submit-to-verdict p50, cold / cached build",
                    f"{statistics.median(cold):.2f} s / {statistics.median(cached):.2f} s"
                    + targets,
                )
        finally:
            stack.stop()


def run(
    report: Report,
    repeat: int = 3,
    submissions: int = 5,
    names: tuple[str, ...] = tuple(FOOTHOLDS),
    service_names: tuple[str, ...] | None = None,
) -> None:
    """`names`: the languages measured; `service_names`: those also measured through the
    service (default: the same)."""
    for name in names:
        judge_figures(report, name, repeat)
    service_figures(report, list(names if service_names is None else service_names), submissions)

"""Per language: compile time (cold and from the build cache), and the full footholds plan
graded against the same compiled program run on the same boards outside the sandbox.

The submission is the language's accepted footholds solutions of the corpus (the first one,
function style). "Outside" runs the very Command the judge runs, unconfined (the sandbox's
development mode): the same program, driver and tests file, with no bubblewrap, seccomp,
cgroup, uid or per-answer checks: what the sandbox and the judge's side cost is the
difference.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import Report, report_numbers
from judge import problems
from judge.build import BuildCache, built
from judge.grade import grade
from judge.languages import LanguageUnavailable, RunRequest, Style, all_languages
from judge.plan import plan_tests
from judge.sandbox import RunLimits, SandboxConfig, make_sandbox

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "submissions"
SEED = 1


def _median(action: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _accepted(name: str) -> Path | None:
    found = sorted((CORPUS / name / "accepted").glob("footholds_*"))
    heads = [(p, p.read_text(errors="replace").split("\n", 2)) for p in found]
    return next((p for p, head in heads if "style: stdio" not in "".join(head[1:2])), None)


def run(report: Report | None = None, repeat: int = 5) -> dict[str, dict[str, str]]:
    sandbox = make_sandbox(SandboxConfig(mode="bwrap"))
    outside = make_sandbox(SandboxConfig(mode="none"))
    problem = problems.get("footholds")
    plan = plan_tests(problem, seed=SEED)
    cases = [c for t in plan for c in (t.small_positions if t.positions is not None else [t.case])]
    results = {}
    for name, language in all_languages().items():
        path = _accepted(name)
        if language.build_command(problem, Style.FUNCTION, b"") is None or path is None:
            continue  # nothing compiled (Python: see the grading core's figures)
        try:
            language.version()
        except LanguageUnavailable:
            continue
        source = path.read_bytes()

        def cold(source: bytes = source, language=language) -> None:
            with built(problem, language, Style.FUNCTION, source, sandbox, None):
                pass

        numbers: dict[str, str] = {"compile cold s": f"{_median(cold, repeat):.3f}"}
        with tempfile.TemporaryDirectory() as tmp:
            cache = BuildCache(tmp)
            with built(problem, language, Style.FUNCTION, source, sandbox, cache):
                pass

            def cached(source: bytes = source, language=language, cache=cache) -> None:
                with built(problem, language, Style.FUNCTION, source, sandbox, cache):
                    pass

            def graded(source: bytes = source, name: str = name, cache=cache) -> None:
                result = grade(
                    problem, source, seed=SEED, sandbox=sandbox, language=name, build_cache=cache
                )
                assert result.verdict.value == "AC", result.message

            numbers["compile cached s"] = f"{_median(cached, repeat):.4f}"
            graded_s = _median(graded, repeat)
            with built(problem, language, Style.FUNCTION, source, sandbox, cache) as program:
                request = RunRequest(problem, Style.FUNCTION, source, program.artifact, cases)
                command = language.run_command(request)
                limits = language.run_limits(
                    RunLimits(cpu_s=60.0, wall_s=120.0, memory_bytes=problem.LIMITS.memory_mb << 20)
                )

                def unconfined(command=command, limits=limits) -> None:
                    with outside.run(command, limits) as proc:
                        lines = 0
                        while proc.read_result(timeout=60.0) is not None:
                            lines += 1
                    assert lines == len(cases) + 1, lines

                outside_s = _median(unconfined, repeat)
        numbers["full footholds plan graded s"] = f"{graded_s:.3f} ({len(cases)} calls)"
        numbers["same program outside the sandbox s"] = f"{outside_s:.3f}"
        numbers["graded / (1.3 x outside + 0.1 s)"] = f"{graded_s / (1.3 * outside_s + 0.1):.2f}"
        results[name] = report_numbers(f"{name}:", numbers, report)
    return results

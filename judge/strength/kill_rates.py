"""Kill rates of the generated mutants, by how often each is wrong on random boards.

    report = generated_report(problems.get("footholds"), seeds=100, jobs=2)

For every mutant of `judge.strength.mutants.generated`: is it killed in every plan (by a sample, a
small position or a worst case)? On how many of the random boards of K seeded plans (drawn exactly
as grading draws them) is it wrong, and in how many of those seeds does the plan reject it? Mutants
wrong on no small position and on none of those few thousand random boards are reported as probably
equivalent and left out of the rates. Every mutant some seed lets pass gets the smallest board
found that kills it.

Mutants that the tests of every plan kill are rejected in every seed whatever their rate; their
rate is estimated on the first RATE_BOARDS boards only (or until RATE_HITS wrong ones, or
RATE_BUDGET_S of CPU: a mutant too slow on every board would take the time limit on each).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from judge import problems
from judge.grading.plan import plan_tests, small_answers, small_positions
from judge.problems import ProblemSpec
from judge.strength.analysis import Killer, shrink_killing
from judge.strength.mutants.generated import generated
from judge.verdict import TestKind

RATE_BOARDS = 400  # boards that estimate the rate of a mutant killed in every plan
RATE_HITS = 40  # ... or until this many of them were wrong
RATE_BUDGET_S = 20.0  # ... or until this much CPU was spent on it

# name, lowest rate (inclusive); a mutant falls in the first band whose lowest rate it reaches
BANDS = ((">=10%", 0.10), ("1-10%", 0.01), ("0.1-1%", 0.001), ("rarer", 0.0))


@dataclass
class GeneratedMutant:
    name: str
    description: str
    fixed: str | None  # "sample" | "small" | "worst": the tier of every plan that kills it
    boards: int  # random boards tried
    wrong: int  # of them, the boards it is wrong on
    seeds_killed: int  # seeds whose plan rejects it
    equivalent: bool  # never wrong: probably the same program as the accepted one
    killer: dict[str, Any] | None = None  # for one a seed lets pass: a small board killing it

    @property
    def rate(self) -> float:
        return self.wrong / self.boards if self.boards else 0.0


@dataclass
class Band:
    band: str
    mutants: int
    killed_every_seed: int  # of them, rejected by the plan of every seed
    kill_rate: float | None  # over mutants and seeds: how often a plan rejects one of them


@dataclass
class GeneratedReport:
    problem: str
    seeds: int
    random_count: int
    mutants: list[GeneratedMutant]
    bands: list[Band] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)  # some seed lets them pass

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for item, mutant in zip(data["mutants"], self.mutants, strict=True):
            item["rate"] = mutant.rate
        return data


def band_of(rate: float) -> str:
    return next(name for name, low in BANDS if rate >= low)


def _seed_boards(problem: ProblemSpec, seeds: int, random_count: int | None) -> list[list[dict]]:
    """The random boards of the plans of seeds 0..K-1, exactly as grading draws them."""
    return [
        [
            t.case
            for t in plan_tests(problem, (), seed, random_count, solve=False)
            if t.kind is TestKind.RANDOM
        ]
        for seed in range(seeds)
    ]


def _fixed_tier(problem: ProblemSpec, killer: Killer, name: str) -> str | None:
    """The first tier of every plan that kills the mutant: cheap tiers first."""
    if any(killer.kills(name, s["input"], s["answer"]) for s in problem.SAMPLES):
        return "sample"
    if killer.first_kill(name, small_positions(problem), small_answers(problem)) is not None:
        return "small"
    if any(killer.kills(name, case) for case in problem.WORST_CASES):
        return "worst"
    return None


def measure(problem: ProblemSpec, names: Sequence[str], seeds: int, random_count: int | None):
    """The measurement of each named generated mutant (one process's share)."""
    killer = Killer(problem, generated(problem.SLUG))
    plans = _seed_boards(problem, seeds, random_count)
    out = []
    for name in names:
        fixed = _fixed_tier(problem, killer, name)
        boards = wrong = killed = 0
        first_wrong = None
        if fixed is not None:  # every plan rejects it: only its rate is left to estimate
            killed = seeds
            spent_by = time.process_time() + RATE_BUDGET_S
            for case in (case for seed_boards in plans for case in seed_boards):
                boards += 1
                wrong += killer.kills(name, case)
                enough = boards >= RATE_BOARDS or wrong >= RATE_HITS
                if enough or time.process_time() > spent_by:
                    break
        else:
            for seed_boards in plans:
                hit = False
                for case in seed_boards:
                    boards += 1
                    if killer.kills(name, case):
                        wrong += 1
                        hit = True
                        first_wrong = first_wrong or case
                killed += hit
        mutant = GeneratedMutant(
            name=name,
            description=killer.mutants[name].description,
            fixed=fixed,
            boards=boards,
            wrong=wrong,
            seeds_killed=killed,
            equivalent=fixed is None and wrong == 0,
        )
        if killed < seeds and first_wrong is not None:
            mutant.killer = shrink_killing(problem, killer, name, first_wrong)
        out.append(mutant)
    return out


def _measure_job(job: tuple[str, list[str], int, int | None]) -> list[GeneratedMutant]:
    slug, names, seeds, random_count = job
    return measure(problems.get(slug), names, seeds, random_count)


def generated_report(
    problem: ProblemSpec,
    seeds: int = 100,
    *,
    random_count: int | None = None,
    jobs: int = 1,
    names: Sequence[str] | None = None,
) -> GeneratedReport:
    """The kill rates of the problem's generated mutants over `seeds` seeded plans."""
    chosen = list(generated(problem.SLUG) if names is None else names)
    if jobs > 1 and len(chosen) > 1:
        chunks = [chosen[i::jobs] for i in range(jobs)]
        context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            jobs_in = [(problem.SLUG, chunk, seeds, random_count) for chunk in chunks]
            parts = list(pool.map(_measure_job, jobs_in))
        found = {m.name: m for part in parts for m in part}
        measured = [found[name] for name in chosen]
    else:
        measured = measure(problem, chosen, seeds, random_count)
    report = GeneratedReport(
        problem=problem.SLUG,
        seeds=seeds,
        random_count=problem.RANDOM_COUNT if random_count is None else random_count,
        mutants=measured,
        equivalent=[m.name for m in measured if m.equivalent],
        survivors=[m.name for m in measured if not m.equivalent and m.seeds_killed < seeds],
    )
    for band, _ in BANDS:
        members = [m for m in measured if not m.equivalent and band_of(m.rate) == band]
        report.bands.append(
            Band(
                band=band,
                mutants=len(members),
                killed_every_seed=sum(m.seeds_killed == seeds for m in members),
                kill_rate=(
                    sum(m.seeds_killed for m in members) / (len(members) * seeds)
                    if members and seeds
                    else None
                ),
            )
        )
    return report


def format_generated(report: GeneratedReport) -> str:
    """The report as text, for the terminal."""
    counted = len(report.mutants) - len(report.equivalent)
    lines = [
        f"{report.problem}: {len(report.mutants)} generated mutants, {len(report.equivalent)} "
        f"probably equivalent (never wrong on the small tier nor on any random board tried); "
        f"{counted} counted, over {report.seeds} seeds of {report.random_count} random boards",
        "",
        f"{'wrong on':>10} {'mutants':>8} {'rejected in every seed':>23} {'kill rate':>10}",
    ]
    for band in report.bands:
        rate = "-" if band.kill_rate is None else f"{band.kill_rate:.3f}"
        lines.append(f"{band.band:>10} {band.mutants:>8} {band.killed_every_seed:>23} {rate:>10}")
    by_name = {m.name: m for m in report.mutants}
    if report.survivors:
        lines.append("")
        lines.append("let pass by some seed (rate on random boards; smallest board that kills it):")
        for name in report.survivors:
            m = by_name[name]
            lines.append(
                f"  {name}: {m.description}; wrong on {m.wrong}/{m.boards} boards, rejected "
                f"in {m.seeds_killed}/{report.seeds} seeds"
            )
            if m.killer is not None:
                lines.append(f"     kills it: {m.killer}")
    else:
        lines.append("every counted mutant is rejected in every seed")
    return "\n".join(lines)

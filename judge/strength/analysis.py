"""Test-set strength: which deliberately broken solvers (mutants) do a problem's tests catch?

    report = analyse(problems.get("footholds"), hidden_cases, seeds=50)
    report.to_dict()

A mutant is killed by a test when its answer fails the problem's check against the reference
answer (or it raises: the submission would get RE). The report says, for the sample boards, the
small tier (every small position, one test), the worst cases and the hidden boards, which test
kills which mutant; for the random part of the plan, drawn exactly
as grading draws it (`judge.grading.plan.plan_tests`) over K seeds, how often it kills each mutant;
and how often a whole plan kills every mutant. For every mutant that samples and hidden boards
leave alive, `suggest` searches (generators, then shrinking) for a small board that kills it.

Mutants are trusted code and run in-process. Everything here is deterministic for given seeds.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from judge import problems
from judge.diagnosis.tree_search import diagnose, offers_diagnosis
from judge.grading.plan import allocate, plan_tests, small_answers, small_positions
from judge.problems import ProblemSpec
from judge.strength.mutants import Mutant, Raised, mutants, run
from judge.strength.report import MutantStrength, StrengthReport, Suggestion, TestKills
from judge.verdict import TestKind

SUGGEST_TRIES = 3000  # generated boards tried per surviving mutant
SHRINK_TRIES = 400  # shrink candidates tried per suggestion
SUGGEST_BUDGET_S = 5.0  # wall time per surviving mutant (search and shrinking)


def _key(case: Mapping[str, Any]) -> str:
    return json.dumps(case, sort_keys=True, separators=(",", ":"))


class Killer:
    """Runs mutants against cases, remembering reference answers and mutant outcomes."""

    def __init__(self, problem: ProblemSpec, library: Mapping[str, Mutant] | None = None) -> None:
        self.problem = problem
        self.mutants = dict(mutants(problem.SLUG) if library is None else library)
        self._answers: dict[str, Any] = {}
        self._outcomes: dict[tuple[str, str], Any] = {}

    @property
    def size(self) -> int:
        """How many answers it remembers."""
        return len(self._answers) + len(self._outcomes)

    def answer(self, case: Mapping[str, Any], known: Any = None) -> Any:
        key = _key(case)
        if key not in self._answers:
            self._answers[key] = self.problem.reference(case) if known is None else known
        return self._answers[key]

    def known(self, case: Mapping[str, Any]) -> bool:
        """The reference answer is already known (the case was seen before)."""
        return _key(case) in self._answers

    def outcome(self, name: str, case: Mapping[str, Any]) -> Any:
        """The mutant's answer on the case, or Raised."""
        key = (name, _key(case))
        if key not in self._outcomes:
            self._outcomes[key] = run(self.mutants[name], dict(case))
        return self._outcomes[key]

    def kills(self, name: str, case: Mapping[str, Any], expected: Any = None) -> bool:
        got = self.outcome(name, case)
        if isinstance(got, Raised):
            return True
        ok, _ = self.problem.check(case, self.answer(case, expected), got)
        return not ok

    def killed_by(
        self, case: Mapping[str, Any], names: Iterable[str] | None = None, expected: Any = None
    ) -> list[str]:
        """The mutants (of `names`, default all) that this case kills."""
        return [
            n for n in (self.mutants if names is None else names) if self.kills(n, case, expected)
        ]

    def first_kill(self, name: str, cases: Sequence[Mapping[str, Any]], answers: Sequence[Any]):
        """The first of `cases` (with their known answers) that kills the mutant, or None."""
        for case, expected in zip(cases, answers, strict=True):
            if self.kills(name, case, expected):
                return case
        return None


def killed_by_fixed_tests(
    problem: ProblemSpec, killer: Killer, hidden_cases: Iterable[Mapping[str, Any]] = ()
) -> set[str]:
    """The mutants that the tests of every plan (samples, the small tier, the worst cases)
    and the given hidden boards kill for certain."""
    names = list(killer.mutants)
    dead = set()
    for sample in problem.SAMPLES:
        dead.update(killer.killed_by(sample["input"], names, sample["answer"]))
    for case in problem.WORST_CASES:
        dead.update(killer.killed_by(case, names))
    for board in hidden_cases:
        dead.update(killer.killed_by(board["input"], names, board.get("answer")))
    positions, answers = small_positions(problem), small_answers(problem)
    dead.update(n for n in names if n not in dead and killer.first_kill(n, positions, answers))
    return dead


def _jsonable(value: Any) -> Any:
    if isinstance(value, Raised):
        return {"raised": value.error}
    return value


def wilson_low(successes: int, n: int, z: float = 1.96) -> float:
    """Lower end of the Wilson score interval for a binomial proportion."""
    if n == 0:
        return 0.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - spread) / (1 + z * z / n))


def _cost(case: Mapping[str, Any]) -> int:
    """A rough cost of solving a case, to try cheap boards first (the order kills nothing)."""
    return len(_key(case))


def seed_list(seeds: int | Iterable[int]) -> list[int]:
    return list(range(seeds)) if isinstance(seeds, int) else list(seeds)


def random_kills(
    problem: ProblemSpec,
    seeds: int | Iterable[int],
    names: Iterable[str] | None = None,
    *,
    random_count: int | None = None,
    killer: Killer | None = None,
    jobs: int = 1,
) -> list[frozenset[str]]:
    """Per seed, the mutants (of `names`, default all) that the plan's random boards kill.

    The random boards are exactly the ones grading draws for that seed. They are tried cheap
    (or already solved) first and each mutant stops at its first kill. With jobs > 1 the seeds
    are shared among that many processes (the problem's own mutant library only).
    """
    seeds = seed_list(seeds)
    if jobs > 1 and killer is None and len(seeds) > 1:
        chosen = None if names is None else list(names)
        chunks = [seeds[i::jobs] for i in range(jobs)]
        context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            parts = list(
                pool.map(
                    _random_kills_job, [(problem.SLUG, c, chosen, random_count) for c in chunks]
                )
            )
        by_seed = {
            seed: kills
            for chunk, part in zip(chunks, parts, strict=True)
            for seed, kills in zip(chunk, part, strict=True)
        }
        return [by_seed[seed] for seed in seeds]
    judge = killer or Killer(problem)
    chosen = list(judge.mutants if names is None else names)
    out = []
    for seed in seeds:
        plan = plan_tests(problem, (), seed, random_count, solve=False)
        boards = [t.case for t in plan if t.kind is TestKind.RANDOM]
        boards.sort(key=lambda case: (not judge.known(case), _cost(case)))
        out.append(frozenset(n for n in chosen if any(judge.kills(n, c) for c in boards)))
    return out


def _random_kills_job(job: tuple[str, list[int], list[str] | None, int | None]):
    slug, seeds, names, random_count = job
    return random_kills(problems.get(slug), seeds, names, random_count=random_count)


def analyse(
    problem: ProblemSpec,
    hidden_cases: Iterable[Mapping[str, Any]] = (),
    seeds: int | Iterable[int] = 20,
    *,
    random_count: int | None = None,
    profile_boards: int = 0,
    suggest_survivors: bool = False,
    skip_killed: bool = False,
    jobs: int = 1,
    seed_kills: Sequence[frozenset[str]] | None = None,
    library: Mapping[str, Mutant] | None = None,
    killer: Killer | None = None,
) -> StrengthReport:
    """How strong the problem's tests are against its mutants.

    hidden_cases: like grading's, [{"input": case, "answer"?: ..., "id"?: ...}, ...].
    seeds: K (seeds 0..K-1) or the seeds themselves; each gives one random part of the plan.
    skip_killed: do not run random boards against mutants that samples or hidden boards
    already kill (their random_rate is then None); the plan figures are unchanged.
    seed_kills: random_kills() for these seeds, when the caller has it already (it does not
    depend on the hidden boards, so a service can compute it once).
    profile_boards: also measure, per profile, the kill rate of a single random board (that
    many boards per profile): where each mutant is caught, for tuning the generators.
    """
    started = time.monotonic()
    judge = killer or Killer(problem, library)
    names = list(judge.mutants)
    seeds = seed_list(seeds)
    hidden = list(hidden_cases)

    tests: list[TestKills] = []
    for index, sample in enumerate(problem.SAMPLES):
        kills = judge.killed_by(sample["input"], names, sample["answer"])
        tests.append(TestKills(TestKind.SAMPLE.value, index, None, kills))
    # The small tier is one test; each mutant stops at its first failing position.
    positions, answers = small_positions(problem), small_answers(problem)
    by_small = {n: judge.first_kill(n, positions, answers) for n in names} if positions else {}
    if positions:
        kills = [n for n in names if by_small[n] is not None]
        tests.append(TestKills(TestKind.SMALL.value, 0, None, kills))
    worst_cases = problem.WORST_CASES
    for index, case in enumerate(worst_cases):
        tests.append(TestKills(TestKind.WORST.value, index, None, judge.killed_by(case, names)))
    for index, board in enumerate(hidden):
        problem.validate(board["input"])
        kills = judge.killed_by(board["input"], names, board.get("answer"))
        tests.append(TestKills(TestKind.HIDDEN.value, index, board.get("id"), kills))
    by_samples = {n: [t.index for t in tests if t.kind == "sample" and n in t.kills] for n in names}
    by_worst = {n: [t.index for t in tests if t.kind == "worst" and n in t.kills] for n in names}
    by_hidden = {
        n: [t.index if t.id is None else t.id for t in tests if t.kind == "hidden" and n in t.kills]
        for n in names
    }
    # Killed in every plan: by a sample, a small position or a worst case.
    sample_set = {n for n in names if by_samples[n] or by_small.get(n) or by_worst[n]}
    fixed_set = sample_set | {n for n in names if by_hidden[n]}

    if seed_kills is None:
        todo = [n for n in names if n not in fixed_set] if skip_killed else names
        parallel = jobs > 1 and library is None and killer is None
        seed_kills = random_kills(
            problem,
            seeds,
            todo,
            random_count=random_count,
            killer=None if parallel else judge,
            jobs=jobs if parallel else 1,
        )
    if len(seed_kills) != len(seeds):
        raise ValueError("seed_kills must have one entry per seed")
    everything = set(names)
    plan_all = sum(everything <= (sample_set | kills) for kills in seed_kills)
    full_all = sum(everything <= (fixed_set | kills) for kills in seed_kills)
    k = len(seeds)

    def rate(count: int) -> float:
        return count / k if k else 0.0

    report_mutants = []
    for name in names:
        measured = not (skip_killed and name in fixed_set)
        hits = sum(name in kills for kills in seed_kills)
        random_rate = rate(hits) if measured else None
        report_mutants.append(
            MutantStrength(
                name=name,
                description=judge.mutants[name].description,
                samples=by_samples[name],
                hidden=by_hidden[name],
                random_rate=random_rate,
                plan_rate=1.0 if name in sample_set else rate(hits),
                rate=1.0 if name in fixed_set else rate(hits),
                small=by_small.get(name),
                worst=by_worst[name],
            )
        )
    if profile_boards:
        rates = profile_rates(problem, profile_boards, killer=judge)
        for m in report_mutants:
            m.profile_rates = rates[m.name]

    if offers_diagnosis(problem):
        for m in report_mutants:
            m.diagnosed_depth = diagnosis_depth(problem, judge, m.name, worst_cases)
    survivors = [m.name for m in report_mutants if not m.killed]
    report = StrengthReport(
        problem=problem.SLUG,
        mutant_count=len(names),
        sample_count=len(problem.SAMPLES),
        hidden_count=len(hidden),
        random_count=problem.RANDOM_COUNT if random_count is None else random_count,
        seeds=seeds,
        mutants=report_mutants,
        tests=tests,
        plan_kills_all=rate(plan_all),
        plan_kills_all_low=wilson_low(plan_all, k),
        kills_all=rate(full_all),
        survivors=survivors,
    )
    if suggest_survivors and survivors:
        report.suggestions, report.unkillable = suggest(problem, survivors, killer=judge)
    report.elapsed_s = round(time.monotonic() - started, 3)
    return report


def diagnosis_depth(
    problem: ProblemSpec, killer: Killer, name: str, worst_cases: Sequence[Mapping[str, Any]]
) -> int | None:
    """Run "where is the bug" on the mutant from its first failing fixed test; the depth of
    the position it names, or None when it names none (or no fixed test fails)."""
    fixed = [s["input"] for s in problem.SAMPLES] + small_positions(problem) + list(worst_cases)
    start = next((case for case in fixed if killer.kills(name, case)), None)
    if start is None:
        return None

    def ask(cases: Sequence[Mapping[str, Any]]) -> list[Any]:
        return [killer.outcome(name, case) for case in cases]

    found = diagnose(problem, start, ask, got=killer.outcome(name, start))
    return None if found is None else found.depth


def profile_rates(
    problem: ProblemSpec, boards: int, *, killer: Killer | None = None, seed: int = 0
) -> dict[str, dict[str, float]]:
    """mutant -> profile -> fraction of that profile's boards that kill the mutant."""
    judge = killer or Killer(problem)
    rates: dict[str, dict[str, float]] = {name: {} for name in judge.mutants}
    for profile in problem.PROFILES:
        rng = random.Random(f"profile-rates-{seed}-{profile}")
        cases = [problem.generate(rng, profile) for _ in range(boards)]
        for name in judge.mutants:
            rates[name][profile] = sum(judge.kills(name, c) for c in cases) / boards
    return rates


# -- suggestions -------------------------------------------------------------------------------
def suggest(
    problem: ProblemSpec,
    survivors: Sequence[str],
    *,
    killer: Killer | None = None,
    seed: int = 0,
    tries: int = SUGGEST_TRIES,
    shrink_tries: int = SHRINK_TRIES,
    budget_s: float = SUGGEST_BUDGET_S,
    total_s: float | None = None,
) -> tuple[list[Suggestion], list[str]]:
    """Small boards that kill the surviving mutants, and the survivors none was found for.

    For each survivor not killed by an earlier suggestion: draw boards from the generator's
    profiles (cheap profiles and expensive ones in turn) until one kills it, then shrink it
    greedily while it still kills. Each suggestion lists every survivor it kills. Each
    survivor gets about `budget_s` (twice that with shrinking); after `total_s` the remaining
    survivors are not searched and count as not found.
    """
    judge = killer or Killer(problem)
    found: list[Suggestion] = []
    unkillable: list[str] = []
    profiles = allocate(problem.PROFILES, max(len(problem.PROFILES), 20))
    stop = None if total_s is None else time.monotonic() + total_s
    for name in survivors:
        if any(name in s.kills for s in found):
            continue
        if stop is not None and time.monotonic() > stop:
            unkillable.append(name)
            continue
        deadline = time.monotonic() + budget_s
        rng = random.Random(f"suggest-{problem.SLUG}-{seed}-{name}")
        case = profile = None
        for attempt in range(tries):
            if attempt and time.monotonic() > deadline:
                break
            profile = profiles[attempt % len(profiles)]
            candidate = problem.generate(rng, profile)
            if judge.kills(name, candidate):
                case = candidate
                break
        if case is None or profile is None:
            unkillable.append(name)
            continue
        case = shrink_killing(problem, judge, name, case, shrink_tries, deadline + budget_s)
        kills = [n for n in survivors if judge.kills(n, case)]
        found.append(
            Suggestion(
                kills=kills,
                input=case,
                answer=judge.answer(case),
                got={n: _jsonable(judge.outcome(n, case)) for n in kills},
                profile=profile,
            )
        )
    return found, unkillable


def shrink_killing(
    problem: ProblemSpec,
    judge: Killer,
    name: str,
    case: dict[str, Any],
    tries: int = SHRINK_TRIES,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Greedily replace the case by smaller ones (problem.shrink) that still kill the mutant."""
    while tries > 0:
        for candidate in problem.shrink(case):
            tries -= 1
            if judge.kills(name, candidate):
                case = candidate
                break
            if tries <= 0 or (deadline is not None and time.monotonic() > deadline):
                return case
        else:
            return case
    return case

"""What a long-lived process remembers between strength analyses (`judge.strength`).

The random part of an analysis does not depend on the hidden boards, so it is computed once
per problem, seed count and plan size and kept, together with the mutants' answers on every
board seen (bounded). The worker computing reports and the API checking single boards each
hold one.
"""

from __future__ import annotations

import threading
from typing import Any

from judge.problems import ProblemSpec
from judge.strength.analysis import Killer, analyse, random_kills, suggest

MAX_REMEMBERED = 500_000  # mutant answers kept per problem before the memory is dropped
SUGGEST_BUDGET_S = 2.0  # per surviving mutant
SUGGEST_TOTAL_S = 15.0  # for all of them in one report


class StrengthMemory:
    """Per problem: a Killer (reference and mutant answers) and the seeded random kills."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.killers: dict[str, Killer] = {}
        self.random: dict[tuple[str, int, int | None], list[frozenset[str]]] = {}
        self.locks: dict[str, threading.Lock] = {}

    def problem_lock(self, slug: str) -> threading.Lock:
        with self.lock:
            return self.locks.setdefault(slug, threading.Lock())

    def killer(self, module: ProblemSpec) -> Killer:
        killer = self.killers.get(module.SLUG)
        if killer is None or killer.size > MAX_REMEMBERED:
            killer = self.killers[module.SLUG] = Killer(module)
        return killer

    def seed_kills(self, module: ProblemSpec, seeds: int, random_count: int | None):
        key = (module.SLUG, seeds, random_count)
        if key not in self.random:
            self.random[key] = random_kills(
                module, seeds, random_count=random_count, killer=self.killer(module)
            )
        return self.random[key]

    def report(
        self,
        module: ProblemSpec,
        hidden: list[dict[str, Any]],
        seeds: int,
        random_count: int | None,
        with_suggestions: bool,
    ) -> dict[str, Any]:
        """The report as the API presents it (JSON-ready)."""
        with self.problem_lock(module.SLUG):
            killer = self.killer(module)
            report = analyse(
                module,
                hidden,
                seeds,
                random_count=random_count,
                seed_kills=self.seed_kills(module, seeds, random_count),
                killer=killer,
            )
            if with_suggestions and report.survivors:
                report.suggestions, report.unkillable = suggest(
                    module,
                    report.survivors,
                    killer=killer,
                    budget_s=SUGGEST_BUDGET_S,
                    total_s=SUGGEST_TOTAL_S,
                )
        data = report.to_dict()
        data["seeds"] = len(report.seeds)
        data["weakest"] = data["weakest"]["name"] if data["weakest"] else None
        for item, mutant in zip(data["mutants"], report.mutants, strict=True):
            item["killed"] = mutant.killed
        return data

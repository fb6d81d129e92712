"""A strength report (judge/strength/analysis.py makes one): which tests kill which mutant, how
often a plan kills them all, the boards suggested for the survivors, and the report as a table
for the terminal."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from judge import problems
from judge.diagnosis.tree_search import offers_diagnosis


@dataclass
class TestKills:
    kind: str  # "sample" | "small" (every small position, one test) | "worst" | "hidden"
    index: int  # position among the tests of its kind
    id: Any  # a hidden board's id, when the caller gave one
    kills: list[str]


@dataclass
class MutantStrength:
    name: str
    description: str
    samples: list[int]  # indices of the sample boards that kill it
    hidden: list[Any]  # ids (or indices, when boards have no id) of the hidden boards that kill it
    random_rate: float | None  # fraction of seeded random parts of the plan that kill it
    plan_rate: float  # the default plan (samples + random boards): kill probability per seed
    rate: float  # samples + hidden + random boards: what a submission faces now
    profile_rates: dict[str, float] = field(default_factory=dict)  # per random board, by profile
    small: dict[str, Any] | None = None  # the first small position that kills it
    worst: list[int] = field(default_factory=list)  # indices of the worst cases that kill it
    # "Where is the bug" from its first failing sample, small position or worst case: how
    # many moves below it the search named a wrong position whose children are all right
    # (None: the search found none, or the problem does not offer it).
    diagnosed_depth: int | None = None

    @property
    def killed(self) -> bool:
        """Killed for certain, by a test in every plan or a hidden board."""
        return bool(self.samples or self.small or self.worst or self.hidden)


@dataclass
class Suggestion:
    kills: list[str]  # the surviving mutants this board kills
    input: dict[str, Any]
    answer: Any
    got: dict[str, Any]  # mutant -> its (wrong) answer, or {"raised": error name}
    profile: str  # the generator profile the board grew from, before shrinking


@dataclass
class StrengthReport:
    problem: str
    mutant_count: int
    sample_count: int
    hidden_count: int
    random_count: int  # random boards per plan
    seeds: list[int]
    mutants: list[MutantStrength]
    tests: list[TestKills]  # sample and hidden boards, each with the mutants it kills
    plan_kills_all: float  # fraction of seeds whose default plan kills every mutant
    plan_kills_all_low: float  # 95% lower confidence bound of that (Wilson)
    kills_all: float  # the same with the hidden boards in the plan
    survivors: list[str]  # not killed by any sample or hidden board
    suggestions: list[Suggestion] = field(default_factory=list)
    unkillable: list[str] = field(default_factory=list)  # survivors no board was found for
    elapsed_s: float = 0.0

    @property
    def weakest(self) -> MutantStrength | None:
        """The mutant the default plan kills least often."""
        return min(self.mutants, key=lambda m: (m.plan_rate, m.name), default=None)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        weakest = self.weakest
        data["weakest"] = (
            None
            if weakest is None
            else {
                "name": weakest.name,
                "plan_rate": weakest.plan_rate,
            }
        )
        return data


def _indices(values: Sequence[Any], limit: int = 12) -> str:
    text = ",".join(map(str, values)) or "-"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rate(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def format_report(report: StrengthReport, width: int = 100) -> str:
    """The report as a readable table, for the terminal."""
    k = len(report.seeds)
    lines = [
        f"{report.problem}: {report.mutant_count} mutants against {report.sample_count} samples, "
        f"{report.hidden_count} hidden boards and {report.random_count} random boards per plan "
        f"({k} seeds)",
        "",
        f"{'mutant':26} {'samples':>9} {'small':>5} {'worst':>5} {'hidden':>12} {'random':>7} "
        f"{'plan':>6} {'now':>6}  description",
    ]
    show_profiles = any(m.profile_rates for m in report.mutants)
    for m in report.mutants:
        small = "yes" if m.small else "-"
        head = (
            f"{m.name:26} {_indices(m.samples, 9):>9} {small:>5} {_indices(m.worst, 5):>5} "
            f"{_indices(m.hidden):>12} "
            f"{_rate(m.random_rate):>7} {m.plan_rate:6.3f} {m.rate:6.3f}  "
        )
        room = max(width - len(head), 20)
        text = m.description if len(m.description) <= room else m.description[: room - 3] + "..."
        lines.append(head + text)
        if show_profiles:
            rates = ", ".join(f"{p} {r:.2f}" for p, r in m.profile_rates.items())
            lines.append(f"{'':26} per random board: {rates}")
    lines.append("")
    lines.append(
        "random: fraction of seeds whose random boards kill it; plan: the default plan "
        "(samples, small positions, worst cases, random boards); now: with the hidden boards too"
    )
    plan_all = round(report.plan_kills_all * k)
    lines.append(
        f"the default plan kills every mutant in {plan_all}/{k} seeds: "
        f"{report.plan_kills_all:.3f} (95% lower bound {report.plan_kills_all_low:.3f}); "
        f"with the hidden boards: {report.kills_all:.3f}"
    )
    weakest = report.weakest
    if weakest is not None and weakest.plan_rate < 1:
        lines.append(f"weakest under the default plan: {weakest.name} ({weakest.plan_rate:.3f})")
    elif weakest is not None:
        lines.append("the default plan killed every mutant in every seed")
    for test in report.tests:
        label = f"{test.kind} {test.index}" + ("" if test.id is None else f" (id {test.id})")
        text = f"  {label} kills {len(test.kills)}: {', '.join(test.kills) or '-'}"
        lines.append(text if len(text) <= width else text[: width - 3] + "...")
    if report.survivors:
        lines.append("")
        lines.append(
            f"{len(report.survivors)} mutants survive every plan's tests and the hidden boards: "
            + ", ".join(report.survivors)
        )
    else:
        lines.append("the tests of every plan and the hidden boards kill every mutant")
    if offers_diagnosis(problems.get(report.problem)):
        named = [m.diagnosed_depth for m in report.mutants if m.diagnosed_depth is not None]
        lines.append(
            f"where is the bug: from each mutant's first failing fixed test, the search named a "
            f"wrong position whose children are all right for {len(named)} of "
            f"{report.mutant_count} mutants"
            + (f" (at most {max(named)} moves below it)" if named else "")
        )
    if report.suggestions:
        lines.append("suggested hidden boards (each kills the survivors listed):")
        for number, s in enumerate(report.suggestions, 1):
            lines.append(f"  {number}. answer {s.answer}; kills {', '.join(s.kills)}")
            lines.append(f"     {json.dumps(s.input)}")
    if report.unkillable:
        lines.append("no killing board found for: " + ", ".join(report.unkillable))
    lines.append(f"({report.elapsed_s:.1f} s)")
    return "\n".join(lines)

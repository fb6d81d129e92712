"""A grading's hidden tier run on its own, for hosts that run hidden tiers and nothing else.

On one host the phase lock keeps hidden runs apart from visible ones (judge/sandbox/phase.py).
A deployment that outgrows one host can instead send each hidden tier to workers of its own
(worker/hidden_lane.py): `grade(..., hidden_tier=send)` hands `send` a HiddenTier, the
hidden host compiles the same source and runs `run_hidden_tier`, and the outcomes come back
as plain JSON (`outcome_to_wire`, `outcome_from_wire`). The grading host checks them against
the reference as it checks its own: the hidden host only runs the program.

    outcomes = run_hidden_tier(HiddenTier.from_dict(message), sandbox, build_cache)
    reply = [outcome_to_wire(o) for o in outcomes]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from judge import answers, problems
from judge.execution.build import BuildCache, built
from judge.execution.runners import Outcome, runner_for
from judge.languages import resolve
from judge.sandbox import Sandbox
from judge.verdict import Verdict


@dataclass(frozen=True)
class HiddenTier:
    """What a hidden host needs to run one grading's hidden boards."""

    problem: str
    language: str
    style: str
    source: str
    cases: list[dict[str, Any]]
    time_s: float  # the problem's limit per test
    budget_s: float  # what is left of the grading's budget when it is sent

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> HiddenTier:
        fields = {
            "problem": str,
            "language": str,
            "style": str,
            "source": str,
            "cases": list,
            "time_s": float,
            "budget_s": float,
        }
        if not isinstance(data, dict) or set(data) != set(fields):
            raise ValueError("a hidden tier message has exactly the fields " + ", ".join(fields))
        for name, kind in fields.items():
            value = data[name]
            if kind is float and type(value) is int:
                value = float(value)
            if not isinstance(value, kind):
                raise ValueError(f"hidden tier field {name!r} is not a {kind.__name__}")
        return cls(**{name: data[name] for name in fields})


# Sends a hidden tier away and returns its outcomes, in case order (fewer when it stopped).
SendHiddenTier = Callable[[HiddenTier], list[Outcome]]


def run_hidden_tier(
    tier: HiddenTier,
    sandbox: Sandbox,
    build_cache: BuildCache | None = None,
    problem: problems.ProblemSpec | None = None,
) -> list[Outcome]:
    """Run the tier's cases as the grading host would: one process at a time, the hidden
    phase, no printed output kept; stops after a time-out that spent its process. Raises
    judge.execution.program.CompileError (the grading host compiled it: a lie or a broken toolchain)
    and the sandbox's infrastructure errors. `problem`: the spec of an uploaded problem's
    version (None: the built-in named by the tier)."""
    module = problem if problem is not None else problems.get(tier.problem)
    if tier.problem != module.SLUG:
        raise ValueError(f"a hidden tier of {tier.problem!r} run against {module.SLUG!r}")
    plugin, chosen = resolve(module, tier.language, tier.style)
    outcomes: list[Outcome] = []

    def keep(index: int, outcome: Outcome) -> bool:
        outcomes.append(outcome)
        return not outcome.ends_the_rest

    source = tier.source.encode("utf-8", "surrogatepass")
    # The grading host compiled it before its visible tiers: compiling again here is this
    # host's cost, not the tier's budget (each is capped by the language's compile limit).
    with built(module, plugin, chosen, source, sandbox, build_cache) as program:
        deadline = time.monotonic() + tier.budget_s
        runner = runner_for(
            module, program, sandbox, tier.time_s, deadline, compile_checked=True, hidden_input=True
        )
        runner.run(tier.cases, keep)
    return outcomes


def outcome_to_wire(outcome: Outcome) -> dict[str, Any]:
    return {
        "verdict": outcome.verdict.value,
        "message": outcome.message,
        "got": _answer_to_wire(outcome.got),
        "cpu_s": outcome.cpu_s,
        "wall_s": outcome.wall_s,
        "rss_kb": outcome.rss_kb,
        "fatal": outcome.fatal,
    }


def outcome_from_wire(data: Any) -> Outcome:
    """An outcome from a hidden host, read as strictly as a driver's report: its figures
    and texts came out of a sandbox."""
    if not isinstance(data, dict):
        raise answers.MalformedReport("a hidden outcome is not an object")
    try:
        verdict = Verdict(data["verdict"])
    except (KeyError, ValueError):
        raise answers.MalformedReport("a hidden outcome has no known verdict") from None
    figures: list[float] = []
    for key in ("cpu_s", "wall_s", "rss_kb"):
        value: Any = data.get(key)
        if type(value) not in (int, float) or not 0 <= value <= 1e12:
            raise answers.MalformedReport(f"a hidden outcome's {key} is not a sane number")
        figures.append(float(value))
    if type(data.get("fatal")) is not bool:
        raise answers.MalformedReport("a hidden outcome's fatal is not a boolean")
    got = data.get("got")
    return Outcome(
        verdict,
        answers.clean_text(data.get("message", ""), 6000),
        got=None if got is None else answers.decode(got),
        cpu_s=figures[0],
        wall_s=figures[1],
        rss_kb=int(figures[2]),
        fatal=data["fatal"],
    )


def _answer_to_wire(value: Any) -> Any:
    """The answer report `answers.decode` reads back into the same value."""
    if value is None:
        return None
    if type(value) is int:
        return {"type": "int", "int": str(value)}
    if type(value) is bool:
        return {"type": "bool", "bool": value}
    if type(value) is str:
        return {"type": "str", "str": value}
    if type(value) is list:
        return {"type": "list", "items": [_answer_to_wire(item) for item in value]}
    if isinstance(value, answers.Opaque):
        return {"type": value.type_name, "repr": value.repr}
    raise TypeError(f"not an answer: {type(value).__name__}")

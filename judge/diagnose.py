"""Where is the bug: algorithmic debugging down the game tree below a failing position.

A function-style solution answers for any position, and a correct one's answer for a position
follows from the answers one move later by the problem's rule. So, starting from a position
the submission gets wrong, ask the submission itself about the positions one move later:

- if one of them is wrong too, the bug shows lower down: go there (one move deeper);
- if all of them are right, this position is where the mistake is made, in how the answers
  one move later are combined (or, at a position with no moves, in the end of the game).

Every step goes one move deeper, so the search ends; it is also bounded in calls and time,
because each step runs the submission. The submission's answers on positions it was asked
about are forged by definition: they are only compared with the reference, never trusted.

Problems offer the search by defining `children(case)` (the valid positions one move later)
and optionally `COMBINE_RULE` (how a position's value follows from them, in plain words).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from judge.answers import Opaque, describe
from judge.problems import Case, Problem

DEFAULT_MAX_CALLS = 300
DEFAULT_BUDGET_S = 10.0

# The submission's answers for a batch of positions, in order. An answer that is not a
# returned value (the call raised, timed out, ...) is any object whose str() says what
# happened; it is never equal to a reference answer.
Ask = Callable[[Sequence[Case]], Sequence[Any]]


class Stopped(Exception):
    """The submission could not be asked any more (its sandbox failed or timed out)."""


@dataclass(frozen=True)
class Probe:
    case: Case
    expected: Any
    got: Any

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "expected": self.expected, "got": answer_json(self.got)}


@dataclass(frozen=True)
class Diagnosis:
    """A position the submission gets wrong while it is right on every position one move
    later (`children`; empty when every move ends the game at once or there is no move)."""

    wrong: Probe
    children: tuple[Probe, ...]
    summary: str
    depth: int  # moves from the failing test's position down to `wrong`
    calls: int  # how many positions the submission was asked about

    def to_json(self) -> dict[str, Any]:
        return {
            **self.wrong.to_json(),
            "children": [child.to_json() for child in self.children],
            "summary": self.summary,
            "depth": self.depth,
        }


def answer_json(got: Any) -> Any:
    """An answer for the JSON result: an exact int as is, anything else in words."""
    if type(got) is int:
        return got
    return describe(got) if isinstance(got, Opaque) else str(got)


def offers_diagnosis(problem: Problem) -> bool:
    return callable(getattr(problem, "children", None))


def _is_right(problem: Problem, probe: Probe) -> bool:
    return problem.check(probe.case, probe.expected, probe.got)[0]


class _Unknown:
    """`got` not given: the submission is asked about the starting position too."""


UNKNOWN = _Unknown()


def _key(case: Case) -> str:
    return json.dumps(case, sort_keys=True, separators=(",", ":"))


class _Asked:
    """The submission's answers, asked in batches. Each batch also holds the positions
    `lookahead` moves below the ones needed now, so a search that descends needs one batch
    (one sandboxed run) per 1 + lookahead moves instead of one per move."""

    def __init__(self, ask: Ask, children_of, lookahead: int, max_calls: int) -> None:
        self.ask, self.children_of = ask, children_of
        self.lookahead, self.max_calls = lookahead, max_calls
        self.calls = 0
        self.answers: dict[str, Any] = {}

    def __call__(self, cases: Sequence[Case]) -> list[Any] | None:
        """The answers to `cases`, or None when the budget or the sandbox stops the search."""
        batch: dict[str, Case] = {}
        level = [c for c in cases if _key(c) not in self.answers]
        for depth in range(self.lookahead + 1 if level else 0):
            for case in level:
                batch.setdefault(_key(case), case)
            if depth < self.lookahead:
                level = [g for c in level for g in self.children_of(c)]
                level = [g for g in level if _key(g) not in self.answers and _key(g) not in batch]
        needed = sum(1 for c in cases if _key(c) not in self.answers)
        room = self.max_calls - self.calls
        if needed > room:
            return None
        todo = list(batch.values())[:room]
        if todo:
            try:
                got = list(self.ask(todo))
            except Stopped:
                return None
            if len(got) != len(todo):
                return None
            self.calls += len(todo)
            self.answers.update((_key(c), a) for c, a in zip(todo, got, strict=True))
        return [self.answers[_key(c)] for c in cases]


def diagnose(
    problem: Problem,
    case: Case,
    ask: Ask,
    *,
    got: Any = UNKNOWN,
    lookahead: int = 0,
    max_calls: int = DEFAULT_MAX_CALLS,
    budget_s: float = DEFAULT_BUDGET_S,
) -> Diagnosis | None:
    """Find where the submission goes wrong below `case`, on which it answered `got` (wrong;
    asked first when not given).

    None when the problem does not offer the search, when the submission is right on `case`
    after all, or when the calls or the time run out (or `ask` raises Stopped) before a
    conclusion. `lookahead`: how many moves below the positions needed now each batch
    also asks about (worth it when a batch costs a sandbox's start)."""
    if not offers_diagnosis(problem):
        return None
    children_of: Callable[[Case], list[Case]] = problem.children  # type: ignore[attr-defined]
    deadline = time.monotonic() + budget_s
    asked = _Asked(ask, children_of, lookahead, max_calls)
    if got is UNKNOWN:
        answered = asked([case])
        if answered is None:
            return None
        got = answered[0]
    wrong = Probe(case, problem.reference(case), got)
    if _is_right(problem, wrong):
        return None
    depth = 0
    while time.monotonic() <= deadline:
        positions = children_of(wrong.case)
        answers = asked(positions)
        if answers is None:
            return None
        probes = [
            Probe(child, problem.reference(child), answer)
            for child, answer in zip(positions, answers, strict=True)
        ]
        lower = next((probe for probe in probes if not _is_right(problem, probe)), None)
        if lower is None:
            summary = summarise(problem, wrong, probes)
            return Diagnosis(wrong, tuple(probes), summary, depth, asked.calls)
        wrong, depth = lower, depth + 1
    return None


def summarise(problem: Problem, wrong: Probe, children: Sequence[Probe]) -> str:
    """The diagnosis in plain words."""
    returned = _returned(wrong.got)
    head = f"Your function is wrong on this position (expected {wrong.expected}, {returned})"
    if not children:
        if problem.explain(wrong.case)["moves"]:
            return (
                f"{head}, and every move from it ends the game at once: check how your "
                "function scores a move that ends the game."
            )
        return f"{head}, a position with no moves: check the end of the game."
    values = ", ".join(str(child.expected) for child in children)
    count = "the position" if len(children) == 1 else f"all {len(children)} positions"
    rule = getattr(problem, "COMBINE_RULE", "")
    text = (
        f"{head} but right on {count} one move later (values {values}): the mistake is in "
        "how your function combines them"
    )
    return f"{text}: {rule}" if rule else f"{text}."


def _returned(got: Any) -> str:
    if type(got) is int or isinstance(got, Opaque):
        return f"returned {answer_json(got)}"
    return str(got)  # it did not return: the reason, e.g. "raised IndexError"

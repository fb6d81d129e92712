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
from judge.problems import Case, ProblemSpec

DEFAULT_MAX_CALLS = 300
SHOWN_CHARS = 200  # a forged answer is shown this long at most, as everywhere else
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
    text = describe(got) if _answered(got) else str(got)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def offers_diagnosis(problem: ProblemSpec) -> bool:
    return problem.game_tree is not None


def _is_right(problem: ProblemSpec, probe: Probe) -> bool:
    return problem.check(probe.case, probe.expected, probe.got)[0]


class _Unknown:
    """`got` not given: the submission is asked about the starting position too."""


UNKNOWN = _Unknown()


def _key(case: Case) -> str:
    return json.dumps(case, sort_keys=True, separators=(",", ":"))


class _Asked:
    """The submission's answers, each position asked at most once, in batches."""

    def __init__(self, problem: ProblemSpec, ask: Ask, max_calls: int) -> None:
        self.problem, self.ask, self.max_calls = problem, ask, max_calls
        self.calls = self.batches = 0
        self.probes: dict[str, Probe] = {}

    def known(self, case: Case) -> Probe | None:
        return self.probes.get(_key(case))

    def right(self, case: Case) -> bool:
        probe = self.known(case)
        return probe is not None and _is_right(self.problem, probe)

    def batch(self, needed: Sequence[Case], optional: Sequence[Case] = ()) -> bool:
        """Ask about every `needed` position not known yet, and about as many `optional`
        ones as the call budget allows, in one batch; False when the budget or the sandbox
        stops the search."""
        todo: dict[str, Case] = {}
        for case in needed:
            if _key(case) not in self.probes:
                todo.setdefault(_key(case), case)
        if len(todo) > self.max_calls - self.calls:
            return False
        for case in optional:
            if len(todo) >= self.max_calls - self.calls:
                break
            if _key(case) not in self.probes:
                todo.setdefault(_key(case), case)
        if not todo:
            return True
        cases = list(todo.values())
        try:
            answers = list(self.ask(cases))
        except Stopped:
            return False
        if len(answers) != len(cases):
            return False
        self.calls += len(cases)
        self.batches += 1
        for case, answer in zip(cases, answers, strict=True):
            self.probes[_key(case)] = Probe(case, self.problem.reference(case), answer)
        return True


def diagnose(
    problem: ProblemSpec,
    case: Case,
    ask: Ask,
    *,
    got: Any = UNKNOWN,
    dive: bool = False,
    max_calls: int = DEFAULT_MAX_CALLS,
    budget_s: float = DEFAULT_BUDGET_S,
) -> Diagnosis | None:
    """Find where the submission goes wrong below `case`, on which it answered `got` (wrong;
    asked first when not given).

    None when the problem does not offer the search, when the submission is right on `case`
    after all, or when the calls or the time run out (or `ask` raises Stopped) before a
    conclusion.

    `dive`: each batch also asks about one line of play down to the end of the game, and the
    search jumps to the deepest wrong position on it, where the next position of the line is
    right. A batch then costs more calls but the search needs few of them: worth it when a
    batch costs a sandbox's start. Without it, the search goes down one move per batch."""
    if problem.game_tree is None:
        return None
    children_of: Callable[[Case], list[Case]] = problem.game_tree.children
    deadline = time.monotonic() + budget_s
    asked = _Asked(problem, ask, max_calls)
    if got is UNKNOWN:
        if not asked.batch([case]):
            return None
        wrong = asked.probes[_key(case)]
    else:
        wrong = Probe(case, problem.reference(case), got)
    if _is_right(problem, wrong):
        return None
    depth = 0
    while time.monotonic() <= deadline:
        positions = children_of(wrong.case)
        line = _line(children_of, asked, wrong.case) if dive else []
        if not asked.batch(positions, [c for c, _ in line]):
            return None
        probes = [asked.probes[_key(child)] for child in positions]
        if all(_is_right(problem, probe) for probe in probes):
            summary = summarise(problem, wrong, probes, list(asked.probes.values()))
            return Diagnosis(wrong, tuple(probes), summary, depth, asked.calls)
        deepest = next(
            (
                (probe, moves)
                for c, moves in reversed(line)
                if (probe := asked.known(c)) is not None and not _is_right(problem, probe)
            ),
            None,
        )
        if deepest is None:
            lower = next(probe for probe in probes if not _is_right(problem, probe))
            deepest = (lower, 1)
        wrong, depth = deepest[0], depth + deepest[1]
    return None


def _line(
    children_of: Callable[[Case], list[Case]], asked: _Asked, case: Case
) -> list[tuple[Case, int]]:
    """One line of play below `case` to the end of the game, each position with how many
    moves below `case` it lies. Each step takes the first move whose position is not known
    to be answered right already: the line is there to find wrong positions."""
    line: list[tuple[Case, int]] = []
    moves = 0
    while True:
        options = [c for c in children_of(case) if not asked.right(c)]
        if not options:
            return line
        case, moves = options[0], moves + 1
        line.append((case, moves))


def summarise(
    problem: ProblemSpec, wrong: Probe, children: Sequence[Probe], asked: Sequence[Probe] = ()
) -> str:
    """The diagnosis in plain words: what was observed of the answers, never a claim about
    code the judge cannot see (a wrong value may come from the recursion or from what wraps it).
    `asked`: every position the submission was asked about, `wrong` and `children` included."""
    everywhere = {_key(p.case): p for p in (*asked, wrong, *children)}
    if len(everywhere) > 1 and not any(_answered(p.got) for p in everywhere.values()):
        # An error on every call says nothing about the game: the traceback says where.
        errors = {str(p.got) for p in everywhere.values()}
        what = errors.pop() if len(errors) == 1 else "gave no answer"
        return (
            f"Your function {what} on every position the judge asked it about "
            f"({len(everywhere)} of them, down to this one near the end of the game): "
            "the error does not depend on the position. Read the traceback of the failing "
            "test: it shows the line that failed."
        )
    returned = _returned(wrong.got)
    head = f"Your function is wrong on this position (expected {wrong.expected}, {returned})"
    if not children:
        if problem.explain(wrong.case)["moves"]:
            return (
                f"{head}, and every move from it ends the game at once: your value here is "
                "not what those moves are worth."
            )
        return f"{head}, a position with no moves: the game ends here."
    if len(children) == 1:
        count, values = "the position", f"value {children[0].expected}"
    else:
        count = f"all {len(children)} positions"
        values = "values " + ", ".join(str(child.expected) for child in children)
    rule = "" if problem.game_tree is None else problem.game_tree.combine_rule
    text = (
        f"{head} but right on {count} one move later ({values}): your value here does not "
        "follow from your values one move later."
    )
    return f"{text} The rule: {rule}" if rule else text


def _answered(got: Any) -> bool:
    """A returned value (what the harness decodes), not the words for an error."""
    return type(got) in (int, bool, str, list) or isinstance(got, Opaque)


def _returned(got: Any) -> str:
    if _answered(got):
        return f"returned {answer_json(got)}"
    return answer_json(got)  # it did not return: the reason, e.g. "raised IndexError"

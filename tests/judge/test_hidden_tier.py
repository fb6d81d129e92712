"""What crosses from a hidden host: outcomes round-trip exactly, and a forged one is refused
as strictly as a driver's report."""

from __future__ import annotations

import pytest

from judge import answers
from judge.execution.runners import Outcome
from judge.grading.hidden_tier import HiddenTier, outcome_from_wire, outcome_to_wire
from judge.verdict import Verdict


@pytest.mark.parametrize("got", [None, 7, -(10**40), [1, [2, 3]], answers.Opaque("str", "'x'"), []])
def test_outcomes_round_trip(got):
    sent = Outcome(Verdict.TLE, "no answer", got=got, cpu_s=1.5, wall_s=2.0, rss_kb=900, fatal=True)
    back = outcome_from_wire(outcome_to_wire(sent))
    assert back == sent


@pytest.mark.parametrize(
    "change",
    [
        {"verdict": "XX"},
        {"cpu_s": -1},
        {"wall_s": float("inf")},
        {"rss_kb": "9"},
        {"fatal": 1},
        {"got": {"type": "int", "int": "1e9"}},
        {"got": {"type": "int", "int": "9" * 40000}},
    ],
)
def test_a_forged_outcome_is_refused(change):
    wire = outcome_to_wire(Outcome(Verdict.AC, got=3))
    with pytest.raises(answers.MalformedReport):
        outcome_from_wire(wire | change)


def test_a_message_is_cut_and_cleaned():
    wire = outcome_to_wire(Outcome(Verdict.RE, "x" * 10000 + "\x1b[2J"))
    assert len(outcome_from_wire(wire).message) <= 6000


def test_a_tier_message_has_exactly_its_fields():
    tier = HiddenTier("footholds", "python", "function", "def solution(): pass", [{}], 10.0, 60)
    assert HiddenTier.from_dict(tier.to_dict()) == tier
    with pytest.raises(ValueError, match="exactly the fields"):
        HiddenTier.from_dict(tier.to_dict() | {"extra": 1})
    with pytest.raises(ValueError, match="'cases' is not a list"):
        HiddenTier.from_dict(tier.to_dict() | {"cases": "[]"})

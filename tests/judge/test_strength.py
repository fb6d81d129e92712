"""Test-set strength: the report, the suggestions, the default plans' kill rates, the CLI."""

from __future__ import annotations

import json

import pytest

from judge import problems
from judge.cli import main
from judge.grading.plan import plan_tests
from judge.strength.analysis import Killer, analyse, random_kills, suggest, wilson_low
from judge.strength.mutants import mutants
from judge.strength.report import format_report
from judge.verdict import TestKind

FOOTHOLDS = problems.get("footholds")
NUMBERGAME = problems.get("numbergame")

# A board that kills every depth cap up to 18 (a 19-move game) and several other survivors.
LONG = {"board": [[1] * 5 for _ in range(5)], "aloc": [0, 0], "bloc": [4, 3]}
SHORT = {"board": [[1, 1], [0, 1]], "aloc": [0, 0], "bloc": [0, 1]}  # kills b_moves_first


@pytest.fixture(scope="module")
def killer():
    return Killer(FOOTHOLDS)


@pytest.fixture(scope="module")
def report(killer):
    hidden = [{"input": LONG, "id": 71}, {"input": SHORT, "id": 72, "answer": 2}]
    return analyse(FOOTHOLDS, hidden, seeds=3, suggest_survivors=True, killer=killer)


def test_report_structure(report, killer):
    names = list(mutants("footholds"))
    assert report.problem == "footholds"
    assert report.mutant_count == len(names) >= 15
    assert [m.name for m in report.mutants] == names
    assert report.sample_count == len(FOOTHOLDS.SAMPLES) and report.hidden_count == 2
    assert report.random_count == FOOTHOLDS.RANDOM_COUNT and report.seeds == [0, 1, 2]
    assert [(t.kind, t.index, t.id) for t in report.tests] == [
        *(("sample", i, None) for i in range(len(FOOTHOLDS.SAMPLES))),
        ("small", 0, None),
        *(("worst", i, None) for i in range(len(FOOTHOLDS.WORST_CASES))),
        ("hidden", 0, 71),
        ("hidden", 1, 72),
    ]
    for m in report.mutants:
        assert m.description == mutants("footholds")[m.name].description
        assert m.samples == [
            t.index for t in report.tests if t.kind == "sample" and m.name in t.kills
        ]
        assert m.hidden == [t.id for t in report.tests if t.kind == "hidden" and m.name in t.kills]
        assert m.worst == [t.index for t in report.tests if t.kind == "worst" and m.name in t.kills]
        small_kills = next(t.kills for t in report.tests if t.kind == "small")
        assert (m.small is not None) == (m.name in small_kills)
        if m.small is not None:  # the first small position that kills it, really killing it
            assert killer.kills(m.name, m.small)
        assert 0 <= m.random_rate <= 1 and 0 <= m.plan_rate <= m.rate <= 1
        if m.samples or m.small or m.worst:  # tests of every plan
            assert m.plan_rate == 1
        if m.killed:
            assert m.rate == 1
        else:
            assert m.rate == m.plan_rate == m.random_rate
    assert report.survivors == [m.name for m in report.mutants if not m.killed]
    assert 0 <= report.plan_kills_all <= report.kills_all <= 1
    assert report.plan_kills_all_low <= report.plan_kills_all
    data = report.to_dict()
    assert json.loads(json.dumps(data)) == data  # one JSON object
    assert data["weakest"]["name"] in names
    assert set(data) >= {"mutants", "tests", "plan_kills_all", "survivors", "suggestions"}


def test_hidden_boards_kill_what_they_should(report, killer):
    long_kills = next(t.kills for t in report.tests if t.id == 71)
    for cap in (6, 10, 14, 18):
        assert f"depth_cap_{cap}" in long_kills
    assert "b_moves_first" in next(t.kills for t in report.tests if t.id == 72)
    by_name = {m.name: m for m in report.mutants}
    assert by_name["depth_cap_18"].hidden == [71] and by_name["depth_cap_18"].rate == 1
    for name in long_kills:
        assert name not in report.survivors
        assert killer.kills(name, LONG)


def test_random_kills_follow_the_graded_plan():
    """What the report says a seed kills is what that seed's random boards really kill."""
    judge = Killer(NUMBERGAME)
    seeds = [5, 6, 7]
    kills = random_kills(NUMBERGAME, seeds, killer=judge)
    for seed, killed in zip(seeds, kills, strict=True):
        plan = plan_tests(NUMBERGAME, (), seed, solve=True)
        boards = [t for t in plan if t.kind is TestKind.RANDOM]
        assert len(boards) == NUMBERGAME.RANDOM_COUNT
        for name, mutant in mutants("numbergame").items():
            dies = any(mutant.solve(t.input) != t.expected for t in boards)
            assert (name in killed) == dies, (seed, name)


def test_parallel_seeds_agree():
    seeds = [0, 1, 2, 3]
    assert random_kills(NUMBERGAME, seeds, jobs=2) == random_kills(NUMBERGAME, seeds)


def test_skip_killed_keeps_the_plan_figures():
    full = analyse(NUMBERGAME, seeds=4)
    quick = analyse(NUMBERGAME, seeds=4, skip_killed=True)
    assert quick.plan_kills_all == full.plan_kills_all
    assert [m.plan_rate for m in quick.mutants] == [m.plan_rate for m in full.mutants]
    assert all(m.random_rate is None for m in quick.mutants if m.killed)


def test_every_hand_written_mutant_dies_on_the_tests_of_every_plan(report):
    # The small tier and the worst cases leave nothing for suggestions to do.
    assert report.survivors == [] and report.suggestions == [] and report.plan_kills_all == 1
    kills = {t.kind: set(t.kills) for t in report.tests if t.index == 0}
    # A missing direction shows on a small board; a search cut at depth 18 only in a long game.
    assert "no_up" in kills["small"] and "depth_cap_18" not in kills["small"]
    assert "depth_cap_18" in kills["worst"]
    assert all(m.killed for m in report.mutants)


def test_suggestions_kill_every_survivor(killer):
    # The mutants the samples alone leave alive: what suggestions were for before the small
    # tier, and still are for mutants that survive it.
    alive = [
        n
        for n in killer.mutants
        if not any(killer.kills(n, s["input"], s["answer"]) for s in FOOTHOLDS.SAMPLES)
    ]
    assert alive
    found, unkillable = suggest(FOOTHOLDS, alive, killer=killer)
    assert not unkillable
    covered = set()
    fresh = Killer(FOOTHOLDS)
    for s in found:
        FOOTHOLDS.validate(s.input)
        assert s.answer == FOOTHOLDS.reference(s.input)
        assert s.kills and set(s.kills) <= set(alive)
        assert set(s.got) == set(s.kills)
        for name in s.kills:
            assert fresh.kills(name, s.input)
        covered.update(s.kills)
    assert covered == set(alive)


def test_suggestions_are_small():
    """Shrinking leaves small boards for bugs that show early."""
    found, unkillable = suggest(FOOTHOLDS, ["no_up", "b_moves_first"])
    assert not unkillable
    for s in found:
        board = s.input["board"]
        assert len(board) * len(board[0]) <= 6, s.input
    found, _ = suggest(NUMBERGAME, ["sentinel_minus_1000"])
    assert len(found[0].input["board"]) <= 8


def test_profile_rates():
    report = analyse(NUMBERGAME, seeds=1, profile_boards=5)
    for m in report.mutants:
        assert set(m.profile_rates) == set(NUMBERGAME.PROFILES)
        assert all(0 <= r <= 1 for r in m.profile_rates.values())


def test_wilson_low():
    assert wilson_low(0, 0) == 0
    assert 0.98 < wilson_low(200, 200) < 0.99
    assert wilson_low(50, 100) < 0.5


# -- the goal: the default plan kills every mutant with probability >= 0.99 per seed -----------
SEEDS = 200


@pytest.mark.parametrize("slug", ["footholds", "numbergame"])
def test_default_plan_kills_every_mutant(slug, killer):
    """Measured over 200 seeds (1000 seeds in the measurements reported: 1.000 for both)."""
    # Footholds' mutant answers on its fixed tests are the module's killer's, computed once.
    known = killer if slug == killer.problem.SLUG else None
    report = analyse(problems.get(slug), seeds=SEEDS, skip_killed=True, killer=known)
    weakest = report.weakest
    assert report.plan_kills_all >= 0.99, (weakest.name, weakest.plan_rate)
    assert weakest.plan_rate >= 0.99


# -- CLI -----------------------------------------------------------------------------------------
def test_cli_json(capsys):
    assert main(["strength", "numbergame", "--seeds", "2", "--json", "--no-suggest"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["problem"] == "numbergame" and data["seeds"] == [0, 1]
    assert len(data["mutants"]) == len(mutants("numbergame"))
    assert data["suggestions"] == []


def test_cli_table_with_hidden_boards(tmp_path, capsys):
    hidden = tmp_path / "hidden.jsonl"
    hidden.write_text(json.dumps({"input": {"board": [-83, 989, 85, -918]}}) + "\n\n")
    assert main(["strength", "numbergame", "--seeds", "2", "--hidden", str(hidden)]) == 0
    out = capsys.readouterr().out
    assert "mutant" in out and "sentinel_minus_1000" in out
    assert "hidden 0 kills" in out
    assert "the tests of every plan and the hidden boards kill every mutant" in out
    assert "small 0 kills" in out and "worst 0 kills" in out


def test_cli_reports_generated_mutants(capsys):
    assert main(["strength", "numbergame", "--seeds", "2", "--generated", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    generated = data["generated"]
    assert generated["seeds"] == 2 and len(generated["mutants"]) > 20
    assert [b["band"] for b in generated["bands"]] == [">=10%", "1-10%", "0.1-1%", "rarer"]
    counted = len(generated["mutants"]) - len(generated["equivalent"])
    assert sum(b["mutants"] for b in generated["bands"]) == counted


def test_cli_errors(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"board": []}\n')
    assert main(["strength", "numbergame", "--hidden", str(bad)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    assert main(["strength", "nope"]) == 2


def test_format_report_mentions_the_weakest(report):
    text = format_report(report)
    assert text.splitlines()[0].startswith("footholds: ")
    assert "default plan kills every mutant in" in text

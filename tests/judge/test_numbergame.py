"""The numbergame plug-in: reference vs brute force, validation, generators, check, explain."""

from __future__ import annotations

import copy
import itertools
import random
import sys
from pathlib import Path

import pytest

from judge import problems
from judge.answers import Opaque
from tests.builtin_modules import problem_module

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bruteforce

ng = problems.get("numbergame")  # the spec the judge grades with
module = problem_module("numbergame")  # its problem.py: its own messages


def test_contract():
    assert ng.LIMITS.time_s == 2.0 and ng.LIMITS.memory_mb == 256 and ng.LIMITS.total_s == 60
    assert ng.PARAMS == ("board",)
    assert 20 <= ng.RANDOM_COUNT <= 40


@pytest.mark.parametrize("sample", ng.SAMPLES, ids=lambda s: str(s["answer"]))
def test_samples(sample):
    ng.validate(sample["input"])
    assert ng.reference(sample["input"]) == sample["answer"]
    assert bruteforce.numbergame(sample["input"]["board"]) == sample["answer"]


def test_statement_has_signature_and_examples():
    assert "def solution(board: list[int]) -> int" in ng.STATEMENT
    for sample in ng.SAMPLES:
        assert str(sample["input"]["board"]) in ng.STATEMENT


def test_reference_matches_brute_force_on_every_short_board():
    count = 0
    for n in range(1, 7):
        for board in itertools.product((-3, 0, 2, 5), repeat=n):
            assert ng.reference({"board": list(board)}) == bruteforce.numbergame(board), board
            count += 1
    assert count == sum(4**n for n in range(1, 7))


def test_reference_matches_brute_force_on_random_boards():
    rng = random.Random(424242)
    for k in range(2000):
        n = rng.randint(1, 20 if k % 4 else 8)
        scale = rng.choice((3, 50, 1000))
        board = [rng.randint(-scale, scale) for _ in range(n)]
        assert ng.reference({"board": board}) == bruteforce.numbergame(board, {}), board


@pytest.mark.parametrize("profile", sorted(ng.PROFILES))
def test_reference_matches_brute_force_on_generated_boards(profile):
    rng = random.Random(f"bf-{profile}")
    for _ in range(30):
        c = ng.generate(rng, profile)
        assert ng.reference(c) == bruteforce.numbergame(c["board"], {})


def test_reference_matches_the_memoised_search_at_n_50():
    """The longest board: too long for the plain search, not for its memoised form. How fast
    the reference is belongs to the benchmark (`make bench`), not to a timed assertion."""
    board = [(-1) ** k * (k * 37 % 1000) for k in range(50)]
    assert ng.reference({"board": board}) == bruteforce.numbergame(board, {})


# --- validation --------------------------------------------------------------------------------

MALFORMED = [
    ([1, 2], "case must be an object"),
    ({}, "missing key 'board'"),
    ({"board": [1], "n": 1}, "unexpected key 'n'"),
    ({"board": (1, 2)}, "board must be a list of ints, got (1, 2) (tuple)"),
    ({"board": "12"}, "board must be a list of ints"),
    ({"board": []}, "board has 0 numbers, must have 1..50"),
    ({"board": [0] * 51}, "board has 51 numbers, must have 1..50"),
    ({"board": [1, True]}, "board[1] must be an int, got True (bool)"),
    ({"board": [1, 2, 1.5]}, "board[2] must be an int, got 1.5 (float)"),
    ({"board": ["3"]}, "board[0] must be an int, got '3' (str)"),
    ({"board": [None]}, "board[0] must be an int, got None (NoneType)"),
    ({"board": [0, 1001]}, "board[1] is 1001, must be between -1000 and 1000"),
    ({"board": [-1001]}, "board[0] is -1001, must be between -1000 and 1000"),
]


@pytest.mark.parametrize(("bad", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_validate_rejects(bad, message):
    with pytest.raises(ValueError) as info:
        module.validate(bad)
    assert message in str(info.value)


def test_validate_accepts_edges():
    ng.validate({"board": [0]})
    ng.validate({"board": [1000, -1000] * 25})


# --- generators --------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(ng.PROFILES))
def test_generate_is_valid_and_reproducible(profile):
    first = [ng.generate(random.Random(seed), profile) for seed in range(200)]
    assert first == [ng.generate(random.Random(seed), profile) for seed in range(200)]
    for c in first:
        ng.validate(c)


def test_generate_covers_large_and_extreme_boards():
    rng = random.Random(9)
    large = [ng.generate(rng, "large") for _ in range(50)]
    assert all(45 <= len(c["board"]) <= 50 for c in large)
    extreme = [ng.generate(rng, "extreme")["board"] for _ in range(200)]
    assert any(set(b) == {1000} for b in extreme)
    assert any(set(b) == {-1000} for b in extreme)
    assert any(len(b) > 2 and len(set(b)) == 1 and b[0] not in (1000, -1000) for b in extreme)
    assert any(
        len(b) > 2 and all(b[k] == -b[k + 1] != 0 for k in range(len(b) - 1)) for b in extreme
    )
    small = [ng.generate(rng, "small") for _ in range(50)]
    assert min(len(c["board"]) for c in small) == 1
    total = sum(ng.PROFILES.values())
    assert ng.PROFILES["large"] / total >= 0.2


def test_generate_unknown_profile():
    with pytest.raises(ValueError, match="unknown numbergame profile"):
        module.generate(random.Random(0), "nope")


# --- check -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("got", "ok", "message"),
    [
        (-1000, True, ""),
        (1000, False, "expected -1000, got 1000"),
        (False, False, "expected an int, got False (bool)"),
        (-1000.0, False, "expected an int, got -1000.0 (float)"),
        ("-1000", False, "expected an int, got '-1000' (str)"),
        (None, False, "expected an int, got None (NoneType)"),
        (Opaque("IntSub", "-1000"), False, "expected an int, got -1000 (IntSub)"),
        (Opaque("bool", "True"), False, "expected an int, got True (bool)"),
    ],
)
def test_check(got, ok, message):
    hidden = {"board": [-1000, -1000, -3, -1000, -1000]}
    result, text = ng.check(hidden, -1000, got)
    assert result is ok
    assert message in text
    assert "-3" not in text and "board" not in text


# --- explain -----------------------------------------------------------------------------------


def replay(board, line):
    row = list(board)
    score = 0
    for k, move in enumerate(line["moves"]):
        player = ("first", "second")[k % 2]
        sign = 1 if player == "first" else -1
        assert move["player"] == player
        action = move["action"]
        if action == "take-left":
            assert move["values"] == row[:1]
            score += sign * row.pop(0)
        elif action == "take-right":
            assert move["values"] == row[-1:]
            score += sign * row.pop()
        elif action == "delete-left":
            assert len(row) >= 2 and move["values"] == row[:2]
            del row[:2]
        elif action == "delete-right":
            assert len(row) >= 2 and move["values"] == row[-2:]
            del row[-2:]
        else:
            raise AssertionError(f"unknown action {action!r}")
        assert move["score"] == score
    assert row == [], "the line stops before the row is empty"
    return score


def test_explain_lines_replay():
    rng = random.Random(12)
    boards = [s["input"]["board"] for s in ng.SAMPLES] + [[0], [5], [-5], [1, 1]]
    for profile in ng.PROFILES:
        boards += [ng.generate(rng, profile)["board"] for _ in range(30)]
    for board in boards:
        line = ng.explain({"board": board})
        assert replay(board, line) == line["answer"] == ng.reference({"board": board})
        expected_winner = (
            "first" if line["answer"] > 0 else "second" if line["answer"] < 0 else "draw"
        )
        assert line["winner"] == expected_winner
        assert isinstance(line["summary"], str)


def test_explain_counts_moves_in_words():
    assert ng.explain({"board": [5]})["summary"] == "the first player wins by 5 after 1 move"
    assert ng.explain({"board": [0]})["summary"] == "a draw after 1 move"
    assert ng.explain({"board": [1, 1]})["summary"].endswith("after 2 moves")


def test_explain_first_sample():
    line = ng.explain(ng.SAMPLES[0]["input"])
    assert line["answer"] == -1000 and line["winner"] == "second"
    assert line["moves"][-1]["score"] == -1000


# --- shrink ------------------------------------------------------------------------------------


def test_shrink_yields_valid_smaller_cases():
    rng = random.Random(13)
    for profile in ng.PROFILES:
        for _ in range(20):
            c = ng.generate(rng, profile)
            before = copy.deepcopy(c)
            smaller = list(ng.shrink(c))
            assert c == before
            board = c["board"]
            for s in smaller:
                ng.validate(s)
                other = s["board"]
                assert len(other) < len(board) or (
                    len(other) == len(board)
                    and sum(map(abs, other)) < sum(map(abs, board))
                    and all(abs(x) <= abs(y) for x, y in zip(other, board, strict=True))
                )
            if len(board) > 1 or any(board):
                assert smaller


def test_shrink_examples():
    smaller = list(ng.shrink({"board": [4, -3]}))
    assert {"board": [-3]} in smaller and {"board": [4]} in smaller
    assert {"board": [2, -1]} in smaller
    assert not list(ng.shrink({"board": [0]}))


def test_stdio_input_is_algospots_format():
    from judge.problems import get, stdio_input

    cases = [{"board": [-1, 2, 3]}, {"board": [7]}]
    assert stdio_input(get("numbergame"), cases) == b"2\n3\n-1 2 3\n1\n7\n"
    assert get("numbergame").styles == ("function", "stdio")

"""The footholds plug-in: reference vs brute force, validation, generators, check, explain."""

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

fh = problems.get("footholds")  # the spec the judge grades with
module = problem_module("footholds")  # its problem.py: its own messages

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def case(board, aloc, bloc):
    return {"board": board, "aloc": aloc, "bloc": bloc}


def all_small_cases():
    """Every board up to 3x3: every shape, foothold pattern and pair of start footholds."""
    for rows, cols in itertools.product(range(1, 4), repeat=2):
        for bits in range(1 << (rows * cols)):
            board = [[bits >> (r * cols + c) & 1 for c in range(cols)] for r in range(rows)]
            cells = [[r, c] for r in range(rows) for c in range(cols) if board[r][c]]
            for aloc, bloc in itertools.product(cells, repeat=2):
                yield case(board, aloc, bloc)


def random_board_case(rng):
    rows, cols = rng.randint(1, 5), rng.randint(1, 5)
    density = rng.uniform(0.2, 0.9)
    board = [[int(rng.random() < density) for _ in range(cols)] for _ in range(rows)]
    cells = [[r, c] for r in range(rows) for c in range(cols) if board[r][c]]
    if not cells:
        board[0][0] = 1
        cells = [[0, 0]]
    return case(board, rng.choice(cells), rng.choice(cells))


# --- reference ---------------------------------------------------------------------------------


def test_contract():
    assert fh.LIMITS.time_s == 10.0 and fh.LIMITS.memory_mb == 256 and fh.LIMITS.total_s == 60
    assert fh.PARAMS == ("board", "aloc", "bloc")
    assert 30 <= fh.RANDOM_COUNT <= 50


@pytest.mark.parametrize("sample", fh.SAMPLES, ids=lambda s: str(s["answer"]))
def test_samples(sample):
    fh.validate(sample["input"])
    assert fh.reference(sample["input"]) == sample["answer"]
    assert bruteforce.footholds(**sample["input"]) == sample["answer"]


def test_statement_has_signature_and_examples():
    assert "def solution(board: list[list[int]], aloc: list[int], bloc: list[int]) -> int" in (
        fh.STATEMENT
    )
    for sample in fh.SAMPLES:
        board = str(sample["input"]["board"]).replace(" ", "")
        assert board in fh.STATEMENT


def test_reference_matches_brute_force_on_every_board_up_to_3x3():
    memo = {}  # keyed by the explicit board, so it is shared safely across cases
    count = 0
    for c in all_small_cases():
        expected = bruteforce.footholds(c["board"], c["aloc"], c["bloc"], memo)
        assert fh.reference(c) == expected, c
        count += 1
    assert count == 13005  # sum over shapes of k(k+1)2^(k-2), k = rows * cols


def test_reference_matches_brute_force_on_random_boards():
    rng = random.Random(20240601)
    for _ in range(2000):
        c = random_board_case(rng)
        assert fh.reference(c) == bruteforce.footholds(c["board"], c["aloc"], c["bloc"], {}), c


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(fh.PROFILES))
def test_reference_matches_brute_force_on_generated_boards(profile):
    rng = random.Random(f"bf-{profile}")
    count = {"dense_large": 25, "long_game": 6}.get(profile, 100)  # brute force: ~1 s per full 5x5
    for _ in range(count):
        c = fh.generate(rng, profile)
        assert fh.reference(c) == bruteforce.footholds(c["board"], c["aloc"], c["bloc"], {}), c


def test_reference_does_not_modify_case():
    c = case([[1, 1, 1], [1, 1, 1], [1, 1, 1]], [1, 0], [1, 2])
    before = copy.deepcopy(c)
    fh.reference(c)
    fh.explain(c)
    list(fh.shrink(c))
    assert c == before


def test_reference_matches_brute_force_on_the_full_board():
    """The largest board, every cell a foothold, the players in opposite corners."""
    full = [[1] * 5 for _ in range(5)]
    assert fh.reference(case(full, [0, 0], [4, 4])) == bruteforce.footholds(full, [0, 0], [4, 4])


# --- validation --------------------------------------------------------------------------------

GOOD = case([[1, 1, 1], [1, 0, 1]], [0, 0], [1, 2])

MALFORMED = [
    ([[1]], "case must be an object"),
    (None, "case must be an object"),
    ({"board": [[1]], "aloc": [0, 0]}, "missing key 'bloc'"),
    ({**GOOD, "extra": 1}, "unexpected key 'extra'"),
    ({**GOOD, "board": ((1, 1),)}, "board must be a list of rows"),
    ({**GOOD, "board": []}, "board has 0 rows, must have 1..5"),
    ({**GOOD, "board": [[1]] * 6}, "board has 6 rows, must have 1..5"),
    ({**GOOD, "board": [[1, 1, 1], "101"]}, "board row 1 must be a list of cells"),
    ({**GOOD, "board": [[], []]}, "board row 0 has 0 cells, must have 1..5"),
    ({**GOOD, "board": [[1] * 6, [1] * 6]}, "board row 0 has 6 cells, must have 1..5"),
    ({**GOOD, "board": [[1, 1, 1], [1, 1, 1, 1]]}, "board row 1 has 4 cells, row 0 has 3"),
    ({**GOOD, "board": [[1, 1, 1], [1, 2, 1]]}, "board[1][1] must be 0 or 1, got 2 (int)"),
    ({**GOOD, "board": [[1, 1, True], [1, 1, 1]]}, "board[0][2] must be 0 or 1, got True (bool)"),
    ({**GOOD, "board": [[1, 1, 1], [1.0, 1, 1]]}, "board[1][0] must be 0 or 1, got 1.0 (float)"),
    ({**GOOD, "board": [[1, 1, 1], [1, "1", 1]]}, "board[1][1] must be 0 or 1, got '1' (str)"),
    ({**GOOD, "aloc": (0, 0)}, "aloc must be a list of 2 ints [row, col], got (0, 0) (tuple)"),
    ({**GOOD, "aloc": [0]}, "aloc must be a list of 2 ints"),
    ({**GOOD, "bloc": [0, 0, 0]}, "bloc must be a list of 2 ints"),
    ({**GOOD, "bloc": [True, 0]}, "bloc must be a list of 2 ints"),
    ({**GOOD, "bloc": [0, 1.0]}, "bloc must be a list of 2 ints"),
    ({**GOOD, "aloc": None}, "aloc must be a list of 2 ints"),
    ({**GOOD, "aloc": [2, 0]}, "aloc [2, 0] is off the 2x3 board"),
    ({**GOOD, "bloc": [0, -1]}, "bloc [0, -1] is off the 2x3 board"),
    ({**GOOD, "bloc": [0, 3]}, "bloc [0, 3] is off the 2x3 board"),
    ({**GOOD, "aloc": [1, 1]}, "aloc [1, 1] is not on a foothold (board[1][1] is 0)"),
    ({**GOOD, "board": [[0, 1, 1], [1, 0, 1]]}, "aloc [0, 0] is not on a foothold"),
]


@pytest.mark.parametrize(("bad", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_validate_rejects(bad, message):
    with pytest.raises(ValueError) as info:
        module.validate(bad)
    assert message in str(info.value)


def test_validate_accepts_edge_cases():
    fh.validate(GOOD)
    fh.validate(case([[1]], [0, 0], [0, 0]))
    fh.validate(case([[1] * 5] * 5, [4, 4], [0, 0]))
    fh.validate(case([[0], [1], [1]], [2, 0], [1, 0]))


# --- generators --------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(fh.PROFILES))
def test_generate_is_valid_and_reproducible(profile):
    first = [fh.generate(random.Random(seed), profile) for seed in range(200)]
    again = [fh.generate(random.Random(seed), profile) for seed in range(200)]
    assert first == again
    for c in first:
        fh.validate(c)


def test_generate_unknown_profile():
    with pytest.raises(ValueError, match="unknown footholds profile"):
        module.generate(random.Random(0), "nope")


def test_dense_large_share_and_shape():
    total = sum(fh.PROFILES.values())
    assert fh.PROFILES["dense_large"] / total >= 0.2
    rng = random.Random(7)
    lengths = []
    for _ in range(100):
        c = module.generate(rng, "dense_large")
        board = c["board"]
        rows, cols = len(board), len(board[0])
        assert 4 <= rows <= 5 and 4 <= cols <= 5
        assert sum(map(sum, board)) >= 0.8 * rows * cols
        (ar, ac), (br, bc) = c["aloc"], c["bloc"]
        assert abs(ar - br) + abs(ac - bc) >= rows + cols - 3
        lengths.append(fh.reference(c))
    assert sum(lengths) / len(lengths) >= 10  # long games
    assert max(lengths) >= 15


def test_profiles_cover_the_edge_cases():
    rng = random.Random(3)
    tiny = [fh.generate(rng, "tiny") for _ in range(300)]
    shapes = {(len(c["board"]), len(c["board"][0])) for c in tiny}
    assert (1, 1) in shapes
    assert any(r == 1 and k > 1 for r, k in shapes)
    assert any(k == 1 and r > 1 for r, k in shapes)
    assert any(c["aloc"] == c["bloc"] for c in tiny)
    shared = [fh.generate(rng, "shared_start") for _ in range(50)]
    assert all(c["aloc"] == c["bloc"] for c in shared)
    trapped = [fh.generate(rng, "trapped") for _ in range(100)]
    assert sum(fh.reference(c) <= 2 for c in trapped) >= 50
    assert any(fh.reference(c) == 0 for c in trapped)
    rect = [fh.generate(rng, "rectangular") for _ in range(50)]
    assert all(len(c["board"]) != len(c["board"][0]) for c in rect)


# --- check -------------------------------------------------------------------------------------

HIDDEN = case([[1, 0, 1], [1, 1, 1]], [0, 0], [0, 2])


@pytest.mark.parametrize(
    ("got", "ok", "message"),
    [
        (5, True, ""),
        (7, False, "expected 5, got 7"),
        (-5, False, "expected 5, got -5"),
        (True, False, "expected an int, got True (bool)"),
        (5.0, False, "expected an int, got 5.0 (float)"),
        ("5", False, "expected an int, got '5' (str)"),
        (None, False, "expected an int, got None (NoneType)"),
        (Opaque("bool", "True"), False, "expected an int, got True (bool)"),
        (Opaque("float", "5.0"), False, "expected an int, got 5.0 (float)"),
        (Opaque("MyInt", "5"), False, "expected an int, got 5 (MyInt)"),
        (Opaque("tuple", "(True, 5)"), False, "expected an int, got (True, 5) (tuple)"),
    ],
)
def test_check(got, ok, message):
    result, text = fh.check(HIDDEN, 5, got)
    assert result is ok
    assert message in text
    assert "[1, 0, 1]" not in text and "[[" not in text and "aloc" not in text


def test_check_rejects_int_subclass_in_process():
    class MyInt(int):
        pass

    ok, text = fh.check(HIDDEN, 5, MyInt(5))
    assert not ok and "expected an int" in text


# --- explain -----------------------------------------------------------------------------------


def replay(c, line):
    """Replay an explained line by the rules; returns the number of moves and the winner."""
    board = [row[:] for row in c["board"]]
    pos = {"A": list(c["aloc"]), "B": list(c["bloc"])}
    player, other = "A", "B"
    for move in line["moves"]:
        assert move["player"] == player
        r, c_ = pos[player]
        assert move["from"] == [r, c_]
        assert board[r][c_] == 1, "moved from a vanished foothold"
        nr, nc = move["to"]
        assert abs(nr - r) + abs(nc - c_) == 1
        assert 0 <= nr < len(board) and 0 <= nc < len(board[0]) and board[nr][nc] == 1
        board[r][c_] = 0
        pos[player] = [nr, nc]
        player, other = other, player
    r, c_ = pos[player]
    stuck = board[r][c_] == 0 or not any(
        0 <= r + dr < len(board) and 0 <= c_ + dc < len(board[0]) and board[r + dr][c_ + dc]
        for dr, dc in STEPS
    )
    assert stuck, "the line stops while the player to move can still move"
    return len(line["moves"]), other


def test_explain_samples():
    line = fh.explain(fh.SAMPLES[0]["input"])
    assert line["answer"] == 5 and line["winner"] == "A"
    assert line["moves"][0] == {"player": "A", "from": [1, 0], "to": [1, 1]}
    assert "vanished" in line["summary"]
    line = fh.explain(fh.SAMPLES[1]["input"])
    assert line["answer"] == 4 and line["winner"] == "B"
    assert "A has no foothold" in line["summary"]
    line = fh.explain(fh.SAMPLES[3]["input"])
    assert line == {
        "answer": 0,
        "winner": "B",
        "moves": [],
        "summary": "B wins after 0 moves: A has no foothold to move to",
    }


@pytest.mark.slow
def test_explain_lines_replay():
    rng = random.Random(11)
    cases = [s["input"] for s in fh.SAMPLES]
    for profile in fh.PROFILES:
        cases += [fh.generate(rng, profile) for _ in range(30)]
    for c in cases:
        line = fh.explain(c)
        moves, winner = replay(c, line)
        assert moves == line["answer"] == fh.reference(c)
        assert winner == line["winner"]
        assert isinstance(line["summary"], str) and line["winner"] in line["summary"]


# --- shrink ------------------------------------------------------------------------------------


def size(c):
    board = c["board"]
    return len(board) * len(board[0]), sum(map(sum, board))


def test_shrink_yields_valid_smaller_cases():
    rng = random.Random(5)
    for profile in fh.PROFILES:
        for _ in range(30):
            c = fh.generate(rng, profile)
            before = copy.deepcopy(c)
            smaller = list(fh.shrink(c))
            assert c == before
            for s in smaller:
                fh.validate(s)
                assert size(s) < size(c)
            if size(c)[1] > 2:  # footholds besides the start cells can always go
                assert smaller


def test_shrink_keeps_pieces_on_their_cells():
    c = case([[1, 1, 1], [1, 0, 1], [1, 1, 1]], [1, 0], [2, 2])
    smaller = list(fh.shrink(c))
    # row 0 and column 1 are free of pieces: both can go
    assert case([[1, 0, 1], [1, 1, 1]], [0, 0], [1, 2]) in smaller
    assert case([[1, 1], [1, 1], [1, 1]], [1, 0], [2, 1]) in smaller
    assert case([[0, 1, 1], [1, 0, 1], [1, 1, 1]], [1, 0], [2, 2]) in smaller
    assert not list(fh.shrink(case([[1]], [0, 0], [0, 0])))

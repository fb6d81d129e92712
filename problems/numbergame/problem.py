"""Number game: take or delete numbers from the ends of a row; maximise your score lead.

The instructor's code of the package (problem.toml declares the signature, limits, plan, view
and samples; statement.md the text, stdio.md the whole-program format). Python 3.11, standard
library only, self-contained: it runs in the judge's sandbox, which holds nothing else.

The reference solver is the O(n^2) interval DP: best[i][j] is the best lead (mover's score
minus the opponent's) the player to move can get from the numbers board[i:j].
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

# A case as the functions here read it (they never modify one): a JSON object keyed by PARAMS.
Case = Mapping[str, Any]

PARAMS = ("board",)  # problem.toml's signature
MAX_N = 50  # problem.toml's view.bounds.max_length
MAX_ABS = 1000  # problem.toml's view.bounds.max_abs
# generate()'s profiles; problem.toml's plan gives each its weight.
PROFILES = ("small", "large", "extreme", "mixed", "big_swings")


# ---------------------------------------------------------------------------------------------
# messages


def short(value: Any, limit: int = 60) -> str:
    """A value's repr and type for an error message, cut to a readable length."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{text} ({type(value).__name__})"


def is_int(value: Any) -> bool:
    """An exact int: bool and int subclasses are not ints here."""
    return type(value) is int


def check_keys(case: Any, params: tuple[str, ...]) -> None:
    """The case is a dict with exactly the parameter names as keys."""
    if not isinstance(case, dict):
        raise ValueError(f"case must be an object with keys {list(params)}, got {short(case)}")
    missing = [key for key in params if key not in case]
    if missing:
        raise ValueError(f"case is missing key {missing[0]!r} (expected keys {list(params)})")
    extra = sorted((key for key in case if key not in params), key=repr)
    if extra:
        raise ValueError(f"case has unexpected key {extra[0]!r} (expected keys {list(params)})")


# ---------------------------------------------------------------------------------------------
# the stdin/stdout style (stdio.md describes it to students): one answer per line, read as int


def write_input(cases: Sequence[Case]) -> str:
    """Algospot's NUMBERGAME input: the number of cases C, then per case a line with n and a
    line with the n numbers."""
    lines = [str(len(cases))]
    for case in cases:
        board = case["board"]
        lines += [str(len(board)), " ".join(str(v) for v in board)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# validation, the reference solver, generators


def validate(case: Any) -> None:
    check_keys(case, PARAMS)
    board = case["board"]
    if not isinstance(board, list):
        raise ValueError(f"board must be a list of ints, got {short(board)}")
    if not 1 <= len(board) <= MAX_N:
        raise ValueError(f"board has {len(board)} numbers, must have 1..{MAX_N}")
    for i, value in enumerate(board):
        if not is_int(value):
            raise ValueError(f"board[{i}] must be an int, got {short(value)}")
        if not -MAX_ABS <= value <= MAX_ABS:
            raise ValueError(f"board[{i}] is {value}, must be between -{MAX_ABS} and {MAX_ABS}")


def _table(board: list[int]) -> list[list[int]]:
    """best[i][j]: the mover's best lead on board[i:j] (j >= i)."""
    n = len(board)
    best = [[0] * (n + 1) for _ in range(n + 1)]
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            value = max(board[i] - best[i + 1][j], board[j - 1] - best[i][j - 1])
            if length >= 2:
                value = max(value, -best[i + 2][j], -best[i][j - 2])
            best[i][j] = value
    return best


def reference(case: Case) -> int:
    """First player's score minus the second's under optimal play. Expects a valid case."""
    board = case["board"]
    return _table(board)[0][len(board)]


def explain(case: Case) -> dict[str, Any]:
    """One optimal line of play; `score` is the running first-minus-second difference."""
    board = case["board"]
    best = _table(board)
    i, j = 0, len(board)
    answer = best[i][j]
    players = ("first", "second")
    sign = (1, -1)
    turn = 0
    score = 0
    moves = []
    while i < j:
        target = best[i][j]
        options = [
            ("take-left", [board[i]], board[i], i + 1, j),
            ("take-right", [board[j - 1]], board[j - 1], i, j - 1),
        ]
        if j - i >= 2:
            options.append(("delete-left", board[i : i + 2], 0, i + 2, j))
            options.append(("delete-right", board[j - 2 : j], 0, i, j - 2))
        # the table guarantees that some move realises its value
        action, values, gain, ni, nj = next(
            option for option in options if option[2] - best[option[3]][option[4]] == target
        )
        score += sign[turn] * gain
        moves.append({"player": players[turn], "action": action, "values": values, "score": score})
        i, j = ni, nj
        turn ^= 1
    winner = "first" if answer > 0 else "second" if answer < 0 else "draw"
    count = f"{len(moves)} move" + ("" if len(moves) == 1 else "s")
    if winner == "draw":
        summary = f"a draw after {count}"
    else:
        summary = f"the {winner} player wins by {abs(answer)} after {count}"
    return {"answer": answer, "winner": winner, "moves": moves, "summary": summary}


def generate(rng: random.Random, profile: str) -> dict[str, Any]:
    if profile == "small":
        n = rng.randint(1, 10)
        board = [rng.randint(-20, 20) for _ in range(n)]
    elif profile == "large":  # too big for an unmemoized search
        n = rng.randint(45, MAX_N)
        board = [rng.randint(-MAX_ABS, MAX_ABS) for _ in range(n)]
    elif profile == "extreme":
        n = rng.randint(1, MAX_N)
        kind = rng.choice(("max", "min", "equal", "alternating", "extremes"))
        if kind == "max":
            board = [MAX_ABS] * n
        elif kind == "min":
            board = [-MAX_ABS] * n
        elif kind == "equal":
            board = [rng.randint(-MAX_ABS, MAX_ABS)] * n
        elif kind == "alternating":
            first = rng.choice((MAX_ABS, -MAX_ABS))
            board = [first if k % 2 == 0 else -first for k in range(n)]
        else:
            board = [rng.choice((-MAX_ABS, 0, MAX_ABS)) for _ in range(n)]
    elif profile == "mixed":
        n = rng.randint(11, MAX_N)
        scale = rng.choice((5, 100, MAX_ABS))
        board = [rng.randint(-scale, scale) for _ in range(n)]
        if rng.random() < 0.5:  # mostly negative rows make deleting attractive
            board = [v - scale if v > 0 and rng.random() < 0.7 else v for v in board]
            board = [max(-MAX_ABS, v) for v in board]
    elif profile == "big_swings":  # every number far from 0: leads well beyond +-1000
        n = rng.randint(10, MAX_N)
        board = [rng.choice((-1, 1)) * rng.randint(MAX_ABS * 7 // 10, MAX_ABS) for _ in range(n)]
    else:
        raise ValueError(f"unknown numbergame profile {profile!r} (known: {', '.join(PROFILES)})")
    return {"board": board}


# Every row up to SMALL_LENGTH numbers over SMALL_VALUES: negatives, zero, ties, and the
# extremes (a solver that takes -1000 for minus infinity fails on one of these rows).
SMALL_LENGTH = 5
SMALL_VALUES = (-MAX_ABS, -1, 0, MAX_ABS)


def canonical(case: Case) -> tuple[int, ...]:
    """The same key for a row and its reverse: the game is the same read from either end."""
    row = tuple(case["board"])
    return min(row, row[::-1])


def small_cases() -> list[dict[str, Any]]:
    """Every row of 1..SMALL_LENGTH numbers from SMALL_VALUES, shortest first. The judge keeps
    the first of each row and its reverse (`canonical`)."""
    return [
        {"board": list(row)}
        for n in range(1, SMALL_LENGTH + 1)
        for row in itertools.product(SMALL_VALUES, repeat=n)
    ]


# The longest rows, fixed in every plan: a solution too slow on them is too slow in every
# seed. Their answers differ in sign and size, so they also check the result, not just time.
WORST_CASES = [
    {"board": [-MAX_ABS] * MAX_N},
    {"board": [MAX_ABS if k % 2 else -MAX_ABS for k in range(MAX_N)]},
    {"board": [MAX_ABS - k * 37 % (2 * MAX_ABS + 1) for k in range(MAX_N)]},
]


def shrink(case: Case) -> Iterator[dict[str, Any]]:
    """Smaller valid cases: one number dropped, then magnitudes halved or zeroed."""
    board = case["board"]
    if len(board) > 1:
        for k in range(len(board)):
            yield {"board": board[:k] + board[k + 1 :]}
    if any(board):
        yield {"board": [int(v / 2) for v in board]}
        for k, value in enumerate(board):
            if value:
                yield {"board": [*board[:k], int(value / 2), *board[k + 1 :]]}


# ---------------------------------------------------------------------------------------------
# one move later: what "where is the bug" searches

COMBINE_RULE = (
    "the player to move takes the best of: a number from one end minus the other player's "
    "best on the rest, or nothing minus the other player's best after deleting two from one end."
)


def children(case: Case) -> list[dict[str, Any]]:
    """The shorter rows one move later: taking or deleting from either end. An empty row is
    no valid case (its value is 0): left out, as are repeats."""
    board = case["board"]
    rows = [board[1:], board[:-1]]
    if len(board) >= 2:
        rows += [board[2:], board[:-2]]
    unique: list[list[int]] = []
    for row in rows:
        if row and row not in unique:
            unique.append(row)
    return [{"board": list(row)} for row in unique]

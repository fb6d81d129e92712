"""Stone game II: take the first X piles, 1 <= X <= 2M, then M = max(M, X); most stones wins.

The instructor's code of the package (problem.toml declares the signature, limits, plan, view
and samples; statement.md the text, stdio.md the whole-program format). Python 3.11, standard
library only, self-contained: it runs in the judge's sandbox, which holds nothing else.

The reference solver is the suffix-sum DP over (i, M): best[i][M] is the most stones the
player to move can get from the piles piles[i:] when it may take up to 2M of them. The stones
left always add up to suffix[i], and the opponent, maximising its own stones, minimises the
mover's: best[i][M] = max over X of suffix[i] - best[i + X][max(M, X)], and best[n][M] = 0.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

# A case as the functions here read it (they never modify one): a JSON object keyed by PARAMS.
Case = Mapping[str, Any]

PARAMS = ("piles",)  # problem.toml's signature
MAX_N = 100  # piles in a case
MAX_STONES = 10_000  # stones in one pile
# generate()'s profiles; problem.toml's plan gives each its weight.
PROFILES = ("tiny", "random", "large", "shapes", "slow_growth", "one_big")
PLAYERS = ("Alice", "Bob")


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
    """The number of cases C, then per case a line with n and a line with the n piles."""
    lines = [str(len(cases))]
    for case in cases:
        piles = case["piles"]
        lines += [str(len(piles)), " ".join(str(v) for v in piles)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# validation and the reference solver


def validate(case: Any) -> None:
    check_keys(case, PARAMS)
    piles = case["piles"]
    if not isinstance(piles, list):
        raise ValueError(f"piles must be a list of ints, got {short(piles)}")
    if not 1 <= len(piles) <= MAX_N:
        raise ValueError(f"piles has {len(piles)} piles, must have 1..{MAX_N}")
    for i, value in enumerate(piles):
        if not is_int(value):
            raise ValueError(f"piles[{i}] must be an int, got {short(value)}")
        if not 1 <= value <= MAX_STONES:
            raise ValueError(f"piles[{i}] is {value}, must be between 1 and {MAX_STONES}")


def _table(piles: Sequence[int]) -> tuple[list[int], list[list[int]]]:
    """(suffix, best): suffix[i] = sum(piles[i:]); best[i][m] for 0 <= i <= n, 1 <= m <= n is
    the most stones the player to move gets from piles[i:] with M = m (best[n][m] = 0).

    M never needs to exceed n: X <= n - i <= n, so max(M, X) of an m <= n stays <= n. When
    2m reaches the n - i piles left, taking them all is best (every pile holds a stone)."""
    n = len(piles)
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + piles[i]
    best = [[0] * (n + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        left = n - i
        row = best[i]
        for m in range(1, n + 1):
            if 2 * m >= left:
                row[m] = suffix[i]
                continue
            # the opponent's best over the options; the mover gets the rest of suffix[i]
            fewest = min(best[i + x][max(m, x)] for x in range(1, 2 * m + 1))
            row[m] = suffix[i] - fewest
    return suffix, best


def reference(case: Case) -> int:
    """The most stones Alice gets when both play optimally. Expects a valid case."""
    _, best = _table(case["piles"])
    return best[0][1]


def explain(case: Case) -> dict[str, Any]:
    """One optimal line of play: each turn's player, how many piles it takes (X), which, their
    stones, M after the turn, and the player's running total."""
    piles = case["piles"]
    n = len(piles)
    suffix, best = _table(piles)
    answer = best[0][1]
    totals = [0, 0]
    moves = []
    i, m, turn = 0, 1, 0
    while i < n:
        target = best[i][m]
        # the smallest X that realises the table's value (the table guarantees one does)
        x = next(
            x
            for x in range(1, min(2 * m, n - i) + 1)
            if suffix[i] - best[i + x][max(m, x)] == target
        )
        taken = list(piles[i : i + x])
        totals[turn] += sum(taken)
        m = max(m, x)
        moves.append(
            {
                "player": PLAYERS[turn],
                "x": x,
                "piles": taken,
                "stones": sum(taken),
                "m": m,
                "total": totals[turn],
            }
        )
        i += x
        turn ^= 1
    alice, bob = totals
    count = f"{len(moves)} turn" + ("" if len(moves) == 1 else "s")
    return {
        "answer": answer,
        "moves": moves,
        "summary": f"Alice gets {alice} stones and Bob {bob}, after {count}",
    }


# ---------------------------------------------------------------------------------------------
# generators


def _values(rng: random.Random, n: int, high: int = MAX_STONES) -> list[int]:
    return [rng.randint(1, high) for _ in range(n)]


def _shape(rng: random.Random, n: int) -> list[int]:
    kind = rng.choice(("equal", "ascending", "descending", "alternating", "extremes", "ones"))
    if kind == "equal":
        return [rng.randint(1, MAX_STONES)] * n
    if kind == "ascending":
        return sorted(_values(rng, n))
    if kind == "descending":
        return sorted(_values(rng, n), reverse=True)
    if kind == "alternating":
        low, high = rng.choice(((1, MAX_STONES), (MAX_STONES, 1), (1, 2)))
        return [low if k % 2 == 0 else high for k in range(n)]
    if kind == "extremes":
        return [rng.choice((1, MAX_STONES)) for _ in range(n)]
    return [1] * n


def generate(rng: random.Random, profile: str) -> dict[str, Any]:
    if profile == "tiny":  # a few piles of few stones: ties and off-by-ones
        n = rng.randint(1, 8)
        piles = _values(rng, n, rng.choice((3, 10)))
    elif profile == "random":
        n = rng.randint(1, MAX_N)
        piles = _values(rng, n, rng.choice((10, 100, MAX_STONES)))
    elif profile == "large":  # far too many lines of play for a search without memo
        n = rng.randint(90, MAX_N)
        piles = _values(rng, n)
    elif profile == "shapes":
        n = rng.choice((1, 2, 3, rng.randint(4, MAX_N), MAX_N))
        piles = _shape(rng, n)
    elif profile == "slow_growth":
        # small piles first, big ones later: taking few piles at a time is best, so games are
        # long and M grows slowly; a bug in how M changes shows late in such games.
        n = rng.randint(20, MAX_N)
        piles = sorted(_values(rng, n))
        for _ in range(n // 4):  # not quite sorted: some turns are worth a bigger X
            a, b = rng.randrange(n), rng.randrange(n)
            piles[a], piles[b] = piles[b], piles[a]
    elif profile == "one_big":  # one pile worth more than the rest: who gets to reach it?
        n = rng.randint(2, 40)
        piles = _values(rng, n, rng.choice((5, 100)))
        piles[rng.randrange(n)] = MAX_STONES
    else:
        raise ValueError(f"unknown stonegame profile {profile!r} (known: {', '.join(PROFILES)})")
    return {"piles": piles}


# ---------------------------------------------------------------------------------------------
# every small position, and the worst cases

# Every row of 1..SMALL_LENGTH piles of 1..SMALL_STONES stones (3 + 9 + ... + 729 = 1092),
# and every row of SMALL_LENGTH + 1..LONG_LENGTH piles of 1 or 2 stones (128 + ... + 1024 =
# 1920): 3012 positions. The longer rows are there because M only falls behind the rules
# (a solver setting M = X instead of max(M, X), say) after a few turns: no row of 8 piles
# shows that bug, a few of 9 and 10 do.
SMALL_LENGTH = 6
SMALL_STONES = 3
LONG_LENGTH = 10


def canonical(case: Case) -> tuple[int, ...]:
    """The piles themselves: the order of the piles is the game, no two rows are the same game
    (the rows are not symmetric: the piles are always taken from the front)."""
    return tuple(case["piles"])


def small_cases() -> list[dict[str, Any]]:
    """Every row of 1..SMALL_LENGTH piles of 1..SMALL_STONES stones, then every row of
    SMALL_LENGTH + 1..LONG_LENGTH piles of 1 or 2 stones; fewest piles first."""
    rows = [
        row
        for n in range(1, SMALL_LENGTH + 1)
        for row in itertools.product(range(1, SMALL_STONES + 1), repeat=n)
    ]
    rows += [
        row
        for n in range(SMALL_LENGTH + 1, LONG_LENGTH + 1)
        for row in itertools.product((1, 2), repeat=n)
    ]
    return [{"piles": list(row)} for row in rows]


# The longest rows, fixed in every plan: a solution too slow on them is too slow in every
# seed. Their answers differ, and the ascending one is a long game (M grows slowly).
WORST_CASES = [
    {"piles": [MAX_STONES] * MAX_N},
    {"piles": [k * 100 for k in range(1, MAX_N + 1)]},
    {"piles": [1 + k * 7919 % MAX_STONES for k in range(MAX_N)]},
]


# ---------------------------------------------------------------------------------------------
# shrinking


def shrink(case: Case) -> Iterator[dict[str, Any]]:
    """Smaller valid cases: one pile dropped, then piles halved (never below 1 stone)."""
    piles = case["piles"]
    if len(piles) > 1:
        for k in range(len(piles)):
            yield {"piles": piles[:k] + piles[k + 1 :]}
    if any(v > 1 for v in piles):
        yield {"piles": [max(1, v // 2) for v in piles]}
        for k, value in enumerate(piles if len(piles) > 1 else ()):  # one pile: done above
            if value > 1:
                yield {"piles": [*piles[:k], max(1, value // 2), *piles[k + 1 :]]}

"""Subtraction game: several piles; a move removes exactly m stones from one pile, for some m in
the allowed set; the player who cannot move loses. Does the first player win?

The instructor's code of the package (problem.toml declares the signature, limits, plan, view
and samples; statement.md the text, stdio.md the whole-program format). Python 3.11, standard
library only, self-contained: it runs in the judge's sandbox, which holds nothing else.

The reference solver is the Sprague-Grundy theorem. The game is the disjunctive sum of its
piles, each a one-pile subtraction game, so a position is lost for the player to move exactly
when the XOR of its piles' Grundy values is 0. A pile of n stones has the Grundy value
g(n) = mex{g(n - m) : m in moves, m <= n} (the least non-negative integer not among them),
tabled bottom-up from g(0) = 0 up to the largest pile: O(max pile x len(moves)).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

# A case as the functions here read it (they never modify one): a JSON object keyed by PARAMS.
Case = Mapping[str, Any]

PARAMS = ("piles", "moves")  # problem.toml's signature
MAX_PILES = 8
MAX_STONES = 1000  # stones in one pile
MAX_MOVES = 5  # allowed amounts
MAX_TAKE = 20  # the largest allowed amount
# generate()'s profiles; problem.toml's plan gives each its weight.
PROFILES = ("tiny", "random", "lost", "long_game", "big_moves", "edge")


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


def check_int_list(name: str, value: Any, sizes: tuple[int, int], bounds: tuple[int, int]) -> None:
    """`value` is a list of sizes[0]..sizes[1] exact ints, each within bounds."""
    if type(value) is not list:
        raise ValueError(f"{name} must be a list of ints, got {short(value)}")
    low, high = sizes
    if not low <= len(value) <= high:
        raise ValueError(f"{name} has {len(value)} numbers, must have {low}..{high}")
    for i, item in enumerate(value):
        if not is_int(item):
            raise ValueError(f"{name}[{i}] must be an int, got {short(item)}")
        if not bounds[0] <= item <= bounds[1]:
            raise ValueError(f"{name}[{i}] is {item}, must be between {bounds[0]} and {bounds[1]}")


# ---------------------------------------------------------------------------------------------
# validation, the reference solver


def validate(case: Any) -> None:
    check_keys(case, PARAMS)
    check_int_list("piles", case["piles"], (1, MAX_PILES), (0, MAX_STONES))
    moves = case["moves"]
    check_int_list("moves", moves, (1, MAX_MOVES), (1, MAX_TAKE))
    for i, amount in enumerate(moves):
        if amount in moves[:i]:
            raise ValueError(
                f"moves[{i}] is {amount}, which moves[{moves.index(amount)}] already is: "
                "the allowed amounts must be distinct"
            )


def grundy_table(moves: Sequence[int], top: int) -> list[int]:
    """g[n] for n = 0..top: the Grundy value of one pile of n stones."""
    g = [0] * (top + 1)
    for n in range(1, top + 1):
        seen = {g[n - m] for m in moves if m <= n}
        value = 0
        while value in seen:
            value += 1
        g[n] = value
    return g


def nim_sum(case: Case) -> int:
    """The XOR of the piles' Grundy values: 0 exactly when the player to move loses."""
    piles = case["piles"]
    g = grundy_table(case["moves"], max(piles))
    total = 0
    for pile in piles:
        total ^= g[pile]
    return total


def reference(case: Case) -> bool:
    """True when the first player, to move, wins with perfect play. Expects a valid case."""
    return nim_sum(case) != 0


# ---------------------------------------------------------------------------------------------
# generators


def _move_set(rng: random.Random, count: tuple[int, int], top: int) -> list[int]:
    """count[0]..count[1] distinct amounts from 1..top, in a random order."""
    return rng.sample(range(1, top + 1), rng.randint(*count))


def _make_lost(rng: random.Random, piles: list[int], moves: list[int], low: int) -> None:
    """Change one pile (to a size >= low) so that the Grundy values XOR to 0, when some size
    has the Grundy value needed; the answer is then False."""
    g = grundy_table(moves, MAX_STONES)
    k = rng.randrange(len(piles))
    rest = 0
    for i, pile in enumerate(piles):
        if i != k:
            rest ^= g[pile]
    sizes = [n for n in range(low, MAX_STONES + 1) if g[n] == rest]
    if sizes:
        piles[k] = rng.choice(sizes)


def generate(rng: random.Random, profile: str) -> dict[str, Any]:
    if profile == "tiny":  # a game tree a brute force can search
        piles = [rng.randint(0, 8) for _ in range(rng.randint(1, 3))]
        moves = _move_set(rng, (1, 3), 6)
    elif profile == "random":
        piles = [rng.randint(0, MAX_STONES) for _ in range(rng.randint(1, MAX_PILES))]
        moves = _move_set(rng, (1, MAX_MOVES), MAX_TAKE)
    elif profile == "lost":  # uniform positions are mostly won: these are lost when possible
        piles = [rng.randint(0, MAX_STONES) for _ in range(rng.randint(2, MAX_PILES))]
        moves = _move_set(rng, (1, MAX_MOVES), rng.choice((6, 10, MAX_TAKE)))
        _make_lost(rng, piles, moves, 0)
    elif profile == "long_game":  # thousands of moves: hopeless for a game-tree search
        piles = [rng.randint(900, MAX_STONES) for _ in range(rng.randint(6, MAX_PILES))]
        moves = _move_set(rng, (1, 3), 5)
        if rng.random() < 0.5:
            _make_lost(rng, piles, moves, 900)
    elif profile == "big_moves":  # no 1: small piles are stuck; amounts with common factors
        kind = rng.choice(("large", "multiples", "no_one"))
        if kind == "large":
            moves = _move_set(rng, (1, MAX_MOVES), MAX_TAKE - 8)
            moves = [m + 8 for m in moves]
        elif kind == "multiples":
            step = rng.randint(2, 4)
            moves = rng.sample(range(step, MAX_TAKE + 1, step), rng.randint(1, 3))
        else:
            moves = rng.sample(range(2, MAX_TAKE + 1), rng.randint(1, MAX_MOVES))
        top = rng.choice((30, MAX_STONES))
        piles = [rng.randint(0, top) for _ in range(rng.randint(1, MAX_PILES))]
        if rng.random() < 0.5:
            _make_lost(rng, piles, moves, 0)
    elif profile == "edge":
        n = rng.randint(1, MAX_PILES)
        moves = _move_set(rng, (1, MAX_MOVES), MAX_TAKE)
        kind = rng.choice(("zeros", "one_pile", "pairs", "full", "consecutive", "single_move"))
        if kind == "zeros":  # nobody can move, or hardly
            piles = [rng.choice((0, 0, 0, 1, 2)) for _ in range(n)]
        elif kind == "one_pile":
            piles = [rng.randint(0, MAX_STONES)]
        elif kind == "pairs":  # every pile twice: the second player mirrors, and wins
            half = [rng.randint(0, MAX_STONES) for _ in range(rng.randint(1, MAX_PILES // 2))]
            piles = half + half
            rng.shuffle(piles)
        elif kind == "full":
            piles = [MAX_STONES - rng.randint(0, 2) for _ in range(n)]
        elif kind == "consecutive":  # moves 1..k, in some order
            moves = list(range(1, rng.randint(1, MAX_MOVES) + 1))
            rng.shuffle(moves)
            piles = [rng.randint(0, MAX_STONES) for _ in range(n)]
        else:
            moves = [rng.randint(1, MAX_TAKE)]
            piles = [rng.randint(0, MAX_STONES) for _ in range(n)]
    else:
        raise ValueError(f"unknown subtraction profile {profile!r} (known: {', '.join(PROFILES)})")
    return {"piles": piles, "moves": moves}


# ---------------------------------------------------------------------------------------------
# the small tier

# Every position of 1..SMALL_PILES piles of 0..SMALL_STONES stones, with each of these move
# sets: a lone 1 (parity), lone 2 (pairs), 1..k (where "n mod (k+1)" is right), sets where it
# is wrong, with and without 1, and amounts larger than every pile (never playable here).
SMALL_PILES = 3
SMALL_STONES = 6
SMALL_MOVE_SETS = (
    [1],
    [2],
    [1, 2],
    [1, 3],
    [2, 3],
    [1, 3, 4],
    [2, 5, 7],
    [1, 2, 4, 20],
)


def canonical(case: Case) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The piles sorted and the moves sorted: the order of either does not change the game."""
    return tuple(sorted(case["piles"])), tuple(sorted(case["moves"]))


def small_cases() -> list[dict[str, Any]]:
    """Every small position, fewest piles first; the judge keeps the first of each canonical
    class (the piles in non-decreasing order)."""
    return [
        {"piles": list(piles), "moves": list(moves)}
        for n in range(1, SMALL_PILES + 1)
        for moves in SMALL_MOVE_SETS
        for piles in itertools.product(range(SMALL_STONES + 1), repeat=n)
    ]


# The longest games and largest tables, fixed in every plan: a search without the Grundy
# theory is too slow on them in every seed. Won and lost ones: the first is the longest game
# (8000 moves); the next four defeat each usual shortcut (plain Nim, n mod (max + 1), a mex
# taken as the largest value plus one, a table one entry short), the last the short table.
WORST_CASES = [
    {"piles": [MAX_STONES] * MAX_PILES, "moves": [1]},
    {"piles": [1000, 998, 997, 993, 992, 992, 991, 990], "moves": [1, 3, 4]},
    {"piles": [999, 998, 996, 996, 994, 994, 993, 990], "moves": [2, 5, 7, 11, 13]},
    {"piles": [1000, 999, 996, 994, 993, 991, 991, 990], "moves": [16, 17, 18, 19, 20]},
    {"piles": [1000, 998, 996, 992, 990, 987, 985, 982], "moves": [4, 2, 1]},
    {"piles": [1000, 1000, 1000, 1000, 1000, 1000, 1000, 999], "moves": [1, 2]},
]


def shrink(case: Case) -> Iterator[dict[str, Any]]:
    """Smaller valid cases: a pile dropped, a move dropped, then piles halved or one less."""
    piles, moves = case["piles"], case["moves"]
    if len(piles) > 1:
        for k in range(len(piles)):
            yield {"piles": piles[:k] + piles[k + 1 :], "moves": list(moves)}
    if len(moves) > 1:
        for k in range(len(moves)):
            yield {"piles": list(piles), "moves": moves[:k] + moves[k + 1 :]}
    if any(p > 1 for p in piles):
        yield {"piles": [p // 2 for p in piles], "moves": list(moves)}
    for k, pile in enumerate(piles):
        if pile:
            yield {"piles": [*piles[:k], pile // 2, *piles[k + 1 :]], "moves": list(moves)}
            if pile > 1:
                yield {"piles": [*piles[:k], pile - 1, *piles[k + 1 :]], "moves": list(moves)}


# ---------------------------------------------------------------------------------------------
# one optimal line, and one move later: what "where is the bug" searches

SHOWN_MOVES = 60  # explain() lists at most this many moves of a line (one can be 8000 long)


def explain(case: Case) -> dict[str, Any]:
    """One optimal line of play. The player who wins always moves to a position whose Grundy
    values XOR to 0; the player who loses has no such choice and takes as many stones as it
    can from its largest pile (it loses whatever it does)."""
    piles, moves = list(case["piles"]), sorted(case["moves"])
    g = grundy_table(moves, max(piles))
    answer = reference(case)
    winner = "first" if answer else "second"
    players = ("first", "second")
    line: list[dict[str, Any]] = []
    length = 0
    total = nim_sum(case)
    turn = 0
    while True:
        options = [(k, m) for k, pile in enumerate(piles) for m in moves if m <= pile]
        if not options:
            break
        if total:  # the largest amount that leaves the Grundy values XOR-ing to 0
            winning = [(k, m) for k, m in options if total ^ g[piles[k]] ^ g[piles[k] - m] == 0]
            k, m = max(winning, key=lambda o: (o[1], -o[0]))
        else:
            k, m = max(options, key=lambda o: (piles[o[0]], o[1], -o[0]))
        total ^= g[piles[k]] ^ g[piles[k] - m]
        piles[k] -= m
        length += 1
        if len(line) < SHOWN_MOVES:
            line.append({"player": players[turn], "pile": k, "take": m, "piles": list(piles)})
        turn ^= 1
    count = f"{length} move" + ("" if length == 1 else "s")
    summary = f"the {winner} player wins after {count}"
    if not length:
        summary = "the first player cannot move: the second player wins"
    elif length > len(line):
        summary += f" (the first {len(line)} shown)"
    grundy = [g[p] for p in case["piles"]]
    return {
        "answer": answer,
        "winner": winner,
        "grundy": grundy,
        "moves": line,
        "summary": summary,
    }


COMBINE_RULE = "a position is won when some move leads to a lost position"


def children(case: Case) -> list[dict[str, Any]]:
    """The positions one move later: m stones taken from pile k, for every pile and allowed
    m it holds, in that order, repeats left out. A position with no move has none (lost)."""
    piles, moves = case["piles"], case["moves"]
    found: list[dict[str, Any]] = []
    for k, pile in enumerate(piles):
        for m in moves:
            if m <= pile:
                child = {"piles": [*piles[:k], pile - m, *piles[k + 1 :]], "moves": list(moves)}
                if child not in found:
                    found.append(child)
    return found


# ---------------------------------------------------------------------------------------------
# the stdin/stdout style (stdio.md describes it to students): one answer per line, as a bool


def write_input(cases: Sequence[Case]) -> str:
    """The number of cases C, then per case a line "n k", a line with the n piles and a line
    with the k allowed amounts."""
    lines = [str(len(cases))]
    for case in cases:
        piles, moves = case["piles"], case["moves"]
        lines += [
            f"{len(piles)} {len(moves)}",
            " ".join(str(p) for p in piles),
            " ".join(str(m) for m in moves),
        ]
    return "\n".join(lines) + "\n"

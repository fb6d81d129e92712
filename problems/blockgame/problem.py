"""Block game: two players fill a 5x5 board with L-trominoes and dominoes; who cannot move loses.

The instructor's code of the package (problem.toml declares the signature, limits, plan, view
and samples; statement.md the text, stdio.md the whole-program format). Python 3.11, standard
library only, self-contained: it runs in the judge's sandbox, which holds nothing else.

Cells are numbered r * 5 + c; a set of cells is a 25-bit mask. The reference solver is the
Sprague-Grundy theory of impartial games under normal play (the player who cannot move
loses). A block covers 3 cells of a 2x2 square or 2 side-adjacent cells, so its cells are
always connected: a placement lies inside one connected region of empty cells, and the board
is the disjunctive sum of its regions. The player to move wins exactly when the XOR of the
regions' Grundy values is not 0. A region's Grundy value is the mex of the values of the
boards one placement later, and depends only on the region's shape up to translation,
rotation and reflection, so the memo is keyed by a canonical form of the shape. A board of one
region only needs "won or lost" (Grundy value 0 or not): that search stops at the first
placement leading to a lost board, and computes full Grundy values only for boards that fall
apart into several regions. The empty board takes about 1.5 thousand single-region positions
and 50 thousand shapes' values, under a second of CPU; the plain memoized search over whole
boards visits 3 million positions (10 s of CPU in Python, and more memory than the limit).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping
from typing import Any

# A case as the functions here read it (they never modify one): a JSON object keyed by PARAMS.
Case = Mapping[str, Any]

PARAMS = ("board",)  # problem.toml's signature
SIDE = 5
FILLED, EMPTY = "#", "."
WIN, LOSE = "WINNING", "LOSING"
# generate()'s profiles; problem.toml's plan gives each its weight.
PROFILES = ("tiny", "random", "sparse", "symmetric", "regions", "edge")


# ---------------------------------------------------------------------------------------------
# messages


def short(value: Any, limit: int = 60) -> str:
    """A value's repr and type for an error message, cut to a readable length."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{text} ({type(value).__name__})"


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
# validation, board <-> mask


def validate(case: Any) -> None:
    check_keys(case, PARAMS)
    board = case["board"]
    if not isinstance(board, list):
        raise ValueError(f"board must be a list of {SIDE} strs, got {short(board)}")
    if len(board) != SIDE:
        raise ValueError(f"board has {len(board)} rows, must have exactly {SIDE}")
    for r, row in enumerate(board):
        if type(row) is not str:
            raise ValueError(f"board[{r}] must be a str of {SIDE} characters, got {short(row)}")
        if len(row) != SIDE:
            raise ValueError(f"board[{r}] is {row[:20]!r}: {len(row)} characters, must be {SIDE}")
        for c, ch in enumerate(row):
            if ch not in (FILLED, EMPTY):
                raise ValueError(
                    f"board[{r}][{c}] is {ch!r}: every cell must be '#' (filled) or '.' (empty)"
                )


def free_mask(board: list[str]) -> int:
    """The empty cells of a board as a mask."""
    return sum(1 << (r * SIDE + c) for r in range(SIDE) for c in range(SIDE) if board[r][c] == ".")


def board_of(free: int) -> list[str]:
    return [
        "".join(EMPTY if free >> (r * SIDE + c) & 1 else FILLED for c in range(SIDE))
        for r in range(SIDE)
    ]


def _cell(r: int, c: int) -> int:
    return 1 << (r * SIDE + c)


# ---------------------------------------------------------------------------------------------
# the blocks: 64 L-trominoes (4 per 2x2 square) and 40 dominoes


def _blocks_at(r: int, c: int) -> list[int]:
    """The blocks whose top row is r and whose leftmost column is c."""
    out = []
    if c + 1 < SIDE:
        out.append(_cell(r, c) | _cell(r, c + 1))
    if r + 1 < SIDE:
        out.append(_cell(r, c) | _cell(r + 1, c))
    if r + 1 < SIDE and c + 1 < SIDE:
        square = (_cell(r, c), _cell(r, c + 1), _cell(r + 1, c), _cell(r + 1, c + 1))
        whole = sum(square)
        out += [whole ^ left_out for left_out in square]  # the 4 rotations of the L
    return out


BLOCKS = tuple(b for r in range(SIDE) for c in range(SIDE) for b in _blocks_at(r, c))
assert len(BLOCKS) == 104


def _band_table(r: int) -> list[tuple[int, ...]]:
    """For each pattern of empty cells in rows r and r+1 (10 bits; 5 for the last row), the
    blocks with top row r that fit in it."""
    mine = [b for c in range(SIDE) for b in _blocks_at(r, c)]
    width = 2 * SIDE if r + 1 < SIDE else SIDE
    shift = r * SIDE
    return [
        tuple(b for b in mine if ((b >> shift) & pattern) == b >> shift)
        for pattern in range(1 << width)
    ]


BANDS = tuple(_band_table(r) for r in range(SIDE))


def fitting(free: int) -> list[int]:
    """Every block that fits in the empty cells `free`."""
    out: list[int] = []
    for r in range(SIDE - 1):
        out += BANDS[r][free >> (r * SIDE) & 0x3FF]
    out += BANDS[SIDE - 1][free >> ((SIDE - 1) * SIDE)]
    return out


# ---------------------------------------------------------------------------------------------
# regions and their canonical shapes

ALL = (1 << SIDE * SIDE) - 1
ROW0 = (1 << SIDE) - 1
COL0 = sum(_cell(r, 0) for r in range(SIDE))
NOT_COL0 = ALL ^ COL0
NOT_COL4 = ALL ^ (COL0 << (SIDE - 1))


def regions(free: int) -> list[int]:
    """The connected (side-adjacent) regions of `free`, found by growing each from one cell."""
    out = []
    while free:
        region = free & -free
        while True:
            grown = (
                region
                | (region << 1 & NOT_COL0)
                | (region >> 1 & NOT_COL4)
                | (region << SIDE)
                | (region >> SIDE)
            ) & free
            if grown == region:
                break
            region = grown
        free ^= region
        out.append(region)
    return out


def _symmetry(t: int) -> list[int]:
    """Where each cell goes under the t-th of the 8 symmetries of the square (t < 8: bit 2
    transposes, bit 0 flips the rows, bit 1 flips the columns)."""
    where = []
    for i in range(SIDE * SIDE):
        r, c = divmod(i, SIDE)
        if t & 4:
            r, c = c, r
        if t & 1:
            r = SIDE - 1 - r
        if t & 2:
            c = SIDE - 1 - c
        where.append(r * SIDE + c)
    return where


SYMMETRIES = tuple(_symmetry(t) for t in range(8))
# Each symmetry as 4 lookup tables, one per byte of a mask (bits 0-7, 8-15, 16-23, 24).
_CHUNKS = ((0, 8), (8, 8), (16, 8), (24, 1))
_TABLES = tuple(
    tuple(
        tuple(
            sum(1 << where[start + j] for j in range(width) if v >> j & 1)
            for v in range(1 << width)
        )
        for start, width in _CHUNKS
    )
    for where in SYMMETRIES
)


def transform(t: int, mask: int) -> int:
    a, b, c, d = _TABLES[t]
    return a[mask & 255] | b[mask >> 8 & 255] | c[mask >> 16 & 255] | d[mask >> 24]


def _to_corner(mask: int) -> int:
    """A nonempty mask moved up and left until it touches row 0 and column 0."""
    while not mask & ROW0:
        mask >>= SIDE
    while not mask & COL0:
        mask >>= 1
    return mask


def shape(mask: int) -> int:
    """The canonical form of a set of cells: the smallest, over the 8 symmetries, of the set
    moved to the top-left corner. Equal for sets that are the same game (0 for no cells)."""
    if not mask:
        return 0
    best = ALL + 1
    for a, b, c, d in _TABLES:
        moved = _to_corner(a[mask & 255] | b[mask >> 8 & 255] | c[mask >> 16 & 255] | d[mask >> 24])
        if moved < best:
            best = moved
    return best


# ---------------------------------------------------------------------------------------------
# the reference solver

# Caches that live as long as the module: Grundy values by region (raw masks and canonical
# shapes) and by the empty cells left after one placement (the XOR over their regions).
_GRUNDY: dict[int, int] = {}
_AFTER: dict[int, int] = {}
_WINS: dict[int, bool] = {}  # single regions by shape: whether the mover wins
_CACHE_LIMIT = 600_000  # entries; beyond it the caches start over (memory, not correctness)


def _grundy_of_shape(region: int) -> int:
    """The Grundy value of a connected region given as its canonical shape."""
    moves_to = set()
    for block in fitting(region):
        rest = region ^ block
        value = _AFTER.get(rest)
        if value is None:
            value = 0
            for part in regions(rest):
                value ^= _grundy_of(part)
            _AFTER[rest] = value
        moves_to.add(value)
    g = 0
    while g in moves_to:
        g += 1
    _GRUNDY[region] = g
    return g


def _grundy_of(region: int) -> int:
    """The Grundy value of a connected region given as any of its masks."""
    g = _GRUNDY.get(region)
    if g is None:
        key = shape(region)
        g = _GRUNDY.get(key)
        if g is None:
            g = _grundy_of_shape(key)
        _GRUNDY[region] = g
    return g


def grundy(free: int) -> int:
    """The Grundy value of the board whose empty cells are `free`: XOR over its regions."""
    _trim()
    value = 0
    for part in regions(free):
        value ^= _grundy_of(part)
    return value


def _wins_shape(region: int) -> bool:
    """Whether the player to move wins on a connected region given as its canonical shape:
    its Grundy value is not 0. Decided without the whole value: the region is won as soon as
    one placement leaves a lost board, so only boards that split into several regions need
    their regions' values (a sum is lost exactly when the XOR of its parts' values is 0)."""
    known = _WINS.get(region)
    if known is None:
        g = _GRUNDY.get(region)
        if g is not None:
            return g != 0
    else:
        return known
    whole: list[int] = []  # shapes left as one region, searched last
    split: list[list[int]] = []
    for block in fitting(region):
        parts = regions(region ^ block)
        if not parts:  # the block fills the region: the other player cannot move
            _WINS[region] = True
            return True
        if len(parts) == 1:
            key = shape(parts[0])
            if _WINS.get(key) is False or _GRUNDY.get(key) == 0:
                _WINS[region] = True
                return True
            whole.append(key)
        else:
            split.append(parts)
    # the cheapest sums first: those whose largest region is smallest
    split.sort(key=lambda parts: max(part.bit_count() for part in parts))
    for parts in split:
        value = 0
        for part in parts:
            value ^= _grundy_of(part)
        if value == 0:
            _WINS[region] = True
            return True
    for key in whole:
        if not _wins_shape(key):
            _WINS[region] = True
            return True
    _WINS[region] = False
    return False


def wins(free: int) -> bool:
    """Whether the player to move wins on the board whose empty cells are `free`. Regions
    where no block fits have value 0 and drop out; one region left is searched on its own."""
    _trim()
    parts = [part for part in regions(free) if fitting(part)]
    if len(parts) == 1:
        return _wins_shape(shape(parts[0]))
    value = 0
    for part in parts:
        value ^= _grundy_of(part)
    return value != 0


def _trim() -> None:
    if max(len(_AFTER), len(_GRUNDY), len(_WINS)) > _CACHE_LIMIT:
        _AFTER.clear()
        _GRUNDY.clear()
        _WINS.clear()


def reference(case: Case) -> str:
    """Return "WINNING" when the player to move wins with perfect play. Expects a valid case."""
    return WIN if wins(free_mask(case["board"])) else LOSE


# ---------------------------------------------------------------------------------------------
# explain: one optimal line of play


def describe(block: int) -> dict[str, Any]:
    cells = [list(divmod(i, SIDE)) for i in range(SIDE * SIDE) if block >> i & 1]
    return {"block": "L" if len(cells) == 3 else "domino", "cells": cells}


def explain(case: Case) -> dict[str, Any]:
    """One optimal line of play: the winner always moves to a losing board for the other
    player; the loser, with no such move, places the first block that fits."""
    free = free_mask(case["board"])
    answer = reference(case)
    players = ("first", "second")
    moves = []
    turn = 0
    while True:
        options = fitting(free)
        if not options:
            break
        winning = [b for b in options if grundy(free ^ b) == 0]
        block = winning[0] if winning else options[0]
        free ^= block
        moves.append({"player": players[turn], **describe(block), "board": board_of(free)})
        turn ^= 1
    winner = players[turn ^ 1]
    count = f"{len(moves)} block" + ("" if len(moves) == 1 else "s")
    if not moves:
        summary = "no block fits: the player to move has lost"
    else:
        summary = f"the {winner} player places the last block ({count} in all) and wins"
    return {"answer": answer, "winner": winner, "moves": moves, "summary": summary}


# ---------------------------------------------------------------------------------------------
# generators


def _random_board(rng: random.Random, filled_p: float) -> int:
    """The empty cells of a board with each cell filled with probability filled_p."""
    return sum(1 << i for i in range(SIDE * SIDE) if rng.random() >= filled_p)


def _with_filled(rng: random.Random, count: int) -> int:
    return ALL ^ sum(1 << i for i in rng.sample(range(SIDE * SIDE), count))


def _symmetric(rng: random.Random) -> int:
    """A board equal to its own image under a random symmetry of order 2; for the central
    turn and the mirrors, often with the cells that a block could share with its own image
    filled: the second player then wins by copying every move (the mirror strategy)."""
    t = rng.choice((1, 2, 3, 4, 7))  # row flip, column flip, half turn, the two diagonals
    where = SYMMETRIES[t]
    free = 0
    for i in range(SIDE * SIDE):
        j = where[i]
        if i <= j and rng.random() < 0.7:
            free |= 1 << i | 1 << j
    if rng.random() < 0.6:
        # the cells a block can share with its own image: the centre, the middle row or
        # column, the diagonal band
        touching = 0
        for block in BLOCKS:
            image = sum(1 << where[i] for i in range(SIDE * SIDE) if block >> i & 1)
            touching |= block & image
        free &= ~touching
    return free


def _regions_board(rng: random.Random) -> int:
    """Separate pockets of empty cells: sums of small games, where counting cells or regions
    is wrong and every rotation of the L matters."""
    free = 0
    for _ in range(rng.randint(2, 5)):
        h, w = rng.choice(((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2), (1, 4)))
        r, c = rng.randrange(SIDE - h + 1), rng.randrange(SIDE - w + 1)
        pocket = sum(_cell(r + i, c + j) for i in range(h) for j in range(w))
        if h == 2 and w == 2 and rng.random() < 0.6:  # an L pocket, any of the 4 rotations
            pocket ^= _cell(r + rng.randrange(2), c + rng.randrange(2))
        free |= pocket
    # a few pocket cells filled at random: odd shapes, single cells
    return free & ~sum(1 << i for i in range(SIDE * SIDE) if rng.random() < 0.15)


def _edge(rng: random.Random) -> int:
    kind = rng.choice(("empty", "full", "one", "wrap", "checker", "strip", "corner"))
    if kind == "empty":
        return ALL
    if kind == "full":
        return 0
    if kind == "one":  # one empty cell: no block fits
        return 1 << rng.randrange(SIDE * SIDE)
    if kind == "wrap":  # the last cell of a row and the first of the next: not adjacent
        r = rng.randrange(SIDE - 1)
        free = _cell(r, SIDE - 1) | _cell(r + 1, 0)
        if rng.random() < 0.5:
            free |= _cell(r + 1, 1)  # one true domino; no L across the wrap
        return free
    if kind == "checker":  # no two empty cells side by side; sometimes one more cell
        parity = rng.randrange(2)
        free = sum(_cell(r, c) for r in range(SIDE) for c in range(SIDE) if (r + c) % 2 == parity)
        if rng.random() < 0.5:
            free |= 1 << rng.randrange(SIDE * SIDE)
        return free
    if kind == "strip":  # one row or column: dominoes only
        k = rng.randrange(SIDE)
        line = ROW0 << (k * SIDE) if rng.random() < 0.5 else COL0 << k
        return line & ~(1 << rng.choice([i for i in range(SIDE * SIDE) if line >> i & 1]))
    # corner: four empty cells at a corner (an L with a tail), turned or mirrored
    return transform(rng.randrange(8), _cell(0, 0) | _cell(0, 1) | _cell(1, 0) | _cell(0, 2))


def generate(rng: random.Random, profile: str) -> dict[str, Any]:
    if profile == "tiny":  # 2..8 empty cells close together: short games, checked by hand
        r, c = rng.randrange(SIDE - 2), rng.randrange(SIDE - 2)
        window = [(r + i) * SIDE + c + j for i in range(3) for j in range(3)]
        free = sum(1 << i for i in rng.sample(window, rng.randint(2, 8)))
    elif profile == "random":
        free = _random_board(rng, rng.uniform(0.2, 0.65))
    elif profile == "sparse":  # 0..3 filled cells: the longest games, the full search
        free = _with_filled(rng, rng.randint(0, 3))
    elif profile == "symmetric":
        free = _symmetric(rng)
    elif profile == "regions":
        free = _regions_board(rng)
    elif profile == "edge":
        free = _edge(rng)
    else:
        raise ValueError(f"unknown blockgame profile {profile!r} (known: {', '.join(PROFILES)})")
    return {"board": board_of(free)}


# ---------------------------------------------------------------------------------------------
# every small position, and the worst cases


def canonical(case: Case) -> int:
    """The same key for boards that are the same game: the canonical shape of the empty
    cells (moved to the corner, smallest over rotations and reflections). Only the shape of
    the empty cells decides which blocks fit, so such boards have the same answer."""
    return shape(free_mask(case["board"]))


SMALL_EMPTY = 3  # every board with at most 3 empty cells, anywhere
SMALL_BOX = (3, 4)  # and every board whose empty cells lie in the top-left 3x4 rectangle


def small_cases() -> list[dict[str, Any]]:
    """Every board with at most SMALL_EMPTY empty cells (2626: every pair of cells, the wrap
    from one row's end to the next row's start included), then every board whose empty cells
    lie in the top-left 3x4 rectangle (4096: every L, every rotation, sums of pockets), fewest
    empty cells first. The judge keeps the first of each class of `canonical`."""
    frees = set()
    for k in range(SMALL_EMPTY + 1):
        for cells in itertools.combinations(range(SIDE * SIDE), k):
            frees.add(sum(1 << i for i in cells))
    rows, cols = SMALL_BOX
    box = [r * SIDE + c for r in range(rows) for c in range(cols)]
    for bits in range(1 << len(box)):
        frees.add(sum(1 << box[j] for j in range(len(box)) if bits >> j & 1))
    ordered = sorted(frees, key=lambda f: (bin(f).count("1"), f))
    return [{"board": board_of(free)} for free in ordered]


# The longest searches, fixed in every plan: the empty board and boards with one filled
# cell (a corner, the centre, the cell next to a corner), where a search without a memo
# never ends and a plain memo over whole boards visits millions of positions.
WORST_CASES = [
    {"board": board_of(ALL)},
    {"board": board_of(ALL ^ _cell(2, 2))},
    {"board": board_of(ALL ^ _cell(0, 0))},
    {"board": board_of(ALL ^ _cell(0, 1))},
]


# ---------------------------------------------------------------------------------------------
# shrinking


def shrink(case: Case) -> Iterator[dict[str, Any]]:
    """Smaller games: a whole row or column of empty cells filled, then one empty cell filled."""
    free = free_mask(case["board"])
    seen = {free}
    lines = [ROW0 << (r * SIDE) for r in range(SIDE)] + [COL0 << c for c in range(SIDE)]
    for line in lines:
        smaller = free & ~line
        if smaller not in seen:
            seen.add(smaller)
            yield {"board": board_of(smaller)}
    for i in range(SIDE * SIDE):
        if free >> i & 1 and free ^ (1 << i) not in seen:
            seen.add(free ^ (1 << i))
            yield {"board": board_of(free ^ (1 << i))}


# ---------------------------------------------------------------------------------------------
# one move later: what "where is the bug" searches

COMBINE_RULE = (
    "a board is WINNING when some placement of a block leads to a board that is LOSING for "
    "the other player; a board where no block fits, or every placement leads to a WINNING "
    "board, is LOSING."
)


def children(case: Case) -> list[dict[str, Any]]:
    """The boards one placement later, each block that fits once, in BLOCKS order."""
    free = free_mask(case["board"])
    return [{"board": board_of(free ^ block)} for block in fitting(free)]


# ---------------------------------------------------------------------------------------------
# the stdin/stdout style (stdio.md describes it to students): one answer per line, read as str


def write_input(cases: list[Case]) -> str:
    """Algospot's BLOCKGAME input: the number of cases C, then 5 lines per board."""
    lines = [str(len(cases))]
    for case in cases:
        lines += list(case["board"])
    return "\n".join(lines) + "\n"

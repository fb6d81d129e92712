"""Vanishing footholds: two pieces on a grid whose footholds vanish behind them.

The instructor's code of the package (problem.toml declares the signature, limits, plan, view
and samples; statement.md the text). Python 3.11, standard library only, self-contained: it
runs in the judge's sandbox, which holds nothing else.

The reference solver is a memoized search over (footholds bitmask, mover cell, other cell)
returning (the mover wins, total moves left). The winner minimises the total number of
moves, the loser maximises it. Cells are numbered r * cols + c.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

# A case as the functions here read it (they never modify one): a JSON object keyed by PARAMS.
Case = Mapping[str, Any]

PARAMS = ("board", "aloc", "bloc")  # problem.toml's signature, in order
MAX_SIDE = 5  # problem.toml's view.bounds.max_side
# generate()'s profiles; problem.toml's plan gives each its weight.
PROFILES = (
    "tiny",
    "shared_start",
    "trapped",
    "random",
    "rectangular",
    "dense_large",
    "long_game",
)


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
# validation


def _check_loc(name: str, loc: Any, board: list[list[int]]) -> None:
    if not isinstance(loc, list) or len(loc) != 2 or not all(is_int(v) for v in loc):
        raise ValueError(f"{name} must be a list of 2 ints [row, col], got {short(loc)}")
    rows, cols = len(board), len(board[0])
    r, c = loc
    if not (0 <= r < rows and 0 <= c < cols):
        raise ValueError(f"{name} {loc} is off the {rows}x{cols} board")
    if board[r][c] != 1:
        raise ValueError(f"{name} {loc} is not on a foothold (board[{r}][{c}] is 0)")


def validate(case: Any) -> None:
    check_keys(case, PARAMS)
    board = case["board"]
    if not isinstance(board, list):
        raise ValueError(f"board must be a list of rows, got {short(board)}")
    if not 1 <= len(board) <= MAX_SIDE:
        raise ValueError(f"board has {len(board)} rows, must have 1..{MAX_SIDE}")
    for i, row in enumerate(board):
        if not isinstance(row, list):
            raise ValueError(f"board row {i} must be a list of cells, got {short(row)}")
    width = len(board[0])
    if not 1 <= width <= MAX_SIDE:
        raise ValueError(f"board row 0 has {width} cells, must have 1..{MAX_SIDE}")
    for i, row in enumerate(board):
        if len(row) != width:
            raise ValueError(f"board row {i} has {len(row)} cells, row 0 has {width}")
        for j, cell in enumerate(row):
            if not is_int(cell) or cell not in (0, 1):
                raise ValueError(f"board[{i}][{j}] must be 0 or 1, got {short(cell)}")
    _check_loc("aloc", case["aloc"], board)
    _check_loc("bloc", case["bloc"], board)


# ---------------------------------------------------------------------------------------------
# reference solver


def _neighbours(rows: int, cols: int) -> list[tuple[int, ...]]:
    out = []
    for r in range(rows):
        for c in range(cols):
            near = []
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols:
                    near.append(nr * cols + nc)
            out.append(tuple(near))
    return out


_BIG = 1 << 10  # above any game length (at most 25 moves)
_INF = 1 << 12


def _solver(board: list[list[int]]):
    """A search function over (mask, mover, other) with a memo local to this board.

    The value is the number of moves left under optimal play. The player to move wins
    exactly when it is odd (the winner makes the last move), so one int carries both the
    outcome and the length, which keeps the memo small and the search fast.
    """
    rows, cols = len(board), len(board[0])
    near = _neighbours(rows, cols)
    memo: dict[int, int] = {}

    def value(mask: int, mover: int, other: int) -> int:
        key = mask << 10 | mover << 5 | other
        found = memo.get(key)
        if found is not None:
            return found
        best_win = best_loss = 0  # fewest moves among wins (odd), most among losses (even)
        if mask >> mover & 1:  # else the foothold under the mover has vanished: lost now
            rest = mask & ~(1 << mover)
            for nxt in near[mover]:
                if mask >> nxt & 1:
                    moves = value(rest, other, nxt) + 1
                    if moves & 1:
                        if not best_win or moves < best_win:
                            best_win = moves
                    elif moves > best_loss:
                        best_loss = moves
        memo[key] = result = best_win or best_loss
        return result

    def search(mask: int, mover: int, other: int) -> tuple[bool, int]:
        """(the mover wins, total moves) under optimal play."""
        moves = value(mask, mover, other)
        return bool(moves & 1), moves

    return search, near, cols


def _start(case: Case) -> tuple[int, int, int, int]:
    board = case["board"]
    cols = len(board[0])
    mask = 0
    for r, row in enumerate(board):
        for c, cell in enumerate(row):
            if cell:
                mask |= 1 << (r * cols + c)
    (ar, ac), (br, bc) = case["aloc"], case["bloc"]
    return mask, ar * cols + ac, br * cols + bc, cols


def reference(case: Case) -> int:
    """Total moves under optimal play. Expects a valid case (see validate).

    Negamax with alpha-beta pruning over (footholds mask, mover, other) with a table of
    bounds. Scores are absolute: a win for the mover ending the game after L moves in all is
    worth _BIG - L, a loss L - _BIG, so the winner prefers short games and the loser long
    ones. Every move removes one foothold, so the ply is fixed by the mask and the table needs
    no depth. About 8x faster than the full search on the default plans; the full search
    (_solver) still serves explain(), and the tests check both against a brute force.
    """
    board = case["board"]
    near = _neighbours(len(board), len(board[0]))
    mask, a, b, _ = _start(case)
    table: dict[int, tuple[int, int]] = {}

    def negamax(mask: int, mover: int, other: int, ply: int, alpha: int, beta: int) -> int:
        key = mask << 10 | mover << 5 | other
        entry = table.get(key)
        if entry is not None:
            low, high = entry
            if low >= beta or low == high:
                return low
            if high <= alpha:
                return high
            alpha, beta = max(alpha, low), min(beta, high)
        window_low, window_high = alpha, beta
        best = ply - _BIG  # no foothold to step to, or it vanished: the mover loses now
        if mask >> mover & 1:
            rest = mask & ~(1 << mover)
            for nxt in near[mover]:
                if mask >> nxt & 1:
                    score = -negamax(rest, other, nxt, ply + 1, -beta, -alpha)
                    if score > best:
                        best = score
                        if score > alpha:
                            alpha = score
                            if alpha >= beta:
                                break
        low, high = entry if entry is not None else (-_INF, _INF)
        if best <= window_low:  # failed low: an upper bound
            table[key] = (low, best)
        elif best >= window_high:  # failed high: a lower bound
            table[key] = (best, high)
        else:
            table[key] = (best, best)
        return best

    score = negamax(mask, a, b, 0, -_INF, _INF)
    return _BIG - score if score > 0 else score + _BIG


def explain(case: Case) -> dict[str, Any]:
    """One optimal line of play, replayable move by move."""
    search, near, cols = _solver(case["board"])
    mask, mover, other, _ = _start(case)
    a_wins, answer = search(mask, mover, other)
    players = ("A", "B")
    moves = []
    turn = 0
    wins, left = a_wins, answer
    while left > 0:
        rest = mask & ~(1 << mover)
        for nxt in near[mover]:
            if not mask >> nxt & 1:
                continue
            child_wins, child_moves = search(rest, other, nxt)
            if child_wins != wins and child_moves + 1 == left:
                break
        else:  # pragma: no cover - the search guarantees a move realising the value
            raise AssertionError("no move realises the searched value")
        moves.append(
            {
                "player": players[turn],
                "from": list(divmod(mover, cols)),
                "to": list(divmod(nxt, cols)),
            }
        )
        mask, mover, other = rest, other, nxt
        wins, left = child_wins, child_moves
        turn ^= 1
    winner = "A" if a_wins else "B"
    loser = players[turn]
    if not mask >> mover & 1:
        why = f"the foothold under {loser} vanished"
    else:
        why = f"{loser} has no foothold to move to"
    count = f"{answer} move" + ("" if answer == 1 else "s")
    return {
        "answer": answer,
        "winner": winner,
        "moves": moves,
        "summary": f"{winner} wins after {count}: {why}",
    }


# ---------------------------------------------------------------------------------------------
# generators


def _board(rng: random.Random, rows: int, cols: int, density: float) -> list[list[int]]:
    return [[1 if rng.random() < density else 0 for _ in range(cols)] for _ in range(rows)]


def _cells(board: list[list[int]]) -> list[list[int]]:
    return [[r, c] for r, row in enumerate(board) for c, cell in enumerate(row) if cell]


def _ensure(board: list[list[int]], rng: random.Random) -> list[list[int]]:
    """Make sure the board has at least one foothold."""
    if not _cells(board):
        board[rng.randrange(len(board))][rng.randrange(len(board[0]))] = 1
    return board


def _pick_two(rng: random.Random, board: list[list[int]]) -> tuple[list[int], list[int]]:
    cells = _cells(board)
    return list(rng.choice(cells)), list(rng.choice(cells))


def _far_apart(
    rng: random.Random, board: list[list[int]], slack: int = 1
) -> tuple[list[int], list[int]]:
    """Two footholds at most `slack` short of the largest Manhattan distance."""
    cells = _cells(board)
    pairs = [
        (abs(p[0] - q[0]) + abs(p[1] - q[1]), p, q) for i, p in enumerate(cells) for q in cells[i:]
    ]
    top = max(d for d, _, _ in pairs)
    choices = [(p, q) for d, p, q in pairs if d >= top - slack]
    p, q = rng.choice(choices)
    if rng.random() < 0.5:
        p, q = q, p
    return list(p), list(q)


def generate(rng: random.Random, profile: str) -> dict[str, Any]:
    if profile == "tiny":
        kind = rng.choice(("1xN", "Nx1", "1x1", "small", "same"))
        if kind == "1xN":
            rows, cols = 1, rng.randint(1, 5)
        elif kind == "Nx1":
            rows, cols = rng.randint(1, 5), 1
        elif kind == "1x1":
            rows, cols = 1, 1
        else:
            rows, cols = rng.randint(1, 3), rng.randint(1, 3)
        board = _ensure(_board(rng, rows, cols, rng.uniform(0.5, 1.0)), rng)
        aloc, bloc = _pick_two(rng, board)
        if kind == "same":
            bloc = list(aloc)
    elif profile == "shared_start":
        rows, cols = rng.randint(1, 5), rng.randint(1, 5)
        board = _ensure(_board(rng, rows, cols, rng.uniform(0.4, 1.0)), rng)
        aloc = list(rng.choice(_cells(board)))
        bloc = list(aloc)
    elif profile == "trapped":
        rows, cols = rng.randint(2, 5), rng.randint(2, 5)
        board = _board(rng, rows, cols, rng.uniform(0.5, 1.0))
        r, c = rng.randrange(rows), rng.randrange(cols)
        board[r][c] = 1
        near = [
            [r + dr, c + dc]
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        for nr, nc in near:
            board[nr][nc] = 0
        if rng.random() < 0.5:  # one way out into a dead end: trapped after a move or two
            nr, nc = rng.choice(near)
            board[nr][nc] = 1
        others = [cell for cell in _cells(board) if cell != [r, c]]
        trapped_cell, other_cell = [r, c], (rng.choice(others) if others else [r, c])
        if rng.random() < 0.5:
            aloc, bloc = trapped_cell, other_cell
        else:
            aloc, bloc = other_cell, trapped_cell
    elif profile == "random":
        rows, cols = rng.randint(1, 5), rng.randint(1, 5)
        board = _ensure(_board(rng, rows, cols, rng.uniform(0.3, 0.95)), rng)
        aloc, bloc = _pick_two(rng, board)
    elif profile == "rectangular":
        rows = rng.randint(1, 5)
        cols = rng.choice([n for n in range(1, 6) if n != rows])
        if rng.random() < 0.5:
            rows, cols = cols, rows
        board = _ensure(_board(rng, rows, cols, rng.uniform(0.6, 1.0)), rng)
        aloc, bloc = _far_apart(rng, board) if rng.random() < 0.6 else _pick_two(rng, board)
    elif profile == "dense_large":
        rows, cols = rng.randint(4, 5), rng.randint(4, 5)
        board = _board(rng, rows, cols, rng.uniform(0.8, 1.0))
        if sum(map(sum, board)) < 0.8 * rows * cols:
            board = [[1] * cols for _ in range(rows)]
        aloc, bloc = _far_apart(rng, board)
    elif profile == "long_game":
        # The longest games there are: a full 5x5 board, sometimes with one hole, and the
        # pieces far apart. Wrong solutions that only fail deep in a game (a search cut at
        # depth 18, say) fail here; nearly full 4x4 and 4x5 boards do not last that long.
        board = [[1] * MAX_SIDE for _ in range(MAX_SIDE)]
        if rng.random() < 0.25:
            board[rng.randrange(MAX_SIDE)][rng.randrange(MAX_SIDE)] = 0
        aloc, bloc = _far_apart(rng, board, slack=2)
    else:
        raise ValueError(f"unknown footholds profile {profile!r} (known: {', '.join(PROFILES)})")
    return {"board": board, "aloc": aloc, "bloc": bloc}


# ---------------------------------------------------------------------------------------------
# every small position, and the worst cases

SMALL_MAX_SIDE = 3  # every board up to 3x3: 1743 positions after symmetry (13005 before)


@cache
def _transforms(rows: int, cols: int) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """The 8 rotations and reflections of a rows x cols board, each as (new rows, new cols,
    where each cell goes). They keep the game the same: moves are the same four directions."""
    out = []
    for transpose in (False, True):
        for turns in range(4):
            shape = (cols, rows) if transpose else (rows, cols)
            if turns % 2:
                shape = shape[::-1]
            where = []
            for r in range(rows):
                for c in range(cols):
                    rr, cc, h, w = (c, r, cols, rows) if transpose else (r, c, rows, cols)
                    for _ in range(turns):  # a quarter turn clockwise
                        rr, cc, h, w = cc, h - 1 - rr, w, h
                    where.append(rr * shape[1] + cc)
            out.append((shape[0], shape[1], tuple(where)))
    return tuple(out)


def canonical(case: Case) -> tuple[int, int, int, int, int]:
    """The same key for a position and each of its rotations and reflections:
    the smallest (rows, cols, footholds mask, A's cell, B's cell) among them."""
    board = case["board"]
    rows, cols = len(board), len(board[0])
    cells = [r * cols + c for r, row in enumerate(board) for c, cell in enumerate(row) if cell]
    a = case["aloc"][0] * cols + case["aloc"][1]
    b = case["bloc"][0] * cols + case["bloc"][1]
    keys = []
    for new_rows, new_cols, where in _transforms(rows, cols):
        mask = sum(1 << where[cell] for cell in cells)
        keys.append((new_rows, new_cols, mask, where[a], where[b]))
    return min(keys)


def _all_small() -> Iterator[dict[str, Any]]:
    for rows in range(1, SMALL_MAX_SIDE + 1):
        for cols in range(1, SMALL_MAX_SIDE + 1):
            size = rows * cols
            for mask in range(1, 1 << size):
                board = [[mask >> (r * cols + c) & 1 for c in range(cols)] for r in range(rows)]
                cells = [[r, c] for r in range(rows) for c in range(cols) if board[r][c]]
                for aloc in cells:
                    for bloc in cells:  # each case its own lists: the judge may keep any
                        yield {
                            "board": [list(row) for row in board],
                            "aloc": list(aloc),
                            "bloc": list(bloc),
                        }


def small_cases() -> list[dict[str, Any]]:
    """Every position on boards up to SMALL_MAX_SIDE x SMALL_MAX_SIDE (every foothold pattern,
    every pair of start cells, shared ones included), fewest footholds first. The judge keeps
    the first of each class of rotations and reflections (`canonical`); the sort is stable and
    a class shares its footholds and area, so which one stands for it is the enumeration's."""
    return sorted(_all_small(), key=lambda c: (sum(map(sum, c["board"])), _area(c)))


def _area(case: Case) -> int:
    return len(case["board"]) * len(case["board"][0])


def _full(aloc: list[int], bloc: list[int]) -> dict[str, Any]:
    return {"board": [[1] * MAX_SIDE for _ in range(MAX_SIDE)], "aloc": aloc, "bloc": bloc}


# The longest games, fixed in every plan so that a solution too slow on them gets TLE in every
# seed or in none: the two positions of every full or one-hole 5x5 board (up to symmetry) on
# which a plain memoized search visits the most positions (120112 and 103709; every one-hole
# board fewer than 78 thousand). Each costs such a search most of a second: two, not more.
WORST_CASES = [
    _full([0, 0], [4, 4]),
    _full([0, 0], [3, 4]),
]


# ---------------------------------------------------------------------------------------------
# shrinking


def shrink(case: Case) -> Iterator[dict[str, Any]]:
    """Smaller valid cases: a row or column removed, then a single foothold removed."""
    board, aloc, bloc = case["board"], case["aloc"], case["bloc"]
    rows, cols = len(board), len(board[0])
    used_rows = {aloc[0], bloc[0]}
    used_cols = {aloc[1], bloc[1]}
    if rows > 1:
        for r in range(rows):
            if r in used_rows:
                continue
            yield {
                "board": [list(row) for i, row in enumerate(board) if i != r],
                "aloc": [aloc[0] - (aloc[0] > r), aloc[1]],
                "bloc": [bloc[0] - (bloc[0] > r), bloc[1]],
            }
    if cols > 1:
        for c in range(cols):
            if c in used_cols:
                continue
            yield {
                "board": [[cell for j, cell in enumerate(row) if j != c] for row in board],
                "aloc": [aloc[0], aloc[1] - (aloc[1] > c)],
                "bloc": [bloc[0], bloc[1] - (bloc[1] > c)],
            }
    for r in range(rows):
        for c in range(cols):
            if board[r][c] and [r, c] != list(aloc) and [r, c] != list(bloc):
                smaller = [list(row) for row in board]
                smaller[r][c] = 0
                yield {"board": smaller, "aloc": list(aloc), "bloc": list(bloc)}


# ---------------------------------------------------------------------------------------------
# one move later: what "where is the bug" searches

COMBINE_RULE = (
    "a player who can win takes the fewest moves, a player who must lose the most; each "
    "position one move later is counted from the other player's side, plus the move itself."
)


def children(case: Case) -> list[dict[str, Any]]:
    """The positions one move later, as cases: A steps to a neighbouring foothold, the cell it
    left vanishes, and B is to move, so B becomes `aloc`. When both pieces shared A's cell,
    B's foothold vanishes with it and B has lost: that position is no valid case, left out."""
    board, (ar, ac), bloc = case["board"], case["aloc"], case["bloc"]
    if list(bloc) == [ar, ac]:
        return []
    after = [list(row) for row in board]
    after[ar][ac] = 0
    rows, cols = len(board), len(board[0])
    return [
        {"board": [list(row) for row in after], "aloc": list(bloc), "bloc": [nr, nc]}
        for nr, nc in ((ar - 1, ac), (ar + 1, ac), (ar, ac - 1), (ar, ac + 1))
        if 0 <= nr < rows and 0 <= nc < cols and after[nr][nc]
    ]

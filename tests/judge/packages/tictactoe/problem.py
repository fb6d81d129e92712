"""Tic-tac-toe: the value of a position for the player to move (1 win, 0 draw, -1 loss)."""

from functools import cache

LINES = [
    [(0, 0), (0, 1), (0, 2)],
    [(1, 0), (1, 1), (1, 2)],
    [(2, 0), (2, 1), (2, 2)],
    [(0, 0), (1, 0), (2, 0)],
    [(0, 1), (1, 1), (2, 1)],
    [(0, 2), (1, 2), (2, 2)],
    [(0, 0), (1, 1), (2, 2)],
    [(0, 2), (1, 1), (2, 0)],
]
SMALL_PIECES = 4  # the small tier: every position with at most this many pieces
WORST_CASES = [{"board": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}]
COMBINE_RULE = "a position is worth the most of minus its children's values (0 when full)"


def _winner(cells):
    board = [cells[0:3], cells[3:6], cells[6:9]]
    won = {
        board[r][c]
        for line in LINES
        for r, c in [line[0]]
        if board[r][c] and all(board[i][j] == board[r][c] for i, j in line)
    }
    return won


def _flat(case):
    return tuple(v for row in case["board"] for v in row)


def _case(cells):
    return {"board": [list(cells[0:3]), list(cells[3:6]), list(cells[6:9])]}


def validate(case):
    board = case["board"]
    if len(board) != 3 or any(len(row) != 3 for row in board):
        raise ValueError("the board must be 3 rows of 3 squares")
    cells = _flat(case)
    if any(v not in (0, 1, 2) for v in cells):
        raise ValueError("a square must be 0 (empty), 1 (X) or 2 (O)")
    xs, os_ = cells.count(1), cells.count(2)
    if xs not in (os_, os_ + 1):
        raise ValueError("X moves first: X has as many pieces as O, or one more")
    won = _winner(cells)
    if len(won) == 2:
        raise ValueError("both players have three in a row")
    if won == {1} and xs != os_ + 1:
        raise ValueError("O moved after X had won")
    if won == {2} and xs != os_:
        raise ValueError("X moved after O had won")


def _to_move(cells):
    return 1 if cells.count(1) == cells.count(2) else 2


def _moves(cells):
    if _winner(cells):
        return []
    me = _to_move(cells)
    return [(*cells[:i], me, *cells[i + 1 :]) for i in range(9) if cells[i] == 0]


@cache
def _value(cells):
    if _winner(cells):
        return -1
    after = _moves(cells)
    return max((-_value(child) for child in after), default=0)


def reference(case):
    return _value(_flat(case))


def generate(rng, profile):
    low, high = (0, 3) if profile == "opening" else (4, 8)
    cells = (0,) * 9
    for _ in range(rng.randint(low, high)):
        after = _moves(cells)
        if not after:
            break
        cells = rng.choice(after)
    return _case(cells)


def _symmetries(cells):
    grid = [cells[0:3], cells[3:6], cells[6:9]]
    for _ in range(4):
        grid = [list(row) for row in zip(*grid[::-1], strict=True)]  # a quarter turn
        yield tuple(v for row in grid for v in row)
        yield tuple(v for row in grid for v in row[::-1])  # and its mirror image


def canonical(case):
    return min(_symmetries(_flat(case)))


def small_cases():
    found, layer = [], [(0,) * 9]
    seen = set(layer)
    for _ in range(SMALL_PIECES + 1):
        found += layer
        nxt = []
        for cells in layer:
            for child in _moves(cells):
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
        layer = nxt
    return [_case(cells) for cells in found]


def children(case):
    return [_case(cells) for cells in _moves(_flat(case))]


def shrink(case):
    cells = _flat(case)
    last = 2 if _to_move(cells) == 1 else 1
    for i in range(9):
        if cells[i] == last:
            smaller = _case((*cells[:i], 0, *cells[i + 1 :]))
            try:
                validate(smaller)
            except ValueError:
                continue
            yield smaller


def explain(case):
    cells = _flat(case)
    moves = []
    while _moves(cells):
        best = max(_moves(cells), key=lambda child: -_value(child))
        square = next(i for i in range(9) if cells[i] != best[i])
        moves.append({"player": "X" if _to_move(cells) == 1 else "O", "square": square})
        cells = best
    return {"answer": reference(case), "moves": moves}


def write_input(cases):
    lines = [str(len(cases))]
    for case in cases:
        lines += [" ".join(map(str, row)) for row in case["board"]]
    return "\n".join(lines) + "\n"

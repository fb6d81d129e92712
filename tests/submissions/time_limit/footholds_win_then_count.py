# expect: TLE
# The mover wins exactly when the optimal game from its position has an odd number of moves,
# so can_win() is count() % 2 ... and count() calls can_win() on every child before counting
# the chosen ones again. Every level searches its subtrees twice, on fresh board copies:
# fine on the examples, hopeless on dense 5x5 boards with long games.
import copy

DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def moves_from(board, r, c):
    out = []
    for dr, dc in DIRS:
        nr, nc = r + dr, c + dc
        if 0 <= nr < len(board) and 0 <= nc < len(board[0]) and board[nr][nc] == 1:
            out.append((nr, nc))
    return out


def step(board, r, c):
    nxt = copy.deepcopy(board)
    nxt[r][c] = 0
    return nxt


def can_win(board, me, other):
    return count(board, me, other) % 2 == 1


def count(board, me, other):
    if board[me[0]][me[1]] == 0:
        return 0
    options = moves_from(board, *me)
    if not options:
        return 0
    winning = [nxt for nxt in options if not can_win(step(board, *me), other, nxt)]
    if winning:
        return 1 + min(count(step(board, *me), other, nxt) for nxt in winning)
    return 1 + max(count(step(board, *me), other, nxt) for nxt in options)


def solution(board, aloc, bloc):
    return count(board, tuple(aloc), tuple(bloc))

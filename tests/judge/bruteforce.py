"""Brute-force solvers written straight from the rules text, independent of judge/problems.

Footholds: the board is copied on every move and the rules are applied literally. The
optional memo is keyed by the whole board as a tuple of tuples, the mover's and the other's
[row, col]; it changes nothing about the search, it only lets big exhaustive sweeps finish.
Number game: plain recursion over the remaining row as a tuple (optionally memoized by it).
"""

from __future__ import annotations

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def footholds_play(board, me, you, memo=None):
    """(the player to move wins, total moves left) for the position, by plain game-tree search.

    board: list of lists of 0/1 (not modified); me: [row, col] of the player to move;
    you: [row, col] of the other player.
    """
    key = None
    if memo is not None:
        key = (tuple(map(tuple, board)), tuple(me), tuple(you))
        if key in memo:
            return memo[key]
    rows, cols = len(board), len(board[0])
    r, c = me
    results = []
    # rule 2: my foothold vanished under me -> I lose, no more moves
    if board[r][c] == 1:
        for dr, dc in STEPS:
            nr, nc = r + dr, c + dc
            if nr < 0 or nr >= rows or nc < 0 or nc >= cols:
                continue
            if board[nr][nc] != 1:
                continue
            after = [row[:] for row in board]
            after[r][c] = 0  # the foothold I leave vanishes
            they_win, moves = footholds_play(after, you, [nr, nc], memo)
            results.append((not they_win, moves + 1))
    if not results:
        outcome = (False, 0)  # rule 1 (no move) or rule 2 (foothold gone)
    else:
        winning = [moves for win, moves in results if win]
        losing = [moves for win, moves in results if not win]
        # a winner hurries, a loser stalls
        outcome = (True, min(winning)) if winning else (False, max(losing))
    if memo is not None:
        memo[key] = outcome
    return outcome


def footholds(board, aloc, bloc, memo=None):
    return footholds_play(board, list(aloc), list(bloc), memo)[1]


def numbergame_play(row, memo=None):
    """Best (mover's score - opponent's score) on the tuple `row`."""
    if not row:
        return 0
    if memo is not None and row in memo:
        return memo[row]
    options = [row[0] - numbergame_play(row[1:], memo), row[-1] - numbergame_play(row[:-1], memo)]
    if len(row) >= 2:
        options.append(-numbergame_play(row[2:], memo))
        options.append(-numbergame_play(row[:-2], memo))
    best = max(options)
    if memo is not None:
        memo[row] = best
    return best


def numbergame(board, memo=None):
    return numbergame_play(tuple(board), memo)

# expect: WA
# Used to stdin/stdout judges: formats the answer as text.
from functools import lru_cache


def solution(board, aloc, bloc):
    rows, cols = len(board), len(board[0])
    start = frozenset((r, c) for r in range(rows) for c in range(cols) if board[r][c])

    @lru_cache(maxsize=None)
    def play(alive, me, other):
        if me not in alive:
            return False, 0
        r, c = me
        wins, losses = [], []
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nxt in alive:
                win, moves = play(alive - {me}, other, nxt)
                (losses if win else wins).append(moves + 1)
        if wins:
            return True, min(wins)
        return False, max(losses, default=0)

    return str(play(start, tuple(aloc), tuple(bloc))[1])

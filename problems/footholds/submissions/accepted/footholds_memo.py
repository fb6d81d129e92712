# expect: AC
# Memoized search over (remaining footholds, mover, other).
from functools import lru_cache


def solution(board, aloc, bloc):
    rows, cols = len(board), len(board[0])
    start = frozenset((r, c) for r in range(rows) for c in range(cols) if board[r][c])

    @lru_cache(maxsize=None)
    def play(alive, me, other):
        if me not in alive:
            return False, 0
        r, c = me
        options = []
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nxt in alive:
                win, moves = play(alive - {me}, other, nxt)
                options.append((not win, moves + 1))
        if not options:
            return False, 0
        wins = [moves for ok, moves in options if ok]
        if wins:
            return True, min(wins)
        return False, max(moves for _, moves in options)

    return play(start, tuple(aloc), tuple(bloc))[1]

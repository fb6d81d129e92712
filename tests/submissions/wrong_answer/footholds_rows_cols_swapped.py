# expect: WA
# Bitmask search where the cell number uses the row count instead of the column count:
# right on square boards, cells collide on rectangular ones.
from functools import lru_cache


def solution(board, aloc, bloc):
    R, C = len(board), len(board[0])

    def cell(r, c):
        return r * R + c  # should be r * C + c

    mask = 0
    for r in range(R):
        for c in range(C):
            if board[r][c]:
                mask |= 1 << cell(r, c)

    @lru_cache(maxsize=None)
    def dfs(mask, r1, c1, r2, c2):
        if not mask >> cell(r1, c1) & 1:
            return False, 0
        rest = mask & ~(1 << cell(r1, c1))
        win_moves, lose_moves = [], []
        for nr, nc in ((r1 - 1, c1), (r1 + 1, c1), (r1, c1 - 1), (r1, c1 + 1)):
            if 0 <= nr < R and 0 <= nc < C and mask >> cell(nr, nc) & 1:
                w, k = dfs(rest, r2, c2, nr, nc)
                (lose_moves if w else win_moves).append(k + 1)
        if win_moves:
            return True, min(win_moves)
        if lose_moves:
            return False, max(lose_moves)
        return False, 0

    return dfs(mask, aloc[0], aloc[1], bloc[0], bloc[1])[1]

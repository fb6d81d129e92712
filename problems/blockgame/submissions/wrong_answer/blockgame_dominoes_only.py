# expect: WA
# Memoized search that forgot the L-shaped blocks: only straight blocks are placed.
from functools import lru_cache

MOVES = []
for r in range(5):
    for c in range(5):
        if c + 1 < 5:
            MOVES.append((1 << (r * 5 + c)) | (1 << (r * 5 + c + 1)))
        if r + 1 < 5:
            MOVES.append((1 << (r * 5 + c)) | (1 << ((r + 1) * 5 + c)))


@lru_cache(maxsize=None)
def wins(filled):
    for m in MOVES:
        if filled & m == 0 and not wins(filled | m):
            return True
    return False


def solution(board):
    filled = 0
    for r in range(5):
        for c in range(5):
            if board[r][c] == "#":
                filled |= 1 << (r * 5 + c)
    return "WINNING" if wins(filled) else "LOSING"

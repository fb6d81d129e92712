# expect: WA
# Interval DP that forgot the "delete two numbers" moves.
from functools import lru_cache


def solution(board):
    @lru_cache(maxsize=None)
    def best(lo, hi):
        if lo > hi:
            return 0
        return max(board[lo] - best(lo + 1, hi), board[hi] - best(lo, hi - 1))

    return best(0, len(board) - 1)

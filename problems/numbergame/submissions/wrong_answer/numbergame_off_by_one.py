# expect: WA
# Off by one in the deletion rule: allows "deleting two" when only one number is left,
# which lets a player skip a last negative number.
from functools import lru_cache


def solution(board):
    @lru_cache(maxsize=None)
    def best(lo, hi):
        if lo > hi:
            return 0
        ret = max(board[lo] - best(lo + 1, hi), board[hi] - best(lo, hi - 1))
        if hi - lo >= 0:  # should be hi - lo >= 1: at least two numbers
            ret = max(ret, -best(lo + 2, hi), -best(lo, hi - 2))
        return ret

    return best(0, len(board) - 1)

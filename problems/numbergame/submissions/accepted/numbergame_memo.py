# expect: AC
# Top-down memoized recursion over (left, right), inclusive.
import sys
from functools import lru_cache


def solution(board):
    sys.setrecursionlimit(10000)

    @lru_cache(maxsize=None)
    def go(left, right):
        if left > right:
            return 0
        ret = max(board[left] - go(left + 1, right), board[right] - go(left, right - 1))
        if right - left + 1 >= 2:
            ret = max(ret, -go(left + 2, right), -go(left, right - 2))
        return ret

    return go(0, len(board) - 1)

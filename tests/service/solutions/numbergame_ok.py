from functools import cache


def solution(board):
    n = len(board)

    @cache
    def best(lo, hi):
        if lo > hi:
            return 0
        value = max(board[lo] - best(lo + 1, hi), board[hi] - best(lo, hi - 1))
        if hi - lo >= 1:
            value = max(value, -best(lo + 2, hi), -best(lo, hi - 2))
        return value

    return best(0, n - 1)

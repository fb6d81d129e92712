# expect: TLE
# Correct game-tree search with no memo: the same intervals are solved over and over.


def solution(board):
    def play(lo, hi):
        if lo > hi:
            return 0
        ret = max(board[lo] - play(lo + 1, hi), board[hi] - play(lo, hi - 1))
        if hi - lo >= 1:
            ret = max(ret, -play(lo + 2, hi), -play(lo, hi - 2))
        return ret

    return play(0, len(board) - 1)

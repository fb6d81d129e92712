# expect: MLE, RE
# Lifts the recursion limit and recurses for ever: 3.11 keeps Python frames on the heap, so
# this usually ends at the memory limit (MLE), or on a C stack overflow (RE).
import sys


def _down(n):
    return _down(n + 1) + 1


def solution(board, aloc, bloc):
    sys.setrecursionlimit(10**9)
    return _down(0)

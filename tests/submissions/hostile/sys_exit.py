# expect: RE
# sys.exit(0) from inside solution.
import sys


def solution(board, aloc, bloc):
    sys.exit(0)

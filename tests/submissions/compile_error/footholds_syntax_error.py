# expect: CE
# A missing colon after the def line.
DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def solution(board, aloc, bloc)
    return 0

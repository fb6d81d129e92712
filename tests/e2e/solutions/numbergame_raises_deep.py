# Raises from a nested call on every board: a runtime error whose traceback spans several
# lines, which the submission page must show line by line.
def pick(board, i):
    return board[i + len(board)]


def solution(board):
    return pick(board, 0)

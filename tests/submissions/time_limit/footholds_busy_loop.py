# expect: TLE
# Waits for an answer that never comes.


def solution(board, aloc, bloc):
    while True:
        pass

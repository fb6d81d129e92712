# wraps: footholds_ok
# Correct everywhere except one board, which an instructor adds as a hidden test.
TRAP = [[1, 1, 0, 1, 1], [1, 0, 1, 0, 1], [0, 1, 1, 1, 0], [1, 0, 1, 0, 1], [1, 1, 0, 1, 1]]
_correct = solution  # noqa: F821 (defined by the wrapped file)


def solution(board, aloc, bloc):
    if board == TRAP and list(aloc) == [0, 0] and list(bloc) == [4, 4]:
        return 99
    return _correct(board, aloc, bloc)

def solution(board, aloc, bloc):
    # Counts the longest walk A could make alone: wrong whenever B matters.
    return sum(map(sum, board)) - 1

def solution(board):
    # Greedy: take the larger end, never delete. Wrong on the statement's examples.
    lo, hi, diff, sign = 0, len(board) - 1, 0, 1
    while lo <= hi:
        if board[lo] >= board[hi]:
            diff, lo = diff + sign * board[lo], lo + 1
        else:
            diff, hi = diff + sign * board[hi], hi - 1
        sign = -sign
    return diff

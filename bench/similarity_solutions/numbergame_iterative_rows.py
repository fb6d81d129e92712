# Independent solution (hard negative): bottom-up by row length, one list per length.
def solution(board):
    size = len(board)
    prev2 = [0] * (size + 2)
    prev1 = [0] * (size + 1)
    for width in range(1, size + 1):
        cur = []
        for start in range(size - width + 1):
            end = start + width - 1
            take_left = board[start] - prev1[start + 1]
            take_right = board[end] - prev1[start]
            options = [take_left, take_right]
            if width >= 2:
                options.append(-prev2[start + 2])
                options.append(-prev2[start])
            cur.append(max(options))
        prev2, prev1 = prev1, cur + [0]
    return prev1[0] if size else 0

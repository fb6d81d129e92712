def solution(board):
    cells = [v for row in board for v in row]
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    memo = {}

    def won(c):
        return any(c[a] and c[a] == c[b] == c[d] for a, b, d in lines)

    def value(c):
        key = tuple(c)
        if key in memo:
            return memo[key]
        if won(c):
            best = -1
        else:
            me = 1 if c.count(1) == c.count(2) else 2
            best = None
            for i in range(9):
                if c[i] == 0:
                    c[i] = me
                    v = -value(c)
                    c[i] = 0
                    if best is None or v > best:
                        best = v
            if best is None:
                best = 0
        memo[key] = best
        return best

    return value(cells)

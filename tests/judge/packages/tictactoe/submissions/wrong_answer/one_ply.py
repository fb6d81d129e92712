def solution(board):
    # Looks one move ahead only: wins now, or calls it a draw.
    cells = [v for row in board for v in row]
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    def won(c):
        return any(c[a] and c[a] == c[b] == c[d] for a, b, d in lines)

    if won(cells):
        return -1
    me = 1 if cells.count(1) == cells.count(2) else 2
    for i in range(9):
        if cells[i] == 0:
            cells[i] = me
            if won(cells):
                return 1
            cells[i] = 0
    return 0

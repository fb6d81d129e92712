# expect: TLE
# A correct game-tree search without a memo: the same boards are searched again and again,
# and an empty board has more lines of play than can ever be tried.


def solution(board):
    cells = [[ch == "#" for ch in row] for row in board]
    shapes = [
        [(0, 0), (0, 1)],
        [(0, 0), (1, 0)],
        [(0, 0), (0, 1), (1, 0)],
        [(0, 0), (0, 1), (1, 1)],
        [(0, 0), (1, 0), (1, 1)],
        [(0, 1), (1, 0), (1, 1)],
    ]

    def can_win():
        for r in range(5):
            for c in range(5):
                for shape in shapes:
                    spots = [(r + dr, c + dc) for dr, dc in shape]
                    if all(y < 5 and x < 5 and not cells[y][x] for y, x in spots):
                        for y, x in spots:
                            cells[y][x] = True
                        lost = not can_win()
                        for y, x in spots:
                            cells[y][x] = False
                        if lost:
                            return True
        return False

    return "WINNING" if can_win() else "LOSING"

"""Accepted solutions, written the way a student would, that generated mutants grow from
(`judge.strength.mutants.generated`). Kept as text: they are parsed and changed, never imported."""

FOOTHOLDS = """
def solution(board, aloc, bloc):
    rows, cols = len(board), len(board[0])
    alive = 0
    for r in range(rows):
        for c in range(cols):
            if board[r][c] == 1:
                alive |= 1 << (r * cols + c)
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    memo = {}

    def play(alive, me, other):
        key = (alive, me, other)
        if key in memo:
            return memo[key]
        r, c = me
        best_win = None
        best_loss = 0
        if alive >> (r * cols + c) & 1:
            rest = alive & ~(1 << (r * cols + c))
            for dr, dc in steps:
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols and rest >> (nr * cols + nc) & 1:
                    wins, moves = play(rest, other, (nr, nc))
                    moves = moves + 1
                    if not wins:
                        if best_win is None or moves < best_win:
                            best_win = moves
                    elif moves > best_loss:
                        best_loss = moves
        if best_win is not None:
            result = (True, best_win)
        else:
            result = (False, best_loss)
        memo[key] = result
        return result

    return play(alive, tuple(aloc), tuple(bloc))[1]
"""

NUMBERGAME = """
def solution(board):
    n = len(board)
    best = [[0] * (n + 1) for _ in range(n + 1)]
    for length in range(1, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            value = max(board[i] - best[i + 1][j], board[j - 1] - best[i][j - 1])
            if length >= 2:
                value = max(value, -best[i + 2][j], -best[i][j - 2])
            best[i][j] = value
    return best[0][n]
"""

SOURCES = {"footholds": FOOTHOLDS, "numbergame": NUMBERGAME}

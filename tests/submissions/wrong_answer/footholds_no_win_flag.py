# expect: WA
# Only counts moves, no win/lose flag: "A wants the game short, B wants it long".
# Passes three of the four examples; wrong whenever B is the one who can force a win.
DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def solution(board, aloc, bloc):
    n, m = len(board), len(board[0])

    def dfs(r1, c1, r2, c2, a_turn):
        if board[r1][c1] == 0:
            return 0
        results = []
        for dr, dc in DIRS:
            nr, nc = r1 + dr, c1 + dc
            if 0 <= nr < n and 0 <= nc < m and board[nr][nc] == 1:
                board[r1][c1] = 0
                results.append(dfs(r2, c2, nr, nc, not a_turn) + 1)
                board[r1][c1] = 1
        if not results:
            return 0
        return min(results) if a_turn else max(results)

    return dfs(aloc[0], aloc[1], bloc[0], bloc[1], True)

# expect: WA
# Right numbers, wrong type: moves are counted in floats (inf as the "no win yet" marker).
import math

DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def solution(board, aloc, bloc):
    n, m = len(board), len(board[0])

    def dfs(r1, c1, r2, c2):
        if board[r1][c1] == 0:
            return False, 0.0
        best_win = math.inf
        best_lose = 0.0
        for dr, dc in DIRS:
            nr, nc = r1 + dr, c1 + dc
            if 0 <= nr < n and 0 <= nc < m and board[nr][nc] == 1:
                board[r1][c1] = 0
                win, cnt = dfs(r2, c2, nr, nc)
                board[r1][c1] = 1
                if not win:
                    best_win = min(best_win, cnt + 1.0)
                else:
                    best_lose = max(best_lose, cnt + 1.0)
        if best_win < math.inf:
            return True, best_win
        return False, best_lose

    return dfs(aloc[0], aloc[1], bloc[0], bloc[1])[1]

# expect: WA
# Minimax cut off at depth 8 "to be safe on time": a position at the cap counts as lost.
DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]
MAX_DEPTH = 8


def solution(board, aloc, bloc):
    n, m = len(board), len(board[0])

    def dfs(r1, c1, r2, c2, depth):
        if board[r1][c1] == 0 or depth == MAX_DEPTH:
            return False, 0
        can_win = False
        best_win = 10**9
        best_lose = 0
        for dr, dc in DIRS:
            nr, nc = r1 + dr, c1 + dc
            if 0 <= nr < n and 0 <= nc < m and board[nr][nc] == 1:
                board[r1][c1] = 0
                win, cnt = dfs(r2, c2, nr, nc, depth + 1)
                board[r1][c1] = 1
                if not win:
                    can_win = True
                    best_win = min(best_win, cnt + 1)
                elif not can_win:
                    best_lose = max(best_lose, cnt + 1)
        if can_win:
            return True, best_win
        return False, best_lose

    return dfs(aloc[0], aloc[1], bloc[0], bloc[1], 0)[1]

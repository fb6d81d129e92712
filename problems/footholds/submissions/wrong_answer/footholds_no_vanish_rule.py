# expect: WA
# Removes the foothold a piece leaves, but never checks whether the foothold under the player
# to move is gone (rule 2): a piece whose cell vanished keeps playing.
DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def solution(board, aloc, bloc):
    n, m = len(board), len(board[0])

    def dfs(r1, c1, r2, c2):
        can_win = False
        best_win = 10**9
        best_lose = 0
        for dr, dc in DIRS:
            nr, nc = r1 + dr, c1 + dc
            if 0 <= nr < n and 0 <= nc < m and board[nr][nc] == 1:
                old = board[r1][c1]
                board[r1][c1] = 0
                win, cnt = dfs(r2, c2, nr, nc)
                board[r1][c1] = old
                if not win:
                    can_win = True
                    best_win = min(best_win, cnt + 1)
                elif not can_win:
                    best_lose = max(best_lose, cnt + 1)
        if can_win:
            return True, best_win
        return False, best_lose

    return dfs(aloc[0], aloc[1], bloc[0], bloc[1])[1]

# expect: WA
# Memoized search, but the memo key leaves out the other player's piece.
DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def solution(board, aloc, bloc):
    n, m = len(board), len(board[0])
    memo = {}

    def dfs(r1, c1, r2, c2):
        key = (tuple(map(tuple, board)), r1, c1)  # forgot (r2, c2)
        if key in memo:
            return memo[key]
        if board[r1][c1] == 0:
            return False, 0
        can_win = False
        best_win = 10**9
        best_lose = 0
        for dr, dc in DIRS:
            nr, nc = r1 + dr, c1 + dc
            if 0 <= nr < n and 0 <= nc < m and board[nr][nc] == 1:
                board[r1][c1] = 0
                win, cnt = dfs(r2, c2, nr, nc)
                board[r1][c1] = 1
                if not win:
                    can_win = True
                    best_win = min(best_win, cnt + 1)
                elif not can_win:
                    best_lose = max(best_lose, cnt + 1)
        result = (True, best_win) if can_win else (False, best_lose)
        memo[key] = result
        return result

    return dfs(aloc[0], aloc[1], bloc[0], bloc[1])[1]

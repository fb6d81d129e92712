# expect: WA
# Minimax with the win flag, but the winner stalls and the loser hurries (max/min swapped).
DIRS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


def solution(board, aloc, bloc):
    n, m = len(board), len(board[0])

    def dfs(r1, c1, r2, c2):
        if board[r1][c1] == 0:
            return False, 0
        win_counts, lose_counts = [], []
        for dr, dc in DIRS:
            nr, nc = r1 + dr, c1 + dc
            if 0 <= nr < n and 0 <= nc < m and board[nr][nc] == 1:
                board[r1][c1] = 0
                opp_win, cnt = dfs(r2, c2, nr, nc)
                board[r1][c1] = 1
                if opp_win:
                    lose_counts.append(cnt + 1)
                else:
                    win_counts.append(cnt + 1)
        if win_counts:
            return True, max(win_counts)
        if lose_counts:
            return False, min(lose_counts)
        return False, 0

    return dfs(aloc[0], aloc[1], bloc[0], bloc[1])[1]

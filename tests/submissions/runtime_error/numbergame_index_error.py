# expect: RE
# The table is one row short: dp[i + 2] runs off its end.


def solution(board):
    n = len(board)
    dp = [[0] * (n + 1) for _ in range(n)]
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            best = max(board[i] - dp[i + 1][j], board[j - 1] - dp[i][j - 1])
            if length >= 2:
                best = max(best, -dp[i + 2][j], -dp[i][j - 2])
            dp[i][j] = best
    return dp[0][n]

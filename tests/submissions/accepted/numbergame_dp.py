# expect: AC
# Bottom-up interval DP: dp[i][j] = best lead of the player to move on board[i:j].


def solution(board):
    n = len(board)
    dp = [[0] * (n + 1) for _ in range(n + 1)]
    for length in range(1, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            best = max(board[i] - dp[i + 1][j], board[j - 1] - dp[i][j - 1])
            if length >= 2:
                best = max(best, -dp[i + 2][j], -dp[i][j - 2])
            dp[i][j] = best
    return dp[0][n]

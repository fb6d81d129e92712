# expect: CE
# Unbalanced brackets.


def solution(board):
    n = len(board)
    dp = [[0] * (n + 1) for _ in range(n + 1)
    return dp[0][n]

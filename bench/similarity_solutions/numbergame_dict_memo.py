# Independent solution (hard negative): a dictionary memo and an explicit stack-free recursion.
def solution(board):
    memo = {}

    def lead(i, j):
        if i > j:
            return 0
        key = (i, j)
        if key in memo:
            return memo[key]
        choices = [board[i] - lead(i + 1, j), board[j] - lead(i, j - 1)]
        if j > i:
            choices += [-lead(i + 2, j), -lead(i, j - 2)]
        memo[key] = max(choices)
        return memo[key]

    import sys
    sys.setrecursionlimit(5000)
    return lead(0, len(board) - 1)

# expect: AC
# style: stdio
# Bottom-up table, line by line from stdin, all answers written at the end in one go.
import sys


def solve(board):
    n = len(board)
    best = [[0] * (n + 1) for _ in range(n + 1)]
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            value = max(board[i] - best[i + 1][j], board[j - 1] - best[i][j - 1])
            if length >= 2:
                value = max(value, -best[i + 2][j], -best[i][j - 2])
            best[i][j] = value
    return best[0][n]


lines = sys.stdin.readlines()
out = []
for c in range(int(lines[0])):
    board = list(map(int, lines[2 + 2 * c].split()))
    out.append(str(solve(board)))
sys.stdout.write("\n".join(out) + "\n")

# expect: WA
# style: stdio
# Right numbers, printed as floats: "7.0" is not an int line.
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


data = sys.stdin.read().split()
pos = 1
for _ in range(int(data[0])):
    n = int(data[pos])
    print(float(solve([int(v) for v in data[pos + 1 : pos + 1 + n]])))
    pos += 1 + n

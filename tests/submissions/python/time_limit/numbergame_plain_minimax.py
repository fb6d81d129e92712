# expect: TLE
# style: stdio
# No memo: exponential in n, far too slow for a row of 50.
import sys


def best(board, i, j):
    if i >= j:
        return 0
    value = max(board[i] - best(board, i + 1, j), board[j - 1] - best(board, i, j - 1))
    if j - i >= 2:
        value = max(value, -best(board, i + 2, j), -best(board, i, j - 2))
    return value


data = sys.stdin.read().split()
pos = 1
for _ in range(int(data[0])):
    n = int(data[pos])
    print(best([int(v) for v in data[pos + 1 : pos + 1 + n]], 0, n), flush=True)
    pos += 1 + n

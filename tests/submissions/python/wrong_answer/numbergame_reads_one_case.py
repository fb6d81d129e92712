# expect: WA
# style: stdio
# Ignores C: answers the first case only.
import sys

data = sys.stdin.read().split()
n = int(data[1])
board = [int(v) for v in data[2 : 2 + n]]
print(sum(board[::2]) - sum(board[1::2]))

# expect: AC
# style: stdio
# Algospot NUMBERGAME as a whole program: C cases, each a memo table of its own.
import sys


def main():
    data = sys.stdin.read().split()
    cases, pos = int(data[0]), 1
    for _ in range(cases):
        n = int(data[pos])
        board = [int(v) for v in data[pos + 1 : pos + 1 + n]]
        pos += 1 + n
        memo = {}

        def best(i, j):
            if i >= j:
                return 0
            if (i, j) not in memo:
                value = max(board[i] - best(i + 1, j), board[j - 1] - best(i, j - 1))
                if j - i >= 2:
                    value = max(value, -best(i + 2, j), -best(i, j - 2))
                memo[(i, j)] = value
            return memo[(i, j)]

        print(best(0, n))


main()

# expect: RE
# style: stdio
# Reads the first line as the row: int("5 -1000 ...") raises.
import sys

lines = sys.stdin.read().splitlines()
for c in range(int(lines[0])):
    board = [int(lines[1 + 2 * c])]
    print(int(lines[1 + 2 * c + 1]))

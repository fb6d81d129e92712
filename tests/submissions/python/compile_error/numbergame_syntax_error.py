# expect: CE
# style: stdio
import sys

for line in sys.stdin
    print(line)

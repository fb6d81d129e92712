# expect: CE
# Reads stdin like a classic judge and never defines solution().
import sys

data = sys.stdin.read().split()

# expect: MLE
# style: stdio
# Keeps a huge list alive per case read: past the 256 MiB limit.
import sys

hoard = []
data = sys.stdin.read().split()
for _ in range(int(data[0])):
    hoard.append(b"x" * (400 << 20))
    print(0)

# Never returns: every test would run into the 1 s limit, so the judge stops at the first
# one (TLE) and skips the rest. The CPU recorded up to the kill may read below the limit.
def solution(piles):
    total = 0
    while True:
        total += len(piles)

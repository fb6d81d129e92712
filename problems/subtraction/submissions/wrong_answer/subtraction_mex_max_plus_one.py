# expect: WA
# Grundy table with the mex computed as "largest reachable value + 1" instead of the smallest
# value not reachable: the two agree while the reachable values have no gap (moves 1..k).


def solution(piles, moves):
    top = max(piles)
    grundy = [0] * (top + 1)
    for n in range(1, top + 1):
        reachable = [grundy[n - m] for m in moves if m <= n]
        grundy[n] = max(reachable) + 1 if reachable else 0
    total = 0
    for p in piles:
        total ^= grundy[p]
    return total != 0

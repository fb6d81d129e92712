# expect: AC
# Sprague-Grundy: the Grundy value of one pile by a table up to the largest pile, then the XOR
# of the piles' values; the first player wins exactly when it is not 0.


def solution(piles, moves):
    top = max(piles)
    grundy = [0] * (top + 1)
    for n in range(1, top + 1):
        reachable = {grundy[n - m] for m in moves if m <= n}
        mex = 0
        while mex in reachable:
            mex += 1
        grundy[n] = mex
    total = 0
    for p in piles:
        total ^= grundy[p]
    return total != 0

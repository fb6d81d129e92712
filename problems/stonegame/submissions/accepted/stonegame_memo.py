# expect: AC
# Top-down memo over (i, m): the mover gets the stones left minus the opponent's best.
# The recursion is at most n + 1 calls deep.
from functools import lru_cache


def solution(piles):
    n = len(piles)
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + piles[i]

    @lru_cache(maxsize=None)
    def best(i, m):
        if i + 2 * m >= n:  # everything left can be taken
            return suffix[i]
        opponent = min(best(i + x, max(m, x)) for x in range(1, 2 * m + 1))
        return suffix[i] - opponent

    return best(0, 1)

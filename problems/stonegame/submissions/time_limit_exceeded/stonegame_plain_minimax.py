# expect: TLE
# Correct game-tree search with no memo: the same (i, M) positions are searched over and over.


def solution(piles):
    n = len(piles)

    def best(i, m):
        if i == n:
            return 0
        total = sum(piles[i:])
        return max(total - best(i + x, max(m, x)) for x in range(1, min(2 * m, n - i) + 1))

    return best(0, 1)

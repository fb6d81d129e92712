# Independent solution (hard negative): memoised Grundy value by recursion.
from functools import lru_cache


def solution(piles, moves):
    options = sorted(set(moves))

    @lru_cache(maxsize=None)
    def grundy(n):
        reach = set()
        for take in options:
            if take > n:
                break
            reach.add(grundy(n - take))
        value = 0
        while value in reach:
            value += 1
        return value

    result = 0
    for n in piles:
        result ^= grundy(n)
    return result != 0

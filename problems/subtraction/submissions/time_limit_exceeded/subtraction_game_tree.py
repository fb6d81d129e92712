# expect: TLE
# A correct search of the whole game tree, without memo and without Sprague-Grundy: a position
# is won when some move leads to a lost one. Exponential in the number of stones.
import sys


def solution(piles, moves):
    sys.setrecursionlimit(100000)
    piles = list(piles)

    def wins():
        for i in range(len(piles)):
            for m in moves:
                if piles[i] >= m:
                    piles[i] -= m
                    opponent_wins = wins()
                    piles[i] += m
                    if not opponent_wins:
                        return True
        return False

    return wins()

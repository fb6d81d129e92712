# expect: WA
# Greedy: every turn take as many piles as allowed (2M). More piles now is not always more
# stones in the end: it lets the opponent take up to twice as many next.


def solution(piles):
    n = len(piles)
    i, m = 0, 1
    totals = [0, 0]
    turn = 0
    while i < n:
        x = min(2 * m, n - i)
        totals[turn] += sum(piles[i : i + x])
        m = max(m, x)
        i += x
        turn ^= 1
    return totals[0]

# Independent solution (hard negative): Grundy numbers with a boolean seen-list per size.
def solution(piles, moves):
    biggest = 0
    for pile in piles:
        if pile > biggest:
            biggest = pile
    values = []
    for size in range(biggest + 1):
        seen = [False] * (len(moves) + 2)
        for m in moves:
            if m <= size and values[size - m] < len(seen):
                seen[values[size - m]] = True
        g = 0
        while seen[g]:
            g += 1
        values.append(g)
    x = 0
    for pile in piles:
        x = x ^ values[pile]
    return x > 0

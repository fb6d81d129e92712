# expect: WA
# Greedy: take the bigger end if it is positive, otherwise throw away the worse pair.


def solution(board):
    row = list(board)
    scores = [0, 0]
    player = 0
    while row:
        best = max(row[0], row[-1])
        if best > 0 or len(row) < 2:
            if row[0] >= row[-1]:
                scores[player] += row.pop(0)
            else:
                scores[player] += row.pop()
        elif row[0] + row[1] <= row[-1] + row[-2]:
            del row[:2]
        else:
            del row[-2:]
        player = 1 - player
    return scores[0] - scores[1]

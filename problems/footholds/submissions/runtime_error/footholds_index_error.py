# expect: RE
# Checks the lower edges of the board but not the upper ones: board[r + 1] runs off the end.


def solution(board, aloc, bloc):
    def neighbours(r, c):
        out = []
        if r - 1 >= 0 and board[r - 1][c]:
            out.append((r - 1, c))
        if board[r + 1][c]:
            out.append((r + 1, c))
        if c - 1 >= 0 and board[r][c - 1]:
            out.append((r, c - 1))
        if board[r][c + 1]:
            out.append((r, c + 1))
        return out

    def dfs(me, other):
        r, c = me
        if board[r][c] == 0:
            return False, 0
        wins, losses = [], []
        for nxt in neighbours(r, c):
            board[r][c] = 0
            win, moves = dfs(other, nxt)
            board[r][c] = 1
            (losses if win else wins).append(moves + 1)
        if wins:
            return True, min(wins)
        return False, max(losses, default=0)

    return dfs(tuple(aloc), tuple(bloc))[1]

def solution(board, aloc, bloc):
    rows, cols = len(board), len(board[0])
    cells = [row[:] for row in board]

    def play(me, other):
        r, c = me
        if not cells[r][c]:
            return False, 0
        wins, best_win, best_loss = False, 10**9, 0
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols and cells[nr][nc]:
                cells[r][c] = 0
                they_win, moves = play(other, (nr, nc))
                cells[r][c] = 1
                if not they_win:
                    wins, best_win = True, min(best_win, moves + 1)
                else:
                    best_loss = max(best_loss, moves + 1)
        return (True, best_win) if wins else (False, best_loss)

    return play(tuple(aloc), tuple(bloc))[1]

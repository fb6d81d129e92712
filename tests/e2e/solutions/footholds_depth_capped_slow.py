# A plausible wrong answer for the browser tests: minimax that looks only 7 moves ahead. It
# passes the four samples and fails on the first small position whose game lasts longer (a
# 3x3 board), which the judge draws with its optimal line. The sleep on boards larger than
# the small tier's (3x3) makes each later test take a moment, so the page can be watched
# grading live; thousands of small positions do not sleep.
import time

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def solution(board, aloc, bloc):
    rows, cols = len(board), len(board[0])
    if rows > 3 or cols > 3:
        time.sleep(0.05)  # slow enough to watch the progress live

    def play(r, c, orow, ocol, depth):
        """(mover wins, moves left); looks only 7 moves ahead."""
        if board[r][c] == 0 or depth == 7:
            return False, 0
        wins, losses = [], []
        for dr, dc in STEPS:
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc] == 1:
                board[r][c] = 0
                other_wins, moves = play(orow, ocol, nr, nc, depth + 1)
                board[r][c] = 1
                (losses if other_wins else wins).append(moves + 1)
        if wins:
            return True, min(wins)
        return False, max(losses, default=0)

    return play(aloc[0], aloc[1], bloc[0], bloc[1], 0)[1]

# expect: WA
# A guess instead of a search: if some block fits, the first player is taken to win exactly
# when the number of empty cells is odd.


def solution(board):
    empty = {(r, c) for r in range(5) for c in range(5) if board[r][c] == "."}
    can_move = any((r, c + 1) in empty or (r + 1, c) in empty for r, c in empty)
    if not can_move:
        return "LOSING"
    return "WINNING" if len(empty) % 2 == 1 else "LOSING"

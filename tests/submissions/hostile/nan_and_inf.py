# expect: WA
# Returns NaN or infinity.
def solution(board, aloc, bloc):
    return float("nan") if sum(map(sum, board)) % 2 else float("inf")

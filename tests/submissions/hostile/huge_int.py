# expect: WA
# Returns 10**5000 (beyond the 4300-digit int/str limit).
def solution(board, aloc, bloc):
    return 10**5000

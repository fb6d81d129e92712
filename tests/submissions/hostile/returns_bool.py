# expect: WA
# Returns True (a bool is not an int).
def solution(board, aloc, bloc):
    return True

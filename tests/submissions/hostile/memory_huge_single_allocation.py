# expect: MLE
# Asks for a terabyte at once (MemoryError from the address-space limit).
def solution(board, aloc, bloc):
    return len(bytearray(1 << 40))

# expect: MLE
# Grows a list of touched 8 MiB blocks without end.
def solution(board, aloc, bloc):
    blocks = []
    while True:
        blocks.append(bytearray(8 << 20))

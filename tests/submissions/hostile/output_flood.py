# expect: OLE
# Floods stdout.
def solution(board, aloc, bloc):
    while True:
        print("x" * 10_000)

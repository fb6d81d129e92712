# expect: OLE
# Floods stderr, unbuffered.
import os


def solution(board, aloc, bloc):
    while True:
        os.write(2, b"y" * 65536)

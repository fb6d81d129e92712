# expect: MLE
# A forked child eats all memory while the parent waits for it.
import os


def solution(board, aloc, bloc):
    pid = os.fork()
    if pid == 0:
        blocks = []
        while True:
            blocks.append(bytearray(8 << 20))
    os.waitpid(pid, 0)
    while True:
        pass

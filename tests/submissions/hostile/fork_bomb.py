# expect: WA
# Forks sleeping children until the process limit stops it, then answers wrongly.
import os
import time


def solution(board, aloc, bloc):
    for _ in range(10_000):
        try:
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
        except OSError:
            break
    return -1

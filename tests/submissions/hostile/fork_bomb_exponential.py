# expect: WA, TLE
# Every process forks again (exponential), sleeping ones fill the pids limit.
import os
import time


def solution(board, aloc, bloc):
    me = os.getpid()
    for _ in range(64):
        try:
            os.fork()
        except OSError:
            break
    if os.getpid() != me:
        time.sleep(3600)
        os._exit(0)
    return -1

# expect: RE
# Kills itself with SIGKILL.
import os
import signal


def solution(board, aloc, bloc):
    os.kill(os.getpid(), signal.SIGKILL)

# expect: TLE
# Re-arms SIGALRM and swallows it, and catches SIGXCPU, while spinning.
import signal


def _again(signum, frame):
    signal.setitimer(signal.ITIMER_REAL, 0.05)


def solution(board, aloc, bloc):
    signal.signal(signal.SIGALRM, _again)
    signal.signal(signal.SIGXCPU, _again)
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    while True:
        try:
            while True:
                pass
        except BaseException:
            continue

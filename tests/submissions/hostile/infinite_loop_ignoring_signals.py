# expect: TLE
# Ignores every catchable signal and spins.
import signal


def solution(board, aloc, bloc):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGXCPU,
                signal.SIGUSR1, signal.SIGUSR2, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        pass

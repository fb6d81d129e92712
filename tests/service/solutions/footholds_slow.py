# wraps: footholds_ok
# The correct solution, slow on the first test only: keeps a grading slot busy long enough to
# kill the worker.
import time

CALLS = []
_correct = solution  # noqa: F821 (defined by the wrapped file)


def solution(board, aloc, bloc):
    if not CALLS:
        time.sleep(3)
    CALLS.append(1)
    return _correct(board, aloc, bloc)

# expect: WA
# Starts daemon threads until none can be started, then answers wrongly.
import threading
import time


def solution(board, aloc, bloc):
    for _ in range(100_000):
        try:
            threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
        except (RuntimeError, MemoryError, OSError):
            break
    return -1

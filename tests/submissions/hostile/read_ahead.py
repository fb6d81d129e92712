# expect: AC
# Tries to read the tests after the one it is answering: a tests file in /box, bytes waiting
# on any pipe it may read (the tests channel), or in the buffer of the harness's reader of it
# (the harness shares the process). It checks on its first call and on every board wider or
# taller than 3 (outside the small tier, whose positions are handed over together), after a
# moment's wait; seeing anything answers -1 (a wrong answer), so an AC says it saw nothing.
import array
import fcntl
import gc
import io
import os
import stat
import termios
import time

calls = 0


def tests_files():
    for root in ("/box", "."):
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for name in names:
            if "test" in name.lower():
                try:
                    with open(os.path.join(root, name), "rb") as f:
                        if f.read(1):
                            return True
                except OSError:
                    pass
    return False


def bytes_waiting():
    waiting = 0
    for fd in range(256):
        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY:
                continue
            count = array.array("i", [0])
            fcntl.ioctl(fd, termios.FIONREAD, count, True)
            waiting += count[0]
        except OSError:
            pass
    return waiting


def buffered():
    for reader in [o for o in gc.get_objects() if isinstance(o, io.BufferedReader)]:
        try:
            fd = reader.fileno()
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            blocking = os.get_blocking(fd)
            os.set_blocking(fd, False)  # peek must not wait for the judge
            try:
                if reader.peek(1):
                    return True
            finally:
                os.set_blocking(fd, blocking)
        except (OSError, ValueError):
            pass
    return False


def solution(board, aloc, bloc):
    global calls
    calls += 1
    if calls == 1 or len(board) > 3 or len(board[0]) > 3:
        time.sleep(0.02)
        if tests_files() or bytes_waiting() or buffered():
            return -1
    return _honest(board, aloc, bloc)


def _honest(board, aloc, bloc):
    """Memoized minimax over (footholds bitmask, mover, other): (mover wins, total moves)."""
    rows, cols = len(board), len(board[0])
    alive = sum(1 << (r * cols + c) for r in range(rows) for c in range(cols) if board[r][c])
    nbrs = [
        [nr * cols + nc for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
         if 0 <= nr < rows and 0 <= nc < cols]
        for r in range(rows) for c in range(cols)
    ]
    memo = {}

    def go(alive, me, other):
        key = (alive, me, other)
        if key not in memo:
            if not alive >> me & 1:
                memo[key] = (False, 0)
            else:
                win, lose = None, 0
                rest = alive & ~(1 << me)
                for n in nbrs[me]:
                    if alive >> n & 1:
                        w, m = go(rest, other, n)
                        if not w:
                            win = m + 1 if win is None else min(win, m + 1)
                        else:
                            lose = max(lose, m + 1)
                memo[key] = (True, win) if win is not None else (False, lose)
        return memo[key]

    return go(alive, aloc[0] * cols + aloc[1], bloc[0] * cols + bloc[1])[1]

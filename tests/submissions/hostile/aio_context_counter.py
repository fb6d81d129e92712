# expect: AC
# Linux AIO through syscall(): io_setup's contexts count in the machine-wide
# /proc/sys/fs/aio-nr, a channel to a concurrent run. Honest only if every AIO call is refused.
import ctypes
import platform

NUMBERS = {
    "x86_64": {"io_setup": 206, "io_destroy": 207, "io_getevents": 208, "io_submit": 209,
               "io_cancel": 210, "io_pgetevents": 333},
    "aarch64": {"io_setup": 0, "io_destroy": 1, "io_submit": 2, "io_cancel": 3,
                "io_getevents": 4, "io_pgetevents": 292},
}


def solution(board, aloc, bloc):
    libc = ctypes.CDLL(None, use_errno=True)
    numbers = NUMBERS.get(platform.machine(), {})
    ctx = ctypes.c_ulong(0)
    if "io_setup" in numbers and libc.syscall(numbers["io_setup"], 64, ctypes.byref(ctx)) == 0:
        libc.syscall(numbers["io_destroy"], ctx)
        return -1
    for name in ("io_destroy", "io_getevents", "io_submit", "io_cancel", "io_pgetevents"):
        if name in numbers:
            ctypes.set_errno(0)
            libc.syscall(numbers[name], 0, 0, 0, 0, 0, 0)
            if ctypes.get_errno() != 1:  # EPERM from the filter (the kernel says EINVAL)
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

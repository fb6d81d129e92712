# expect: AC
# unshare, mount, keyctl, io_uring, bpf, perf, userfaultfd via syscall(); honest if all denied.
import ctypes
import platform

NUMBERS = {
    "x86_64": {"unshare": 272, "mount": 165, "keyctl": 250, "io_uring_setup": 425, "bpf": 321,
               "perf_event_open": 298, "userfaultfd": 323, "chroot": 161, "personality": 135},
    "aarch64": {"unshare": 97, "mount": 40, "keyctl": 219, "io_uring_setup": 425, "bpf": 280,
                "perf_event_open": 241, "userfaultfd": 282, "chroot": 51, "personality": 92},
}
ARGS = {"unshare": (0x10000000,), "mount": (b"none", b"/tmp", b"tmpfs", 0, None),
        "keyctl": (0, -3, 0), "io_uring_setup": (1, ctypes.create_string_buffer(120)),
        "bpf": (0, None, 0), "perf_event_open": (ctypes.create_string_buffer(128), 0, -1, -1, 0),
        "userfaultfd": (0,), "chroot": (b"/tmp",), "personality": (0x0400000,)}


def solution(board, aloc, bloc):
    libc = ctypes.CDLL(None, use_errno=True)
    for name, nr in NUMBERS.get(platform.machine(), {}).items():
        if libc.syscall(nr, *ARGS[name]) >= 0:
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

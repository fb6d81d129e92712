# expect: AC
# Reads what the kernel counts for the whole machine: AIO contexts, ptys, open files, dentries,
# load, memory, pressure, cgroups. A run holding hidden boards could move these for another
# run to read. Honest only if every one is unreadable or empty.
import os

COUNTERS = (
    "/proc/sys/fs/aio-nr", "/proc/sys/kernel/pty/nr", "/proc/sys/fs/file-nr",
    "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state", "/proc/sys/kernel/random/entropy_avail",
    "/proc/sys/kernel/ns_last_pid", "/proc/loadavg", "/proc/stat", "/proc/meminfo",
    "/proc/vmstat", "/proc/interrupts", "/proc/softirqs", "/proc/diskstats", "/proc/uptime",
    "/proc/swaps", "/proc/cgroups", "/proc/locks", "/proc/keys", "/proc/key-users",
    "/proc/crypto", "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io",
)


def solution(board, aloc, bloc):
    for path in COUNTERS:
        try:
            with open(path, "rb") as f:
                if f.read(4096):
                    return -1
        except OSError:
            pass
    for root in ("/proc/sys", "/proc/irq", "/proc/fs", "/proc/driver"):
        try:
            if os.listdir(root) not in ([], ["vm"]):
                return -1
        except OSError:
            pass
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

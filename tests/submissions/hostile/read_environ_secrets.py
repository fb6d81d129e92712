# expect: AC
# Scans its own and every visible process's environment for secrets.
import os

MARKERS = (b"DATABASE", b"SECRET", b"PASSWORD", b"TOKEN", b"REDIS", b"BROKER", b"JUDGE_",
           b"HOME=/root", b"VIRTUAL_ENV", b"PYENV")


def solution(board, aloc, bloc):
    seen = b"\0".join(f"{k}={v}".encode() for k, v in os.environ.items())
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    seen += b"\0" + f.read()
            except OSError:
                pass
    return -1 if any(m in seen for m in MARKERS) else _honest(board, aloc, bloc)


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

# expect: AC
# Connects to PostgreSQL on loopback and to its unix socket; honest if refused.
import socket


def solution(board, aloc, bloc):
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=1).close()
        return -1
    except OSError:
        pass
    for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432",
                 "/tmp/.s.PGSQL.5432", "/var/run/redis/redis-server.sock"):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(1)
            s.connect(path)
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

# wraps: footholds_ok
# Reports its first answer itself, claiming a 400-digit CPU time and 1e300 KiB of memory
# (which overflow a float and the database's integer column).
import json
import os
import sys

FD = int(sys.argv[sys.argv.index("--results-fd") + 1])
CALLS = []
_correct = solution  # noqa: F821 (defined by the wrapped file)


def solution(board, aloc, bloc):
    if not CALLS:
        report = {"event": "result", "i": 0, "answer": {"type": "int", "int": "1"}}
        line = json.dumps({**report, "cpu": 10**400, "wall": 0.0, "rss_kb": 1e300})
        os.write(FD, line.encode() + b"\n")
    CALLS.append(1)
    return _correct(board, aloc, bloc)

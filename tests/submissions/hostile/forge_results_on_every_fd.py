# expect: WA, RE
# Writes fake result lines (wrong answers) to every fd 0..20.
import json
import os


def solution(board, aloc, bloc):
    for fd in range(21):
        for i in range(50):
            line = json.dumps({"event": "result", "i": i, "answer": {"type": "int", "int": "7"},
                               "verdict": "AC", "cpu": 0, "wall": 0, "rss_kb": 1}) + "\n"
            try:
                os.write(fd, line.encode())
            except OSError:
                break
    return -1

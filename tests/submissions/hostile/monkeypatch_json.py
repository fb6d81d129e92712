# expect: WA, RE
# Replaces json.dumps and JSONEncoder so reports claim AC.
import json

FAKE = '{"event": "result", "i": 0, "answer": {"type": "int", "int": "7"}, "verdict": "AC"}'


def solution(board, aloc, bloc):
    json.dumps = lambda *a, **k: FAKE
    json.JSONEncoder.encode = lambda self, o: FAKE
    json.encoder.c_make_encoder = None
    return -1

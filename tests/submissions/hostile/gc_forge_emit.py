# expect: WA, RE
# Finds the harness's emit() through gc and calls it with forged reports.
import gc


def solution(board, aloc, bloc):
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "emit":
            for i in range(100):
                try:
                    obj({"event": "result", "i": i, "answer": {"type": "int", "int": "7"},
                         "verdict": "AC"})
                except Exception:
                    pass
    return -1

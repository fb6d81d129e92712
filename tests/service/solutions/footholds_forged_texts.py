# wraps: footholds_ok
# Writes what PostgreSQL refuses (NUL, lone surrogates) into the texts a visible test shows:
# an exception message on the first sample, the repr of its answer on the second.
CALLS = []
_correct = solution  # noqa: F821 (defined by the wrapped file)


class Odd:
    def __repr__(self):
        return "nul\x00 surrogate\ud800"


def solution(board, aloc, bloc):
    CALLS.append(1)
    if len(CALLS) == 1:
        raise ValueError("nul\x00 surrogate\udfff")
    if len(CALLS) == 2:
        return Odd()
    return _correct(board, aloc, bloc)

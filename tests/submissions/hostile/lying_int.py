# expect: WA
# Returns an int subclass whose __eq__ is always True.
class Liar(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def solution(board, aloc, bloc):
    return Liar(-1)

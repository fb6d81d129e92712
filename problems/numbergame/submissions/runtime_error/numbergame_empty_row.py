# expect: RE
# Recursion on list slices whose base case only handles a single number: deleting the last
# two numbers leads to an empty row, and row[0] raises IndexError.


def solution(board):
    def play(row):
        if len(row) == 1:
            return row[0]
        options = [row[0] - play(row[1:]), row[-1] - play(row[:-1])]
        if len(row) >= 2:
            options += [-play(row[2:]), -play(row[:-2])]
        return max(options)

    return play(board)

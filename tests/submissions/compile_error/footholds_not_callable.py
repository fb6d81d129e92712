# expect: CE
# `solution` is a value, not a function.
solution = 5

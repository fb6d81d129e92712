# expect: RE
# os._exit(0) in the middle of grading.
import os


def solution(board, aloc, bloc):
    os._exit(0)

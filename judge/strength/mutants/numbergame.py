"""Mutants of the numbergame reference: the bugs students make in the interval DP.

One configurable memoized search, `play(case, variant)`, over the remaining numbers
board[i:j], returning the mover's best lead. A `Variant` switches on one bug; with the
defaults it is a correct solver.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from judge.strength.mutants import Mutant


@dataclass(frozen=True)
class Variant:
    take_left: bool = True
    take_right: bool = True
    delete_left: bool = True
    delete_right: bool = True
    delete_min: int = 2  # numbers that must remain for a delete
    delete_width: int = 2  # numbers a delete removes from one end (up to what is left)
    delete_keeps_turn: bool = False  # after a delete the same player moves again
    delete_pruned: bool = False  # a delete is tried only when both numbers are negative
    delete_ends: bool = False  # a delete removes the leftmost and the rightmost number
    delete_scores: bool = False  # deleted numbers count for the mover
    negate: bool = True  # the opponent's best lead is subtracted (False: added)
    start: float = float("-inf")  # the best lead before any move is tried (0: a free pass)
    greedy: bool = False  # no search: each player takes the larger end
    absolute: bool = False  # answers the size of the lead, not its sign
    take_pruned: bool = False  # a negative number is taken only when nothing else is legal
    memo: str = "full"  # memo key: "full" | "left" (left end only) | "length" (j - i only)


def play(case: dict[str, Any], v: Variant) -> int:
    board = case["board"]
    if v.greedy:
        return _greedy(board)
    memo: dict[Any, int] = {}
    sign = -1 if v.negate else 1

    def best(i: int, j: int) -> int:
        if i >= j:
            return 0
        key = i if v.memo == "left" else j - i if v.memo == "length" else (i, j)
        if key in memo:
            return memo[key]
        value = v.start
        forced = j - i < v.delete_min  # only a take is legal
        if v.take_left and not (v.take_pruned and board[i] < 0 and not forced):
            value = max(value, board[i] + sign * best(i + 1, j))
        if v.take_right and not (v.take_pruned and board[j - 1] < 0 and not forced):
            value = max(value, board[j - 1] + sign * best(i, j - 1))
        if j - i >= v.delete_min:
            after = 1 if v.delete_keeps_turn else sign
            if v.delete_ends:
                gain = board[i] + board[j - 1] if v.delete_scores else 0
                value = max(value, gain + after * best(i + 1, j - 1))
            else:
                width = v.delete_width
                left, right = board[i : i + width], board[max(j - width, i) : j]
                if v.delete_left and not (v.delete_pruned and max(left) >= 0):
                    gain = sum(left) if v.delete_scores else 0
                    value = max(value, gain + after * best(min(i + width, j), j))
                if v.delete_right and not (v.delete_pruned and max(right) >= 0):
                    gain = sum(right) if v.delete_scores else 0
                    value = max(value, gain + after * best(i, max(j - width, i)))
        memo[key] = int(value)
        return memo[key]

    answer = best(0, len(board))  # at most len(board) + 1 frames deep
    return abs(answer) if v.absolute else answer


def _greedy(board: list[int]) -> int:
    i, j, lead, sign = 0, len(board), 0, 1
    while i < j:
        if board[i] >= board[j - 1]:
            lead += sign * board[i]
            i += 1
        else:
            lead += sign * board[j - 1]
            j -= 1
        sign = -sign
    return lead


CORRECT = Variant()


def _mutant(description: str, **bug: Any) -> Mutant:
    return Mutant(description, partial(play, v=replace(CORRECT, **bug)))


MUTANTS: dict[str, Mutant] = {
    "no_delete": _mutant("the delete moves are missing", delete_left=False, delete_right=False),
    "no_delete_right": _mutant("deleting the two rightmost numbers is missing", delete_right=False),
    "no_delete_left": _mutant("deleting the two leftmost numbers is missing", delete_left=False),
    "no_take_right": _mutant("taking the rightmost number is missing", take_right=False),
    "delete_one": _mutant("a delete removes one number instead of two", delete_width=1),
    "delete_keeps_turn": _mutant(
        "a delete does not pass the turn: the same player moves again", delete_keeps_turn=True
    ),
    "delete_single": _mutant(
        "off by one: a delete is allowed with one number left (removing it)", delete_min=1
    ),
    "delete_both_ends": _mutant(
        "a delete removes the leftmost and the rightmost number", delete_ends=True
    ),
    "delete_scores": _mutant("deleted numbers are added to the mover's score", delete_scores=True),
    "lead_not_negated": _mutant("the opponent's lead is added instead of subtracted", negate=False),
    "free_pass": _mutant(
        "the best lead starts at 0 instead of minus infinity: as if a player could pass",
        start=0,
    ),
    "delete_pruned": _mutant(
        "pruning: a delete is tried only when both numbers are negative", delete_pruned=True
    ),
    "greedy": _mutant("no search: each player takes the larger end number", greedy=True),
    "absolute_lead": _mutant("answers the absolute difference, losing the sign", absolute=True),
    "memo_forgets_right_end": _mutant(
        "memo keyed by the left end only, forgetting the right end", memo="left"
    ),
    "memo_by_length": _mutant("memo keyed by the number of numbers left only", memo="length"),
    "sentinel_minus_1000": _mutant(
        "-1000 used as minus infinity: a best lead below -1000 is lost", start=-1000
    ),
    "take_pruned": _mutant(
        "pruning: a negative end number is taken only when no delete is possible",
        take_pruned=True,
    ),
}

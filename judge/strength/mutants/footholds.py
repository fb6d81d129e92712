"""Mutants of the footholds reference: the bugs students make in the minimax search.

One configurable search, `play(case, variant)`, written like a student's memoized minimax over
(footholds, mover, other) returning (the mover wins, moves left). A `Variant` switches on one
bug; with the defaults it is a correct solver. Cells are looked up the way a list-of-lists
program does: a negative index wraps around and an index past the end raises IndexError.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from judge.strength.mutants import Mutant

UP, DOWN, LEFT, RIGHT = (-1, 0), (1, 0), (0, -1), (0, 1)
STEPS = (UP, DOWN, LEFT, RIGHT)
OFF = -1  # a neighbour whose lookup raises IndexError, as board[r][c] would


@dataclass(frozen=True)
class Variant:
    winner: str = "min"  # how a winner picks among its winning moves: "min" | "max"
    loser: str = "max"  # how a loser picks among its losing moves: "max" | "min"
    # "flag": (wins, moves) minimax; without the win/lose flag, from move counts only:
    # "longest" (everyone stalls), "by_player" (A keeps the game short, B long),
    # "parity_flipped" (a move wins when it leaves an even count: the parity rule backwards)
    rule: str = "flag"
    root_assumes_win: bool = False  # A is taken to win: fewest moves over all its moves
    steps: tuple[tuple[int, int], ...] = STEPS
    bounds: str = "ok"  # "ok" | "swapped" (rows vs cols) | "no_lower" (no >= 0 check)
    loc_col_row: bool = False  # aloc/bloc read as [col, row]
    vanish: bool = True  # the foothold left behind vanishes
    vanish_loses: bool = True  # rule 2: standing on a vanished foothold loses
    vanish_end: int = 0  # moves counted when the game ends by rule 2
    vanish_wins: bool = False  # rule 2 read backwards: the stranded player wins
    stuck_end: int = 0  # moves counted when the game ends by rule 1
    depth_cap: int | None = None  # the search stops here: the player to move "loses"
    memo: str = "full"  # memo key: "full" | "no_other" | "no_board"
    onto_opponent: bool = True  # stepping onto the opponent's cell is allowed
    b_first: bool = False  # B moves first


def _lookup(rows: int, cols: int, r: int, c: int) -> int:
    """Flat index of board[r][c] with Python's list semantics: -1 wraps, too far raises."""
    if not (-rows <= r < rows and -cols <= c < cols):
        return OFF
    return (r % rows) * cols + c % cols


def _inside(v: Variant, rows: int, cols: int, r: int, c: int) -> bool:
    if v.bounds == "swapped":
        return 0 <= r < cols and 0 <= c < rows
    if v.bounds == "no_lower":
        return r < rows and c < cols
    return 0 <= r < rows and 0 <= c < cols


def play(case: dict[str, Any], v: Variant) -> int:
    board = case["board"]
    rows, cols = len(board), len(board[0])
    mask = 0
    for r, row in enumerate(board):
        for c, cell in enumerate(row):
            if cell:
                mask |= 1 << (r * cols + c)
    near = []
    for r in range(rows):
        for c in range(cols):
            near.append(
                tuple(
                    _lookup(rows, cols, r + dr, c + dc)
                    for dr, dc in v.steps
                    if _inside(v, rows, cols, r + dr, c + dc)
                )
            )

    def start(loc: list[int]) -> int:
        r, c = (loc[1], loc[0]) if v.loc_col_row else loc
        cell = _lookup(rows, cols, r, c)
        if cell == OFF:
            raise IndexError("list index out of range")
        return cell

    # A result is one int, moves << 1 | wins, and a memo key one int: the search runs about
    # as fast as the reference's, so the strength report can afford thousands of boards.
    memo: dict[int, int] = {}
    vanish_result = v.vanish_end << 1 | v.vanish_wins
    stuck_result = v.stuck_end << 1
    cap = v.depth_cap
    plain = v.rule == "flag" and not v.root_assumes_win
    winner_min, loser_max = v.winner == "min", v.loser == "max"
    clear = -1 if not v.vanish else 0  # mask bits kept on leaving a cell: all, or all but it

    def search(mask: int, mover: int, other: int, depth: int) -> int:
        if v.memo == "no_other":
            key = mask << 5 | mover
        elif v.memo == "no_board":
            key = mover << 5 | other
        else:
            key = (mask << 5 | mover) << 5 | other
            if not v.vanish:  # the footholds never change: the depth tells states apart
                key = key << 6 | depth
        found = memo.get(key)
        if found is not None:
            return found
        if v.vanish_loses and not mask >> mover & 1:
            result = vanish_result
        elif cap is not None and depth >= cap:
            result = 0
        else:
            rest = mask & (clear | ~(1 << mover))
            children = []
            for nxt in near[mover]:
                if nxt == OFF:
                    raise IndexError("list index out of range")
                if mask >> nxt & 1 and (v.onto_opponent or nxt != other):
                    children.append(search(rest, other, nxt, depth + 1))
            if not children:
                result = stuck_result
            elif plain:
                result = _minimax(children, winner_min, loser_max)
            else:
                result = _choose(v, children, depth)
        memo[key] = result
        return result

    a, b = start(case["aloc"]), start(case["bloc"])
    if v.b_first:
        a, b = b, a
    return search(mask, a, b, 0) >> 1


def _minimax(children: list[int], winner_min: bool, loser_max: bool) -> int:
    """(wins, moves) minimax: the winner hurries and the loser stalls, unless told otherwise."""
    best_win = best_loss = -1
    for child in children:
        moves = (child >> 1) + 1
        if child & 1:  # the opponent wins after this move
            if best_loss < 0 or (moves > best_loss) == loser_max:
                best_loss = moves
        elif best_win < 0 or (moves < best_win) == winner_min:
            best_win = moves
    return best_win << 1 | 1 if best_win >= 0 else best_loss << 1


def _choose(v: Variant, children: list[int], depth: int) -> int:
    """The mover's result from its children's for the rules without a proper win/lose flag."""
    counts = [(child >> 1) + 1 for child in children]
    if v.root_assumes_win and depth == 0:
        return min(counts) << 1 | 1
    if v.rule == "longest":
        return max(counts) << 1
    if v.rule == "by_player":
        return (min(counts) if depth % 2 == 0 else max(counts)) << 1
    if v.rule == "parity_flipped":
        even = [count for count in counts if count % 2 == 0]
        return min(even) << 1 | 1 if even else max(counts) << 1
    return _minimax(children, v.winner == "min", v.loser == "max")


CORRECT = Variant()


def _mutant(description: str, **bug: Any) -> Mutant:
    return Mutant(description, partial(play, v=replace(CORRECT, **bug)))


MUTANTS: dict[str, Mutant] = {
    "winner_maximises": _mutant(
        "a player who can win picks its longest winning move instead of the shortest",
        winner="max",
    ),
    "loser_minimises": _mutant(
        "a player who must lose picks its shortest losing move instead of the longest",
        loser="min",
    ),
    "min_max_swapped": _mutant(
        "min and max swapped for both the winner and the loser", winner="max", loser="min"
    ),
    "no_flag_longest": _mutant(
        "no win/lose flag: returns only move counts and always plays the longest game",
        rule="longest",
    ),
    "no_flag_parity_flipped": _mutant(
        "no win/lose flag: wins read from the parity of the move count, the wrong way round",
        rule="parity_flipped",
    ),
    "no_flag_by_player": _mutant(
        "no win/lose flag: plain minimax on move counts, A minimises and B maximises",
        rule="by_player",
    ),
    "first_player_wins": _mutant(
        "assumes A wins: A's answer is its shortest line, whether it wins or not",
        root_assumes_win=True,
    ),
    "b_moves_first": _mutant("B moves first instead of A", b_first=True),
    "vanish_rule_ignored": _mutant(
        "rule 2 ignored: a piece whose foothold vanished under it keeps playing",
        vanish_loses=False,
    ),
    "never_vanish_cap_12": _mutant(
        "footholds never vanish; the endless search is cut after 12 moves",
        vanish=False,
        depth_cap=12,
    ),
    "vanish_end_plus_one": _mutant(
        "off by one at the end: the fall through a vanished foothold counts as a move",
        vanish_end=1,
    ),
    "stuck_end_plus_one": _mutant(
        "off by one at the end: a stuck player's turn counts as a move", stuck_end=1
    ),
    "no_up": _mutant("the move up is missing", steps=(DOWN, LEFT, RIGHT)),
    "no_down": _mutant("the move down is missing", steps=(UP, LEFT, RIGHT)),
    "no_left": _mutant("the move left is missing", steps=(UP, DOWN, RIGHT)),
    "no_right": _mutant("the move right is missing", steps=(UP, DOWN, LEFT)),
    "diagonal_typo": _mutant(
        "direction typo: (1, 1) instead of (0, 1), a diagonal step replaces the move right",
        steps=(UP, DOWN, LEFT, (1, 1)),
    ),
    "bounds_rows_cols_swapped": _mutant(
        "rows and columns confused in the bounds check (wrong on rectangular boards)",
        bounds="swapped",
    ),
    "locations_col_row": _mutant(
        "aloc and bloc read as [col, row] instead of [row, col]", loc_col_row=True
    ),
    "negative_index_wraps": _mutant(
        "no lower bounds check: board[-1] wraps around to the last row or column",
        bounds="no_lower",
    ),
    "depth_cap_6": _mutant("search cut at depth 6 (the player to move there loses)", depth_cap=6),
    "depth_cap_10": _mutant("search cut at depth 10", depth_cap=10),
    "depth_cap_14": _mutant("search cut at depth 14", depth_cap=14),
    "depth_cap_18": _mutant("search cut at depth 18", depth_cap=18),
    "memo_forgets_opponent": _mutant(
        "memo key forgets the opponent's piece: (footholds, mover)", memo="no_other"
    ),
    "vanish_wins": _mutant(
        "rule 2 read backwards: the player whose foothold vanished wins", vanish_wins=True
    ),
    "memo_forgets_board": _mutant(
        "memo key forgets the footholds: (mover, opponent)", memo="no_board"
    ),
    "no_stepping_on_opponent": _mutant(
        "stepping onto the opponent's cell is forbidden", onto_opponent=False
    ),
}

# expect: AC
# Sprague-Grundy. A block's cells are connected, so the empty cells split into regions that
# are independent games, and a board is won iff the XOR of its regions' Grundy values is not
# 0. A region's value only depends on its shape up to moving, turning and mirroring, so it is
# memoized on a normalized shape. A single region only needs "won or lost": the search stops
# at the first move to a lost board, and full Grundy values are computed only for boards
# that fall apart into several regions.
import sys

N = 5


def build_blocks():
    blocks = []
    for r in range(N):
        for c in range(N):
            if c + 1 < N:
                blocks.append({(r, c), (r, c + 1)})
            if r + 1 < N:
                blocks.append({(r, c), (r + 1, c)})
            if r + 1 < N and c + 1 < N:
                square = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
                for skip in square:
                    blocks.append({x for x in square if x != skip})
    masks = []
    for b in blocks:
        m = 0
        for r, c in b:
            m |= 1 << (r * N + c)
        masks.append(m)
    return masks


BLOCKS = build_blocks()
FULL = (1 << N * N) - 1
LEFT_COL = sum(1 << (r * N) for r in range(N))
NO_LEFT = FULL & ~LEFT_COL
NO_RIGHT = FULL & ~(LEFT_COL << (N - 1))


def split(mask):
    # flood fill on whole bitmasks: grow a part by its neighbours until it stops growing
    parts = []
    while mask:
        part = mask & -mask
        while True:
            grown = (part | (part << 1 & NO_LEFT) | (part >> 1 & NO_RIGHT) | part << N | part >> N) & mask
            if grown == part:
                break
            part = grown
        mask ^= part
        parts.append(part)
    return parts


def image(t, r, c):
    # the 8 symmetries of the square: t & 4 transposes, t & 1 flips rows, t & 2 columns
    if t & 4:
        r, c = c, r
    if t & 1:
        r = N - 1 - r
    if t & 2:
        c = N - 1 - c
    return r * N + c


# ROW_IMAGE[t][r][bits]: where the cells of row r given by 5 bits go under symmetry t
ROW_IMAGE = [
    [[sum(1 << image(t, r, c) for c in range(N) if bits >> c & 1) for bits in range(1 << N)]
     for r in range(N)]
    for t in range(8)
]
TOP_ROW = (1 << N) - 1


def normalize(mask):
    best = None
    for rows in ROW_IMAGE:
        m = 0
        for r in range(N):
            m |= rows[r][mask >> (r * N) & TOP_ROW]
        while not m & TOP_ROW:
            m >>= N
        while not m & LEFT_COL:
            m >>= 1
        if best is None or m < best:
            best = m
    return best


shape_of = {}
grundy_of = {}
after = {}


def region_value(mask):
    key = shape_of.get(mask)
    if key is None:
        key = shape_of[mask] = normalize(mask)
    g = grundy_of.get(key)
    if g is None:
        g = grundy(key)
    return g


def grundy(region):
    reach = set()
    for b in BLOCKS:
        if (region & b) == b:
            rest = region ^ b
            x = after.get(rest)
            if x is None:
                x = 0
                for part in split(rest):
                    x ^= region_value(part)
                after[rest] = x
            reach.add(x)
    g = 0
    while g in reach:
        g += 1
    grundy_of[region] = g
    return g


won = {}


def region_wins(region):
    # region: a normalized connected shape; True iff the player to move wins on it
    if region in won:
        return won[region]
    if region in grundy_of:
        return grundy_of[region] != 0
    later = []
    result = False
    for b in BLOCKS:
        if (region & b) != b:
            continue
        parts = split(region ^ b)
        if not parts:  # the block covers the whole region: the other player is stuck
            result = True
            break
        if len(parts) == 1:
            key = shape_of.get(parts[0])
            if key is None:
                key = shape_of[parts[0]] = normalize(parts[0])
            if won.get(key) is False or grundy_of.get(key) == 0:
                result = True
                break
            later.append(key)
        else:
            later.append(parts)
    if not result:
        # sums of small regions first: their Grundy values are cheap
        later.sort(key=lambda x: max(p.bit_count() for p in x) if isinstance(x, list) else 99)
        for x in later:
            if isinstance(x, list):
                total = 0
                for part in x:
                    total ^= region_value(part)
                if total == 0:
                    result = True
                    break
            elif not region_wins(x):
                result = True
                break
    won[region] = result
    return result


def solution(board):
    sys.setrecursionlimit(10000)
    empty = 0
    for r in range(N):
        for c in range(N):
            if board[r][c] == ".":
                empty |= 1 << (r * N + c)
    # regions where nothing fits are worth 0: leave them out
    parts = [p for p in split(empty) if any((p & b) == b for b in BLOCKS)]
    if len(parts) == 1:
        return "WINNING" if region_wins(normalize(parts[0])) else "LOSING"
    x = 0
    for part in parts:
        x ^= region_value(part)
    return "WINNING" if x else "LOSING"

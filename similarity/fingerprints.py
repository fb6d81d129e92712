"""Winnowing (Schleimer, Wilkerson and Aiken, 2003: MOSS's algorithm) over normalised tokens,
and the comparison of two token lists by their shared k-grams.

A k-gram is K consecutive tokens; its hash is stable across processes (stored in the
database). The fingerprints of a source are, in every window of W consecutive k-grams, the
one with the smallest hash: any run of W + K - 1 tokens shared by two sources shares at least
one fingerprint, and a source has about 2 / (W + 1) fingerprints per token, which is what the
index stores. The index only finds candidates; the score is measured on every k-gram (below).

K is small because students' solutions are short (often 60 to 150 tokens): a whole
numbergame solution in Python is about 90. K, W and THRESHOLD were chosen on the labelled
set of `make bench` (bench/similarity.py; docs/similarity.md has the numbers).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from similarity.tokens import Token

K = 12  # tokens per k-gram
W = 8  # k-grams per winnowing window: a shared run of W + K - 1 = 19 tokens is found
THRESHOLD = 0.8  # the default score from which a pair is suspicious (measured: docs/similarity.md)

# The common-fingerprint discount (MOSS's -m): a fingerprint in the sources of many different
# students of a problem is boilerplate (a reading loop, a helper everyone writes alike), not
# evidence that two of them copied. Both bounds must hold: a small class, where one copy
# passed around reaches 40%, discounts nothing; a large one discounts only what a sizeable
# share of it wrote.
COMMON_MIN_STUDENTS = 20
COMMON_SHARE = 0.4  # of the problem's students in that language, strictly more than


# A size-dependent margin: each source's covered tokens are counted CHANCE_TOKENS short, so a
# score loses about CHANCE_TOKENS / own tokens: 2% at 100 tokens, 0.5% at 400. Two short
# independent solutions of one recurrence share most of themselves by chance; long ones do
# not. Measured on the bench's labelled set (docs/similarity.md): 2 and 3 remove a short false
# positive at 0.81 and lose no copy; 1 removes nothing, 4 starts losing short copies.
CHANCE_TOKENS = 2


def is_common(students_with_it: int, students: int) -> bool:
    """Whether a fingerprint held by `students_with_it` of `students` students is boilerplate."""
    return students_with_it >= COMMON_MIN_STUDENTS and students_with_it > COMMON_SHARE * students


def kgram_hashes(tokens: Sequence[Token], k: int = K) -> list[int]:
    """The hash of every k-gram, as a signed 64-bit integer (a PostgreSQL bigint)."""
    texts = [t.text for t in tokens]
    hashes = []
    for i in range(len(texts) - k + 1):
        digest = hashlib.blake2b("\x1f".join(texts[i : i + k]).encode(), digest_size=8)
        hashes.append(int.from_bytes(digest.digest(), "big", signed=True))
    return hashes


def winnow(hashes: Sequence[int], w: int = W) -> list[tuple[int, int]]:
    """(hash, position) of the fingerprints: the rightmost smallest hash of each window,
    each position once. A source shorter than one window keeps its smallest k-gram."""
    if not hashes:
        return []
    picked: list[tuple[int, int]] = []
    last = -1
    for left in range(max(1, len(hashes) - w + 1)):
        window = hashes[left : left + w]
        low = min(window)
        position = left + max(i for i, h in enumerate(window) if h == low)
        if position != last:
            picked.append((hashes[position], position))
            last = position
    return picked


def fingerprints(
    tokens: Sequence[Token], template: Sequence[bool] | None = None, k: int = K, w: int = W
) -> list[tuple[int, int]]:
    """What the index stores of a source: its winnowed k-grams, less those lying wholly in
    the starter template (`template`: which tokens are the template's, see templates.py)."""
    return [
        (h, p)
        for h, p in winnow(kgram_hashes(tokens, k), w)
        if template is None or not all(template[p : p + k])
    ]


def boilerplate_mask(
    tokens: Sequence[Token],
    template: Sequence[bool] | None,
    common: Collection[int],
    k: int = K,
) -> list[bool]:
    """The template mask, widened to every token of a k-gram whose hash is common: like the
    template's, those tokens count neither in a source's size nor in what it shares."""
    mask = list(template) if template is not None else [False] * len(tokens)
    if not common:
        return mask
    for i, value in enumerate(kgram_hashes(tokens, k)):
        if value in common:
            mask[i : i + k] = [True] * k
    return mask


@dataclass(frozen=True)
class Fragment:
    """A run of tokens the two sources share, as character offsets into each."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    tokens: int


@dataclass(frozen=True)
class Comparison:
    score: float  # the mean of the two coverages below
    a_coverage: float  # the share of a's own tokens (not the template's) in shared k-grams,
    # less CHANCE_TOKENS
    b_coverage: float
    matched: int  # the fewer of the two sources' covered tokens
    fragments: tuple[Fragment, ...]


def _covered(hashes: Sequence[int], n: int, shared: set[int], k: int) -> list[bool]:
    covered = [False] * n
    for i, h in enumerate(hashes):
        if h in shared:
            for j in range(i, min(i + k, n)):
                covered[j] = True
    return covered


def compare(
    a: Sequence[Token],
    b: Sequence[Token],
    a_template: Sequence[bool] | None = None,
    b_template: Sequence[bool] | None = None,
    k: int = K,
    *,
    fragments: bool = True,
    common: Collection[int] = frozenset(),
) -> Comparison:
    """How much of a and b is the same code, once renamed, reordered or recommented: each
    one's own tokens (not its template's) covered by the k-grams they share. `common`: the
    problem's boilerplate fingerprints (is_common), which neither count nor are shared."""
    ha, hb = kgram_hashes(a, k), kgram_hashes(b, k)
    shared = (set(ha) & set(hb)).difference(common)
    mask_a = boilerplate_mask(a, a_template, common, k)
    mask_b = boilerplate_mask(b, b_template, common, k)
    cov_a, cov_b = _covered(ha, len(a), shared, k), _covered(hb, len(b), shared, k)
    n_a, n_b = mask_a.count(False), mask_b.count(False)
    m_a = sum(c and not t for c, t in zip(cov_a, mask_a, strict=True))
    m_b = sum(c and not t for c, t in zip(cov_b, mask_b, strict=True))
    a_coverage = max(0, m_a - CHANCE_TOKENS) / n_a if n_a else 0.0
    b_coverage = max(0, m_b - CHANCE_TOKENS) / n_b if n_b else 0.0
    # The mean, not the smaller file's coverage alone: a short solution pasted whole into a
    # long one still scores high, but two short textbook recurrences that share one line
    # (the hard negatives of the bench) no longer do.
    return Comparison(
        score=(a_coverage + b_coverage) / 2,
        a_coverage=a_coverage,
        b_coverage=b_coverage,
        matched=min(m_a, m_b),
        fragments=tuple(_fragments(a, b, ha, hb, shared, k)) if fragments else (),
    )


def _fragments(
    a: Sequence[Token],
    b: Sequence[Token],
    ha: Sequence[int],
    hb: Sequence[int],
    shared: set[int],
    k: int,
) -> list[Fragment]:
    """Maximal runs of a's shared k-grams, each paired with the place in b where the same
    run goes on longest (greedy, left to right, as the side-by-side view links them)."""
    where: dict[int, list[int]] = {}
    for j, h in enumerate(hb):
        if h in shared:
            where.setdefault(h, []).append(j)
    found: list[Fragment] = []
    i = 0
    while i < len(ha):
        if ha[i] not in shared:
            i += 1
            continue
        best_j, best_len = -1, 0
        for j in where.get(ha[i], ()):
            length = 0
            while (
                i + length < len(ha) and j + length < len(hb) and ha[i + length] == hb[j + length]
            ):
                length += 1
            if length > best_len:
                best_j, best_len = j, length
        last_a, last_b = i + best_len - 1 + k - 1, best_j + best_len - 1 + k - 1
        found.append(
            Fragment(a[i].start, a[last_a].end, b[best_j].start, b[last_b].end, best_len + k - 1)
        )
        i += best_len
    return found

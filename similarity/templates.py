"""What every student's source shares and no one copied: the starter templates the judge
hands out (judge.languages: the signature of `solution`, or the stdio reading loop).

A token is the template's when it lies in a run of TEMPLATE_K tokens that some template of
the problem in that language also has. TEMPLATE_K is smaller than the fingerprints' K: a
Python signature is 8 tokens (`def solution ( board ) : return 0`), of which the student
keeps 6. Template tokens count neither in a source's size nor in what it shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from judge import problems
from judge.languages import all_languages, styles_of
from similarity.fingerprints import kgram_hashes
from similarity.tokens import Token, tokenize

TEMPLATE_K = 6


@cache
def template_hashes(problem: str, language: str) -> frozenset[int]:
    """The TEMPLATE_K-grams of every template of the problem in the language (each style)."""
    try:
        spec = problems.get(problem)
    except Exception:  # an uploaded problem: its templates are not known here, none discounted
        return frozenset()
    maker = all_languages()[language]
    hashes: set[int] = set()
    for style in styles_of(spec):
        tokens = tokenize(maker.template(spec, style), language)
        hashes.update(kgram_hashes(tokens, TEMPLATE_K))
    return frozenset(hashes)


def template_mask(tokens: Sequence[Token], problem: str, language: str) -> list[bool]:
    """Which of the tokens are the template's."""
    ignored = template_hashes(problem, language)
    mask = [False] * len(tokens)
    for i, value in enumerate(kgram_hashes(tokens, TEMPLATE_K)):
        if value in ignored:
            mask[i : i + TEMPLATE_K] = [True] * TEMPLATE_K
    return mask

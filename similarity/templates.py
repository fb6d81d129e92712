"""What every student's source shares and no one copied: the starter templates the judge
hands out (judge.languages: the signature of `solution`, or the stdio reading loop).

A token is the template's when it lies in a run of TEMPLATE_K tokens that some template of
the problem in that language also has. TEMPLATE_K is smaller than the fingerprints' K: a
Python signature is 8 tokens (`def solution ( board ) : return 0`), of which the student
keeps 6. Template tokens count neither in a source's size nor in what it shares.

The built-in problems' templates are known here; an uploaded problem's come from its
published manifest (the caller reads it: judge.problems.declared.declared_spec) and are
passed in as `spec_template_hashes` of its spec.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from judge import problems
from judge.languages import all_languages, styles_of
from similarity.fingerprints import kgram_hashes
from similarity.tokens import Token, tokenize

TEMPLATE_K = 6


def spec_template_hashes(spec: problems.ProblemSpec, language: str) -> frozenset[int]:
    """The TEMPLATE_K-grams of every template of the problem in the language (each style)."""
    maker = all_languages()[language]
    hashes: set[int] = set()
    for style in styles_of(spec):
        tokens = tokenize(maker.template(spec, style), language)
        hashes.update(kgram_hashes(tokens, TEMPLATE_K))
    return frozenset(hashes)


@cache
def template_hashes(problem: str, language: str) -> frozenset[int]:
    """A built-in problem's template hashes; none for a slug that is not built in (an
    uploaded problem's are the caller's to give: see the module's doc)."""
    try:
        spec = problems.get(problem)
    except problems.UnknownProblem:
        return frozenset()
    return spec_template_hashes(spec, language)


def template_mask(
    tokens: Sequence[Token],
    problem: str,
    language: str,
    ignored: frozenset[int] | None = None,
) -> list[bool]:
    """Which of the tokens are the template's: the built-in problem's, or `ignored`'s."""
    if ignored is None:
        ignored = template_hashes(problem, language)
    mask = [False] * len(tokens)
    for i, value in enumerate(kgram_hashes(tokens, TEMPLATE_K)):
        if value in ignored:
            mask[i : i + TEMPLATE_K] = [True] * TEMPLATE_K
    return mask

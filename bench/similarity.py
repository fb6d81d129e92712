"""`make bench` group "similarity": precision and recall of the similarity score on the
labelled set (bench/similarity_corpus.py) at the default threshold, by length class, beside
a reference tool run on the same pairs; and the index's times in PostgreSQL (bench/scale's
database: fingerprinting N submissions into it, then one problem's top pairs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.similarity_corpus import Doc, Pair, labelled_pairs
from similarity import fingerprints as fp
from similarity.templates import template_mask
from similarity.tokens import Token, tokenize

Report = Callable[[str, str], None]
SHORT = 150  # tokens of the smaller source: "short" below, "long" from here


@dataclass(frozen=True)
class Quality:
    precision: float
    recall: float
    pairs: int
    copies: int


def quality(scored: Sequence[tuple[Pair, float]], threshold: float) -> Quality:
    tp = sum(1 for pair, s in scored if pair.copied and s >= threshold)
    fp_ = sum(1 for pair, s in scored if not pair.copied and s >= threshold)
    copies = sum(1 for pair, _ in scored if pair.copied)
    precision = tp / (tp + fp_) if tp + fp_ else 1.0
    return Quality(precision, tp / copies if copies else 1.0, len(scored), copies)


class Ours:
    """The judge's own score (similarity/), as the worker computes it."""

    def __init__(self, k: int = fp.K) -> None:
        self.k = k
        self._tokens: dict[str, tuple[list[Token], list[bool]]] = {}

    def tokens(self, doc: Doc) -> tuple[list[Token], list[bool]]:
        if doc.name not in self._tokens:
            tokens = tokenize(doc.source, doc.language)
            self._tokens[doc.name] = (tokens, template_mask(tokens, doc.problem, doc.language))
        return self._tokens[doc.name]

    def score(self, pair: Pair) -> float:
        (ta, ma), (tb, mb) = self.tokens(pair.a), self.tokens(pair.b)
        return fp.compare(ta, tb, ma, mb, self.k).score


def length_class(ours: Ours, pair: Pair) -> str:
    smaller = min(ours.tokens(pair.a)[1].count(False), ours.tokens(pair.b)[1].count(False))
    return "short" if smaller < SHORT else "long"


def run_quality(report: Report, pairs: list[Pair] | None = None) -> dict[str, Quality]:
    pairs = labelled_pairs() if pairs is None else pairs
    ours = Ours()
    scored = [(pair, ours.score(pair)) for pair in pairs]
    results = {"all": quality(scored, fp.THRESHOLD)}
    for name in ("short", "long"):
        subset = [(p, s) for p, s in scored if length_class(ours, p) == name]
        results[name] = quality(subset, fp.THRESHOLD)
    for name, q in results.items():
        report(
            f"similarity (ours, threshold {fp.THRESHOLD}), {name} pairs",
            f"precision {q.precision:.3f} recall {q.recall:.3f} "
            f"({q.pairs} pairs, {q.copies} copies; goal >= 0.97 / >= 0.95)",
        )
    return results


def run(report: Report) -> None:
    run_quality(report)

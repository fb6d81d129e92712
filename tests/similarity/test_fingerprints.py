"""The fingerprinting and the comparison (similarity/), pure and fast: each disguise of the
bench's corpus leaves a copy above the threshold, independent solutions of the same
recurrence stay below it, the starter template counts for nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench import similarity_corpus as corpus
from similarity import fingerprints as fp
from similarity.templates import template_mask
from similarity.tokens import IDENTIFIER, tokenize

ROOT = Path(__file__).resolve().parents[2]
MEMO = (ROOT / "problems/numbergame/submissions/accepted/numbergame_memo.py").read_text()
# The same recursion with a dictionary memo, written apart: a hard negative.
OTHER_MEMO = (ROOT / "bench/similarity_solutions/numbergame_dict_memo.py").read_text()
TABLE = (ROOT / "tests/submissions/accepted/numbergame_dp.py").read_text()
TWO_FUNCTIONS = (
    MEMO + "\n\ndef total(xs):\n    t = 0\n    for x in xs:\n        t += x * x\n    return t\n"
)
# A source each disguise applies to: a counted loop to rewrite, two functions to swap.
BASES = {"loop": TABLE, "reorder": TWO_FUNCTIONS}


def score(a: str, b: str, language: str = "python", problem: str = "numbergame") -> float:
    ta, tb = tokenize(a, language), tokenize(b, language)
    ma, mb = template_mask(ta, problem, language), template_mask(tb, problem, language)
    return fp.compare(ta, tb, ma, mb).score


def test_tokens_drop_comments_and_whitespace_and_normalise_names_and_literals() -> None:
    tokens = tokenize('def f(x):  # note\n    """doc"""\n    return x + 10 * "s"\n', "python")
    assert [t.text for t in tokens] == [
        "def", IDENTIFIER, "(", IDENTIFIER, ")", ":", "return", IDENTIFIER, "+", "0", "*", "S"
    ]  # fmt: skip
    source = "int f(int x) { /* c */ return x + 1; } // c\n"
    assert [source[t.start : t.end] for t in tokenize(source, "cpp")][:4] == [
        "int",
        "f",
        "(",
        "int",
    ]


@pytest.mark.parametrize("disguise", sorted(corpus.DISGUISES))
def test_each_disguise_alone_leaves_a_copy_above_the_threshold(disguise: str) -> None:
    base = BASES.get(disguise, MEMO)
    copy = corpus.DISGUISES[disguise](base, "python", random.Random(1))
    assert copy != base
    assert score(base, copy) >= fp.THRESHOLD


@pytest.mark.parametrize("language", ["python", "cpp", "java", "kotlin"])
def test_disguised_copies_score_high_in_every_language(language: str) -> None:
    originals = [d for d in corpus.originals() if d.language == language]
    assert originals
    for doc in originals[:3]:
        for copy in corpus.copies(doc, random.Random(5)):
            assert score(doc.source, copy.source, language, doc.problem) >= fp.THRESHOLD, copy.name


def test_independent_solutions_of_one_recurrence_stay_below_the_threshold() -> None:
    assert score(MEMO, OTHER_MEMO) < fp.THRESHOLD


def test_the_starter_template_counts_for_nothing() -> None:
    template = "def solution(board):\n    return 0\n"
    assert score(template, template) == 0.0
    assert all(template_mask(tokenize(template, "python"), "numbergame", "python"))


def test_a_shared_run_of_w_plus_k_minus_1_tokens_shares_a_fingerprint() -> None:
    rng = random.Random(3)
    vocabulary = ["+", "-", "*", "(", ")", "[", "]", "if", "for", "return", ",", "=", "<"]
    run = " ".join(rng.choice(vocabulary) for _ in range(fp.W + fp.K - 1))
    a = tokenize("x = 1\n" * 7 + run + "\n", "python")
    b = tokenize("while y:\n    z = 2\n" + run + " y\n", "python")
    assert {h for h, _ in fp.fingerprints(a)} & {h for h, _ in fp.fingerprints(b)}


def test_fragments_point_at_the_same_code_in_both_sources() -> None:
    copy = corpus.rename(MEMO, "python", random.Random(2))
    result = fp.compare(tokenize(MEMO, "python"), tokenize(copy, "python"))
    assert result.fragments
    for f in result.fragments:
        left = [t.text for t in tokenize(MEMO[f.a_start : f.a_end], "python")]
        right = [t.text for t in tokenize(copy[f.b_start : f.b_end], "python")]
        assert left == right and len(left) == f.tokens


# A reading helper many students write alike (not the judge's template): boilerplate once a
# class shares it, so the common-fingerprint discount must leave it out of the score.
HELPER = """

def read_boards(stream):
    boards = []
    count = int(stream.readline())
    for _ in range(count):
        size = int(stream.readline())
        values = list(map(int, stream.readline().split()))
        if len(values) != size:
            raise ValueError("bad board")
        boards.append(values)
    return boards


def write_answers(stream, answers):
    lines = []
    for index, answer in enumerate(answers):
        if answer < 0:
            lines.append("case " + str(index + 1) + ": -" + str(-answer))
        else:
            lines.append("case " + str(index + 1) + ": " + str(answer))
    stream.write("\n".join(lines) + "\n")
    stream.flush()
"""


def common_of(*sources: str) -> frozenset[int]:
    """The fingerprints every source holds, as if a class of students shared them."""
    held = [{h for h, _ in fp.fingerprints(tokenize(s, "python"))} for s in sources]
    return frozenset(set.intersection(*held))


def test_is_common_needs_both_many_students_and_a_large_share() -> None:
    assert fp.is_common(fp.COMMON_MIN_STUDENTS, fp.COMMON_MIN_STUDENTS)
    assert not fp.is_common(fp.COMMON_MIN_STUDENTS - 1, fp.COMMON_MIN_STUDENTS - 1)
    assert not fp.is_common(40, 100)  # 40%: not more than COMMON_SHARE
    assert fp.is_common(41, 100)


def test_common_fingerprints_no_longer_make_independent_solutions_similar() -> None:
    a, b = MEMO + HELPER, OTHER_MEMO + HELPER
    assert score(a, b) >= fp.THRESHOLD  # without the discount, the helper makes them a pair
    ta, tb = tokenize(a, "python"), tokenize(b, "python")
    ma, mb = template_mask(ta, "numbergame", "python"), template_mask(tb, "numbergame", "python")
    common = common_of(HELPER, a, b)
    assert common
    assert fp.compare(ta, tb, ma, mb, common=common).score < fp.THRESHOLD


def test_a_real_copy_is_still_found_with_the_discount() -> None:
    a = MEMO + HELPER
    copy = corpus.rename(a, "python", random.Random(2))
    ta, tb = tokenize(a, "python"), tokenize(copy, "python")
    ma, mb = template_mask(ta, "numbergame", "python"), template_mask(tb, "numbergame", "python")
    assert fp.compare(ta, tb, ma, mb, common=common_of(HELPER, a, copy)).score >= fp.THRESHOLD


def test_a_short_margin_costs_short_sources_more_than_long_ones() -> None:
    short = tokenize(MEMO, "python")
    long = tokenize(MEMO + HELPER * 4, "python")
    assert fp.compare(short, short).score == pytest.approx(1 - fp.CHANCE_TOKENS / len(short))
    assert fp.compare(long, long).score > fp.compare(short, short).score

"""`make bench`'s similarity group at its smallest: the labelled set's precision and recall
(and the reference tool's, when installed) and the index in PostgreSQL with 30 submissions.
Nothing is timed against a target; the quality is held to the goal, so a change that makes
the score worse fails here."""

from __future__ import annotations

import pytest

from bench import similarity

pytestmark = [pytest.mark.bench_smoke, pytest.mark.services]


def test_the_similarity_benchmark_runs_and_meets_its_goal() -> None:
    lines: dict[str, str] = {}
    quality = similarity.run(lines.__setitem__, similarity.Sizes(submissions=30, students=10))
    for name in ("all", "short"):  # the goal holds for short solutions too
        assert quality[name].precision >= 0.97 and quality[name].recall >= 0.95, quality
    assert "similarity common fingerprints on the labelled set" in lines
    assert "similarity index, 30 submissions one by one" in lines
    assert any(name.startswith("similarity (reference: Dolos") for name in lines)
    assert any(name.startswith("similarity top pairs of ") for name in lines)

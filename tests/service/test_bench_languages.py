"""`make bench`'s languages group at its smallest (one repetition; every language compiled and
graded, two of them also through the service): a change to a language, the build cache or
the stack that breaks the benchmark fails here."""

from __future__ import annotations

import pytest

from bench import languages

pytestmark = [pytest.mark.bench_smoke, pytest.mark.sandbox, pytest.mark.slow]


def test_the_languages_benchmark_runs():
    lines: dict[str, str] = {}
    languages.run(lines.__setitem__, repeat=1, submissions=1, service_names=("python", "cpp"))
    for title in ("Python 3", "C++17", "Java 17", "Kotlin"):
        assert any(name.startswith(f"{title}: full footholds plan") for name in lines), title
    assert "C++17: submit-to-verdict p50, cold / cached build" in lines
    assert "Java 17: submit-to-verdict p50, cold / cached build" not in lines

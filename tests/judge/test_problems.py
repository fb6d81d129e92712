"""Both problem plug-ins together: registry, and the standard-library-only rule of judge/."""

from __future__ import annotations

from judge import problems


def test_registry_has_both_problems():
    found = problems.registry()
    assert {"footholds", "numbergame"} <= set(found)
    for slug in ("footholds", "numbergame"):
        module = problems.get(slug)
        assert slug == module.SLUG
        for sample in module.SAMPLES:
            assert module.reference(sample["input"]) == sample["answer"]
            ok, _ = module.check(sample["input"], sample["answer"], sample["answer"])
            assert ok

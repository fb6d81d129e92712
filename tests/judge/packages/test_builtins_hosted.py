"""The built-in packages (problems/<slug>/) answer the same in the sandbox's problem host as
imported in-process, as the registry loads them: they are packages like any other, and would
grade the same if hosted."""

from __future__ import annotations

from random import Random

import pytest

from judge import problems
from judge.problems import InvalidCase
from judge.problems.host import ProblemHost
from tests.builtin_modules import problem_module

SLUGS = ("footholds", "numbergame")
# A case problem.py itself refuses (the judge's typed check passes it): a piece off the board,
# a number out of range.
REFUSED = {
    "footholds": {"board": [[1, 1]], "aloc": [0, 0], "bloc": [0, 2]},
    "numbergame": {"board": [1001]},
}


@pytest.mark.parametrize("slug", SLUGS)
def test_a_built_in_answers_alike_hosted_and_imported(sandbox, slug):
    imported, module = problems.get(slug), problem_module(slug)
    limits = imported.LIMITS
    folder = problems.builtin_dir() / slug
    with ProblemHost.for_folder(
        sandbox, folder, time_s=limits.time_s, memory_mb=limits.memory_mb
    ) as host:
        samples = [s["input"] for s in imported.SAMPLES]
        assert host.call_many("reference", [[c] for c in samples]) == [
            s["answer"] for s in imported.SAMPLES
        ]
        worst = host.attribute("WORST_CASES")
        assert worst == list(imported.WORST_CASES)
        assert host.call_many("reference", [[c] for c in worst]) == imported.answers(worst)
        for profile in imported.PROFILES:
            assert host.call("generate", 7, profile) == module.generate(Random(7), profile)
        with pytest.raises(InvalidCase) as refused:
            host.call("validate", REFUSED[slug])
        with pytest.raises(ValueError) as direct:
            module.validate(REFUSED[slug])
        assert str(refused.value) == str(direct.value)
        assert len(host.call("small_cases")) == len(module.small_cases())
        case = samples[0]
        assert host.call("canonical", case) == list(imported.small_tier.canonical(case))
        assert host.call("explain", case) == imported.explain(case)
        assert host.call("children", case) == imported.game_tree.children(case)
        if imported.STDIO is not None:
            assert host.call("write_input", samples) == imported.STDIO.write_input(samples)
    assert host.output == ""  # it printed nothing

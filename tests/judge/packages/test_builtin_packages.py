"""The built-in problems as packages (problems/<slug>/) are today's plug-in modules
(judge/problems/<slug>.py) again: the manifest declares what the module does, the statements are
the same text, and the package's problem.py, imported here from its file, answers as the module
does, on every profile's generated cases, every small position, the worst cases and malformed
input. One test loads each problem.py in the real sandbox through the problem host: standard
library only, no file read, every answer strictly decoded."""

from __future__ import annotations

import importlib.util
import itertools
import json
import random
from collections.abc import Callable, Hashable, Iterable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from judge import problems
from judge.packages.host import ProblemHost
from judge.packages.manifest import read_boards, read_manifest, read_statement
from judge.problems import InvalidCase, ProblemSpec
from tests.judge import test_footholds, test_numbergame

ROOT = Path(__file__).resolve().parents[3] / "problems"
SLUGS = ("footholds", "numbergame")
SEEDS = range(150)  # generated cases per profile, compared case by case
ANSWERED = 40  # of those, per profile, the ones whose reference answers are compared
EXPLAINED = 10  # of those, per profile, the ones whose explain/shrink/children are compared


@cache
def package(slug: str) -> ModuleType:
    """problems/<slug>/problem.py imported from its file, as the loader's own module."""
    path = ROOT / slug / "problem.py"
    spec = importlib.util.spec_from_file_location(f"builtin_package_{slug}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reduced(cases: Iterable[Any], canonical: Callable[[Any], Hashable]) -> list[Any]:
    """The small tier as the judge makes it from a package: the first case of each class of
    positions `canonical` says are the same game, in the order small_cases() lists them."""
    found: dict[Hashable, Any] = {}
    for case in cases:
        found.setdefault(canonical(case), case)
    return list(found.values())


def key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@cache
def generated(slug: str) -> dict[str, list[dict[str, Any]]]:
    """Today's generated cases, per profile, for every seed (each checked equal below)."""
    today = problems.get(slug)
    return {
        profile: [today.generate(random.Random(seed), profile) for seed in SEEDS]
        for profile in today.PROFILES
    }


def sample_cases(slug: str, per_profile: int) -> list[dict[str, Any]]:
    """A few generated cases of every profile, the samples and the worst cases."""
    today = problems.get(slug)
    cases = [case for by_seed in generated(slug).values() for case in by_seed[:per_profile]]
    return cases + [s["input"] for s in today.SAMPLES] + list(today.WORST_CASES)


# --- the declarations --------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_the_manifest_declares_what_the_module_does(slug):
    today = problems.get(slug)
    manifest = read_manifest(ROOT / slug)
    assert (manifest.slug, manifest.title) == (today.SLUG, today.TITLE)
    assert manifest.param_names == today.PARAMS
    assert manifest.param_types == dict(today.PARAM_TYPES)
    assert manifest.returns == today.ANSWER
    assert manifest.limits == today.LIMITS
    assert list(manifest.profiles.items()) == list(today.PROFILES.items())  # order too
    assert manifest.random_count == today.RANDOM_COUNT
    assert manifest.view == today.VIEW  # the kind and the editor's bounds
    assert list(manifest.samples) == list(today.SAMPLES)
    assert read_boards(ROOT / slug, manifest) == []  # the built-ins have no hidden boards


@pytest.mark.parametrize("slug", SLUGS)
def test_the_statements_are_the_modules(slug):
    today = problems.get(slug)
    assert read_statement(ROOT / slug) == today.STATEMENT
    stdio = ROOT / slug / "stdio.md"
    if today.STDIO is None:
        assert not stdio.exists()
        assert not hasattr(package(slug), "write_input")
    else:
        assert stdio.read_text(encoding="utf-8") == today.STDIO.statement


def optional_names(today: ProblemSpec) -> set[str]:
    """The contract's optional names a package of today's module defines."""
    names = set()
    if today.small_tier is not None:
        names |= {"small_cases", "canonical"}
    if today.WORST_CASES:
        names.add("WORST_CASES")
    if today.game_tree is not None:
        names |= {"children", "COMBINE_RULE"}
    if today.STDIO is not None:
        names.add("write_input")
    return names


@pytest.mark.parametrize("slug", SLUGS)
def test_problem_py_defines_what_the_module_offers_and_no_check(slug):
    today, module = problems.get(slug), package(slug)
    optional = ("check", "small_cases", "canonical", "WORST_CASES", "children", "COMBINE_RULE")
    defined = {name for name in (*optional, "write_input") if hasattr(module, name)}
    expected = optional_names(today)
    assert defined == expected
    for name in ("validate", "generate", "reference", "explain", "shrink"):
        assert callable(getattr(module, name)), name
    # No check(): today's is the answer type's own, the loader's default for a package.
    for expected_answer, got in ((5, 5), (5, 4), (5, True), (5, 5.0), (5, "5"), (0, None)):
        assert today.check({}, expected_answer, got) == today.ANSWER.check(expected_answer, got)
    assert tuple(module.PROFILES) == tuple(read_manifest(ROOT / slug).profiles)
    assert module.PARAMS == today.PARAMS
    if today.game_tree is not None:
        assert today.game_tree.combine_rule == module.COMBINE_RULE
    assert list(today.WORST_CASES) == module.WORST_CASES


# --- the code ------------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_generate_gives_the_same_cases_for_every_seed_and_profile(slug):
    module = package(slug)
    for profile, cases in generated(slug).items():
        for seed, case in zip(SEEDS, cases, strict=True):
            assert module.generate(random.Random(seed), profile) == case, (profile, seed)
    today = problems.get(slug)
    with pytest.raises(ValueError) as old:
        today.generate(random.Random(1), "no_such_profile")
    with pytest.raises(ValueError) as new:
        module.generate(random.Random(1), "no_such_profile")
    assert str(new.value) == str(old.value)


@pytest.mark.parametrize("slug", SLUGS)
def test_reference_answers_the_same_on_generated_samples_and_worst_cases(slug):
    today, module = problems.get(slug), package(slug)
    for case in sample_cases(slug, ANSWERED):
        module.validate(case)
        assert module.reference(case) == today.reference(case), case
    for sample in today.SAMPLES:
        assert module.reference(sample["input"]) == sample["answer"]


@pytest.mark.parametrize("slug", SLUGS)
def test_the_small_tier_is_todays(slug):
    """small_cases() lists every position; reduced by canonical it is today's reduced tier,
    position for position and in order; every position's canonical key and answer agree."""
    today, module = problems.get(slug), package(slug)
    assert today.small_tier is not None
    every = module.small_cases()
    assert sorted(map(key, every)) == sorted(map(key, today.small_tier.cases(reduced=False)))
    for case in every:
        assert module.canonical(case) == today.small_tier.canonical(case)
    tier = reduced(every, module.canonical)
    assert tier == today.small_tier.cases(reduced=True)
    assert len(tier) == {"footholds": 1743, "numbergame": 734}[slug]
    for case in tier:
        module.validate(case)
        assert module.reference(case) == today.reference(case), case


FOOTHOLDS_MORE = [  # beyond test_footholds' list: long values cut, int subclasses, sizes
    ({"board": [[1] * 40], "aloc": [0, 0], "bloc": [0, 0]}, None),
    ({"board": [[1]], "aloc": list(range(30)), "bloc": [0, 0]}, None),
    ({"board": [[1]], "aloc": [0, 0], "bloc": "x" * 100}, None),
    ({"board": [[1, 1], [1]], "aloc": [0, 0], "bloc": [0, 0]}, None),
    ({"board": [[1, 1]], "aloc": [0, 2], "bloc": [0, 0]}, None),
    ({"board": [[1]], "aloc": [0, 0]}, None),
    ({"board": [[1]], "aloc": [0, 0], "bloc": [0, 0], 1: 2, "z": 3}, None),
    ("board", None),
]
NUMBERGAME_MORE = [
    ({"board": ["x" * 200]}, None),
    ({"board": list(range(60))}, None),
    ({"board": {"a": 1}}, None),
    ({"board": [1], 2: 3, "a": 4}, None),
    ({"board": [2**70]}, None),
]
MALFORMED = {
    "footholds": test_footholds.MALFORMED + FOOTHOLDS_MORE,
    "numbergame": test_numbergame.MALFORMED + NUMBERGAME_MORE,
}


@pytest.mark.parametrize("slug", SLUGS)
def test_validate_refuses_the_same_cases_with_the_same_messages(slug):
    today, module = problems.get(slug), package(slug)
    for bad, _ in MALFORMED[slug]:
        with pytest.raises(InvalidCase) as old:
            today.validate(bad)
        with pytest.raises(ValueError) as new:
            module.validate(bad)
        assert str(new.value) == str(old.value)
    for case in sample_cases(slug, 2):
        assert module.validate(case) is None


@pytest.mark.parametrize("slug", SLUGS)
def test_explain_shrink_and_children_are_the_modules(slug):
    today, module = problems.get(slug), package(slug)
    assert today.game_tree is not None and today.small_tier is not None
    small = today.small_tier.cases(reduced=True)
    cases = sample_cases(slug, EXPLAINED) + small[:: max(1, len(small) // 60)]
    for case in cases:
        assert module.explain(case) == today.explain(case), case
        assert list(module.shrink(case)) == list(today.shrink(case)), case
        assert module.children(case) == today.game_tree.children(case), case


def test_write_input_is_the_modules():
    today, module = problems.get("numbergame"), package("numbergame")
    assert today.STDIO is not None
    cases = sample_cases("numbergame", 4)
    for batch in ([], cases[:1], cases, [*itertools.islice(itertools.cycle(cases), 100)]):
        assert module.write_input(batch) == today.STDIO.write_input(batch)


# --- in the sandbox ------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_problem_py_loads_and_answers_in_the_sandbox(sandbox, slug):
    today, module = problems.get(slug), package(slug)
    limits = read_manifest(ROOT / slug).limits
    with ProblemHost.for_folder(
        sandbox, ROOT / slug, time_s=limits.time_s, memory_mb=limits.memory_mb
    ) as host:
        assert host.defined == {"validate", "generate", "reference", "explain", "shrink"} | (
            optional_names(today)
        )
        answers = host.call_many("reference", [[s["input"]] for s in today.SAMPLES])
        assert answers == [s["answer"] for s in today.SAMPLES]
        worst = host.attribute("WORST_CASES")
        assert worst == list(today.WORST_CASES)
        assert host.call_many("reference", [[c] for c in worst]) == [
            today.reference(c) for c in worst
        ]
        for profile in today.PROFILES:
            assert host.call("generate", 7, profile) == generated(slug)[profile][7]
        bad = MALFORMED[slug][2][0]  # a key missing or one too many
        with pytest.raises(InvalidCase) as refused:
            host.call("validate", bad)
        with pytest.raises(ValueError) as old:
            module.validate(bad)
        assert str(refused.value) == str(old.value)
        assert host.call("small_cases") == module.small_cases()  # every small position
        case = today.SAMPLES[0]["input"]
        assert host.call("canonical", case) == list(today.small_tier.canonical(case))
        assert host.call("explain", case) == today.explain(case)
        assert host.call("children", case) == today.game_tree.children(case)
        if today.STDIO is not None:
            cases = [s["input"] for s in today.SAMPLES]
            assert host.call("write_input", cases) == today.STDIO.write_input(cases)
    assert host.output == ""  # it printed nothing

"""The pages draw and edit a problem's cases by the view kind the problem declares, never by
its name: every registered problem's kind has a renderer and an editor in the JavaScript, the
declared view reaches every page, and no script names a problem."""

from __future__ import annotations

import re

import pytest

from api.web import STATIC_DIR
from api.web.pages import problem_list
from judge import problems

JS = STATIC_DIR / "js"


def registry_keys(script: str, name: str) -> set[str]:
    """The keys of `export const <name> = { "kind": value, ... };` in a script."""
    source = (JS / script).read_text(encoding="utf-8")
    found = re.search(rf"^export const {name} = \{{(.*?)^\}};", source, re.S | re.M)
    assert found, f"{script} has no {name} registry"
    return set(re.findall(r'^\s*"([^"]+)":', found.group(1), re.M))


def test_the_registries_are_read() -> None:
    assert registry_keys("boards.js", "VIEWS") >= {"grid-two-pieces", "number-row"}
    assert registry_keys("board-editor.js", "EDITORS") >= {"grid-two-pieces", "number-row"}


@pytest.mark.parametrize("slug", sorted(problems.registry()))
def test_every_problem_view_has_a_renderer_and_an_editor(slug: str) -> None:
    kind = problems.get(slug).VIEW.kind
    assert kind in registry_keys("boards.js", "VIEWS"), f"{slug}: no renderer for {kind!r}"
    assert kind in registry_keys("board-editor.js", "EDITORS"), f"{slug}: no editor for {kind!r}"


def test_every_page_knows_each_problem_view_and_bounds() -> None:
    listed = {p["slug"]: p["view"] for p in problem_list()}
    assert listed == {
        slug: {"kind": p.VIEW.kind, "bounds": dict(p.VIEW.bounds)}
        for slug, p in problems.registry().items()
    }
    assert listed["numbergame"]["bounds"] == {"max_length": 50, "max_abs": 1000}
    assert listed["footholds"]["bounds"] == {"max_side": 5}


def test_no_script_names_a_problem() -> None:
    """A problem's name in a script is a branch on it; the view kind is what scripts use."""
    names = "|".join(re.escape(slug) for slug in problems.registry())
    quoted = re.compile(rf"""["'`]({names})["'`]""")
    for script in sorted(JS.rglob("*.js")):
        text = script.read_text(encoding="utf-8")
        assert not quoted.search(text), f"{script.relative_to(JS)} names a problem"

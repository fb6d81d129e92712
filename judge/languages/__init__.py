"""Language plug-ins: one module per language in this package, each defining `LANGUAGE`
(judge/languages/base.py says what it provides)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from judge.languages.base import (
    Language,
    LanguageUnavailable,
    NotOffered,
    RunRequest,
    Style,
    UnknownLanguage,
)
from judge.problems import ProblemSpec

__all__ = [
    "Language",
    "LanguageUnavailable",
    "NotOffered",
    "RunRequest",
    "Style",
    "UnknownLanguage",
    "all_languages",
    "by_extension",
    "get_language",
    "resolve",
    "styles_of",
]

DEFAULT = "python"


@cache
def all_languages() -> dict[str, Language]:
    found: dict[str, Language] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        language = getattr(module, "LANGUAGE", None)
        if language is not None:
            found[language.name] = language
    return dict(sorted(found.items()))


# Every language's file name endings, by the name of its module (each module's LANGUAGE
# says them too: tests/judge/test_cli_start.py checks the two agree), so that naming the
# language of a file imports that language's module only, not every one (a fresh command's
# start: the C++ and JVM modules are not small).
EXTENSIONS = {".cc": "cpp", ".cpp": "cpp", ".java": "java", ".kt": "kotlin", ".py": "python"}


def get_language(name: str) -> Language:
    if name in set(EXTENSIONS.values()):  # its own module only (see EXTENSIONS)
        language = getattr(importlib.import_module(f"{__name__}.{name}"), "LANGUAGE", None)
        if language is not None and language.name == name:
            return language
    try:
        return all_languages()[name]
    except KeyError:
        known = ", ".join(all_languages())
        raise UnknownLanguage(f"unknown language {name!r}; known: {known}") from None


def by_extension(filename: str) -> Language | None:
    """The language a file name's ending names (".cc" -> C++), or None."""
    lower = filename.lower()
    for extension, name in EXTENSIONS.items():
        if lower.endswith(extension):
            return get_language(name)
    return None


def styles_of(problem: ProblemSpec) -> tuple[Style, ...]:
    """The styles a problem offers, as Styles (`ProblemSpec.styles` gives names)."""
    return tuple(Style(name) for name in problem.styles)


def resolve(problem: ProblemSpec, language: str, style: str) -> tuple[Language, Style]:
    """The language and style a submission names, or NotOffered (a ValueError) saying which
    ones there are: checked before anything runs."""
    found = get_language(language)
    offered = problem.styles
    if style not in offered:
        raise NotOffered(
            f"{problem.SLUG} is not graded in style {style!r}; offered: {', '.join(offered)}"
        )
    return found, Style(style)

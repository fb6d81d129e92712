"""The languages as the API offers them: which are installed (with their versions), the
language and style a request asks for checked against the problem (422 naming what is
offered), and what a problem's page shows per language (templates, limits).

The API and the workers run on one image (Dockerfile) or one machine (make run), so the
toolchains found here are the ones the workers grade with.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from fastapi import HTTPException, status

from api.schemas import LanguagePublic, ProblemLanguage
from judge import problems
from judge.languages import (
    Language,
    LanguageUnavailable,
    Style,
    all_languages,
    by_extension,
    styles_of,
)

# A toolchain's version takes a process start to read (seconds for kotlinc): read once, and
# again only after a while in case one was installed or removed meanwhile.
VERSION_TTL_S = 600.0
_versions: dict[str, tuple[float, str | None]] = {}
_lock = threading.Lock()


def version_of(language: Language) -> str | None:
    """The toolchain's version, None when it is not installed (cached VERSION_TTL_S)."""
    now = time.monotonic()
    with _lock:
        known = _versions.get(language.name)
        if known is not None and now - known[0] < VERSION_TTL_S:
            return known[1]
        try:
            found: str | None = language.version()
        except (LanguageUnavailable, OSError):
            found = None
        _versions[language.name] = (now, found)
        return found


def public(language: Language) -> LanguagePublic:
    found = version_of(language)
    return LanguagePublic(
        name=language.name,
        title=language.title,
        extensions=list(language.extensions),
        version=found,
        highlight=language.highlight,
        installed=found is not None,
        time_factor=language.time_factor,
        time_extra_s=language.time_extra_s,
        memory_extra_mb=language.memory_extra_mb,
    )


def on_problem(module: problems.ProblemSpec) -> list[ProblemLanguage]:
    """Each language with its template per offered style and its limits on this problem."""
    limits = module.LIMITS
    found = []
    for language in all_languages().values():
        templates = {str(s): language.template(module, s) for s in styles_of(module)}
        found.append(
            ProblemLanguage(
                **public(language).model_dump(),
                templates=templates,
                time_s=round(limits.time_s * language.time_factor, 3),
                start_s=language.time_extra_s,
                memory_mb=limits.memory_mb + language.memory_extra_mb,
            )
        )
    return found


def stdio_statement(module: problems.ProblemSpec) -> str | None:
    """The whole program's input and output format (markdown), when the problem has one."""
    return None if module.STDIO is None else module.STDIO.statement


@dataclass(frozen=True)
class Choice:
    language: Language
    style: Style


def _unprocessable(message: str) -> HTTPException:
    return HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=message)


def choose(
    module: problems.ProblemSpec,
    language: str | None,
    style: str | None,
    filename: str | None = None,
) -> Choice:
    """The language and style a request asks for: `language` when given, else the upload's
    file name extension, else Python; `style` when given, else function. 422 naming what is
    offered for an unknown language, a file name no language claims, a style the problem
    does not offer, or a toolchain not installed here."""
    known = all_languages()
    names = ", ".join(known)
    if language is None and filename is not None:
        picked = by_extension(filename)
        if picked is None:
            endings = ", ".join(e for lang in known.values() for e in lang.extensions)
            raise _unprocessable(
                f"cannot tell the language of {filename[:80]!r} from its name: "
                f"give `language` ({names}) or a file ending in {endings}"
            )
        chosen = picked
    else:
        name = language if language is not None else "python"
        if name not in known:
            raise _unprocessable(f"unknown language {name[:32]!r} (known: {names})")
        chosen = known[name]
    offered = styles_of(module)
    wanted = style if style is not None else Style.FUNCTION.value
    if wanted not in {s.value for s in offered}:
        raise _unprocessable(
            f"{module.SLUG} is not offered in style {wanted[:32]!r} "
            f"(offered: {', '.join(s.value for s in offered)})"
        )
    if version_of(chosen) is None:
        installed = ", ".join(n for n, lang in known.items() if version_of(lang) is not None)
        raise _unprocessable(
            f"{chosen.title} is not installed on this judge (installed: {installed or 'none'})"
        )
    return Choice(chosen, Style(wanted))

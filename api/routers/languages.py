"""The languages submissions may be written in, with their toolchains' versions."""

from __future__ import annotations

from fastapi import APIRouter

from api import offered_languages
from api.schemas import LanguagePublic
from judge.languages import all_languages

router = APIRouter(tags=["languages"])


# Public, like the problems: a visitor reads which languages a problem can be solved in.
@router.get("/languages", response_model=list[LanguagePublic])
def list_languages() -> list[LanguagePublic]:
    """Every language the judge knows, `installed` false (and no `version`) when its
    toolchain is missing here: submissions in it get 422."""
    return [offered_languages.public(language) for language in all_languages().values()]

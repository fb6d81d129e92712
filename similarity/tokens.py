"""A source as the tokens that survive a disguise: comments, whitespace and docstrings are
dropped, identifiers and literals become their class, keywords, operators and the
languages' built-in names stay as written.

Renaming a variable, rewording a comment or reindenting therefore changes nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Keyword, Literal, Name, Number, String, Text, _TokenType

# The judge's language names (judge.languages) and the lexer of each.
LEXERS = {"python": "python", "cpp": "cpp", "java": "java", "kotlin": "kotlin"}

IDENTIFIER = "I"
NUMBER = "0"
STRING = "S"


@dataclass(frozen=True, slots=True)
class Token:
    text: str  # normalised: IDENTIFIER, NUMBER, STRING or the keyword/operator itself
    start: int  # character offsets of the original text, for highlighting
    end: int


@cache
def _lexer(language: str) -> Lexer:
    # stripnl/ensurenl off: offsets must be those of the stored source.
    return get_lexer_by_name(LEXERS[language], stripnl=False, ensurenl=False)


def _normal(kind: _TokenType, value: str) -> str | None:
    """The token's class, or None for what a disguise changes freely."""
    if kind in Comment or kind in Text or kind in String.Doc or not value.strip():
        return None
    if kind in Comment.Preproc or kind in Comment.PreprocFile:
        return None  # (#include lines: the template's, never the student's own work)
    if kind in Name.Builtin or kind in Keyword:
        return value  # len, range, max, Int, boolean: part of the structure
    if kind in Name:
        return IDENTIFIER
    if kind in Number:
        return NUMBER
    if kind in String or kind in Literal:
        # a string is several tokens (quotes, escapes, interpolation): one class each, so
        # changing the text inside does not change the count
        return STRING if value[:1] in "\"'`" or kind in String.Delimiter else None
    return value


def tokenize(source: str, language: str) -> list[Token]:
    """The normalised tokens of `source`; raises KeyError for a language not in LEXERS."""
    tokens: list[Token] = []
    for start, kind, value in _lexer(language).get_tokens_unprocessed(source):
        text = _normal(kind, value)
        if text is None:
            continue
        if text == STRING and tokens and tokens[-1].text == STRING:
            continue  # the pieces of one literal (or adjacent literals): one token
        tokens.append(Token(text, start, start + len(value)))
    return tokens

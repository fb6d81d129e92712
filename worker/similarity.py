"""Fingerprinting a graded submission into the similarity index, and comparing it with the
earlier submissions the index names as candidates (similarity/, store.repo.similarity).

Called by the grading task after the verdict is stored (worker/tasks.py): the student has
the verdict already, and a failure here is logged and never touches the grading.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from similarity import fingerprints as fp
from similarity.templates import template_mask
from similarity.tokens import LEXERS, Token, tokenize
from store.repo import similarity as index

# For annotations only: the tests call index_submission without the sandbox a Runtime loads.
if TYPE_CHECKING:
    from worker.runtime import Runtime

log = logging.getLogger(__name__)

Tokens = tuple[list[Token], list[bool]]

CANDIDATES = 10  # earlier submissions compared exactly, of those sharing the most fingerprints
MIN_SHARED = 2  # fingerprints in common before a candidate is worth comparing
KEEP_FROM = 0.5  # pairs scoring less are not stored (the pages' threshold starts higher)


CACHED_SOURCE_CHARS = 16_000  # sources this long or shorter are kept lexed (most are ~1-3 KB)


def _tokens(submission_id: int, source: str, problem: str, language: str) -> Tokens:
    """A submission's tokens and template mask."""
    if len(source) <= CACHED_SOURCE_CHARS:
        return _cached_tokens(submission_id, source, problem, language)
    return _lexed(source, problem, language)


# Kept: a source never changes, and the same earlier submissions are the candidates of many
# new ones (lexing is most of the cost). Bounded in size as well as number: a token takes
# about a hundred bytes, and students choose how long their sources are.
@lru_cache(maxsize=1024)
def _cached_tokens(submission_id: int, source: str, problem: str, language: str) -> Tokens:
    return _lexed(source, problem, language)


def _lexed(source: str, problem: str, language: str) -> Tokens:
    tokens = tokenize(source, language)
    return tokens, template_mask(tokens, problem, language)


def index_submission(session: Session, submission_id: int) -> str:
    """Fingerprint the submission, compare it with its candidates, record the pairs found;
    returns what happened (for logs and tests)."""
    submission = index.source(session=session, submission_id=submission_id)
    if submission is None:
        return "no such submission"
    if submission.language not in LEXERS:
        return "language not indexed"
    tokens, template = _tokens(
        submission.id, submission.source, submission.problem, submission.language
    )
    prints = fp.fingerprints(tokens, template)
    if not index.add(
        session=session,
        submission=submission,
        tokens=template.count(False),
        fingerprints=prints,
    ):
        return "indexed already"  # (a second delivery of the message)
    found = index.candidates(
        session=session,
        submission=submission,
        hashes=[value for value, _ in prints],
        limit=CANDIDATES,
    )
    recorded = 0
    worth = [other_id for other_id, shared in found if shared >= MIN_SHARED]
    for other in index.sources(session=session, submission_ids=worth):
        other_tokens, other_template = _tokens(
            other.id, other.source, other.problem, other.language
        )
        result = fp.compare(other_tokens, tokens, other_template, template, fragments=False)
        if result.score < KEEP_FROM:
            continue
        match = index.Match(result.score, result.a_coverage, result.b_coverage, result.matched)
        recorded += index.record(session=session, earlier=other, later=submission, match=match)
    session.commit()
    return f"indexed, {len(found)} candidates, {recorded} pairs recorded"


def after_verdict(runtime: Runtime, submission_id: int) -> None:
    """Index a submission whose verdict was just stored. Best effort: logged on failure (a
    submission left out of the index is only a pair the instructor does not see)."""
    try:
        with runtime.session() as session:
            outcome = index_submission(session, submission_id)
        log.info("submission %s: similarity %s", submission_id, outcome)
    except Exception:
        log.warning("submission %s: similarity indexing failed", submission_id, exc_info=True)

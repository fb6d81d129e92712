"""Fingerprinting a graded submission into the similarity index, and comparing it with the
earlier submissions the index names as candidates (similarity/, store.repo.similarity).

Called by the grading task after the verdict is stored (worker/tasks.py): the student has
the verdict already, and a failure here is logged and never touches the grading.

`python -m worker.similarity backfill [--problem P]` indexes graded submissions the index
misses; `python -m worker.similarity rescore [--problem P]` recomputes pairs with the
common-fingerprint discount as it is now (docs/similarity.md, "When it runs").
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from judge import problems
from judge.problems.declared import declared_spec
from similarity import fingerprints as fp
from similarity.templates import spec_template_hashes, template_mask
from similarity.tokens import LEXERS, Token, tokenize
from store.repo import problem_packages
from store.repo import similarity as index

# For annotations only: the tests call index_submission without the sandbox a Runtime loads.
if TYPE_CHECKING:
    from worker.runtime import Runtime

log = logging.getLogger(__name__)

Tokens = tuple[list[Token], list[bool]]
# A problem's template hashes in a language: None for a built-in (similarity.templates knows
# its templates), an uploaded problem's from its published manifest.
Template = frozenset[int] | None

CANDIDATES = 10  # earlier submissions compared exactly, of those sharing the most fingerprints
MIN_SHARED = 2  # fingerprints in common before a candidate is worth comparing
KEEP_FROM = 0.5  # pairs scoring less are not stored (the pages' threshold starts higher)


CACHED_SOURCE_CHARS = 16_000  # sources this long or shorter are kept lexed (most are ~1-3 KB)


def _tokens(submission: index.Source, template: Template) -> Tokens:
    """A submission's tokens and template mask."""
    args = (submission.source, submission.problem, submission.language, template)
    if len(submission.source) <= CACHED_SOURCE_CHARS:
        return _cached_tokens(submission.id, *args)
    return _lexed(*args)


# Kept: a source never changes, and the same earlier submissions are the candidates of many
# new ones (lexing is most of the cost). Bounded in size as well as number: a token takes
# about a hundred bytes, and students choose how long their sources are.
@lru_cache(maxsize=1024)
def _cached_tokens(
    submission_id: int, source: str, problem: str, language: str, template: Template
) -> Tokens:
    return _lexed(source, problem, language, template)


def _lexed(source: str, problem: str, language: str, template: Template) -> Tokens:
    tokens = tokenize(source, language)
    return tokens, template_mask(tokens, problem, language, template)


def template_of(session: Session, problem: str, language: str) -> Template:
    """The problem's template hashes in the language (see Template). Read for each indexed
    submission (a small query, a few lines lexed): a cache by version id would mix up two
    databases used in one process (the tests do)."""
    if problem in problems.registry():
        return None
    version_id = problem_packages.published_version_id(session=session, slug=problem)
    if version_id is None:
        return frozenset()
    return _manifest_template(session, version_id, language)


def _manifest_template(session: Session, version_id: int, language: str) -> frozenset[int]:
    manifest = problem_packages.manifests(session=session, version_ids=[version_id])
    try:
        return spec_template_hashes(declared_spec(manifest[version_id]), language)
    except Exception:  # a manifest this code cannot read: compare without a template
        log.warning("version %s: no similarity template", version_id, exc_info=True)
        return frozenset()


def index_submission(session: Session, submission_id: int) -> str:
    """Fingerprint the submission, compare it with its candidates, record the pairs found;
    returns what happened (for logs and tests)."""
    submission = index.source(session=session, submission_id=submission_id)
    if submission is None:
        return "no such submission"
    if submission.language not in LEXERS:
        return "language not indexed"
    template = template_of(session, submission.problem, submission.language)
    tokens, mask = _tokens(submission, template)
    prints = fp.fingerprints(tokens, mask)
    if not index.add(
        session=session,
        submission=submission,
        tokens=mask.count(False),
        fingerprints=prints,
    ):
        return "indexed already"  # (a second delivery of the message)
    found, matches = _matches(session, submission, template)
    recorded = sum(
        index.record(session=session, earlier=other, later=submission, match=match)
        for other, match in matches
    )
    session.commit()
    return f"indexed, {len(found)} candidates, {recorded} pairs recorded"


def _common(session: Session, submission: index.Source, hashes: list[int]) -> frozenset[int]:
    """The problem's boilerplate among the submission's fingerprints (fp.is_common)."""
    return index.common_hashes(
        session=session,
        problem=submission.problem,
        language=submission.language,
        hashes=hashes,
        min_students=fp.COMMON_MIN_STUDENTS,
        share=fp.COMMON_SHARE,
    )


def _matches(
    session: Session, submission: index.Source, template: Template, before: int | None = None
) -> tuple[list[tuple[int, int]], list[tuple[index.Source, index.Match]]]:
    """The submission's candidates (other students' submissions sharing the most of its
    fingerprints but the common ones), and those of them scoring KEEP_FROM or more."""
    tokens, mask = _tokens(submission, template)
    hashes = [value for value, _ in fp.fingerprints(tokens, mask)]
    common = _common(session, submission, hashes)
    found = index.candidates(
        session=session,
        submission=submission,
        hashes=[value for value in hashes if value not in common],
        limit=CANDIDATES,
        before=before,
    )
    worth = [other_id for other_id, shared in found if shared >= MIN_SHARED]
    matches = []
    for other in index.sources(session=session, submission_ids=worth):
        other_tokens, other_mask = _tokens(other, template)
        result = fp.compare(other_tokens, tokens, other_mask, mask, fragments=False, common=common)
        if result.score >= KEEP_FROM:
            match = index.Match(result.score, result.a_coverage, result.b_coverage, result.matched)
            matches.append((other, match))
    return found, matches


def backfill(session: Session, problem: str | None = None) -> int:
    """Index the graded submissions the index misses (from before it, or whose indexing
    failed), oldest first as they arrived; returns how many were indexed."""
    done = 0
    for submission_id in index.unindexed(session=session, problem=problem):
        done += index_submission(session, submission_id).startswith("indexed,")
    return done


def rescore(session: Session, problem: str | None = None) -> dict[str, int]:
    """Recompute the pairs of the problem (or of every indexed one) from the index as it is
    now: each submission against its earlier candidates, with today's common-fingerprint
    discount (it grows as a class submits) and templates. Returns the pair counts."""
    counts = {"inserted": 0, "updated": 0, "deleted": 0}
    chosen = [problem] if problem is not None else index.indexed_problems(session=session)
    for slug in chosen:
        best: dict[tuple[int, int], index.Found] = {}
        templates: dict[str, Template] = {}
        for submission in index.sources(
            session=session, submission_ids=index.indexed(session=session, problem=slug)
        ):
            if submission.language not in LEXERS:
                continue
            language = submission.language
            if language not in templates:
                templates[language] = template_of(session, slug, language)
            template = templates[language]
            _, matches = _matches(session, submission, template, before=submission.id)
            for other, match in matches:
                key = (
                    min(other.user_id, submission.user_id),
                    max(other.user_id, submission.user_id),
                )
                if key not in best or best[key].match.score < match.score:
                    best[key] = index.Found(other, submission, match)
        for name, n in index.replace_pairs(
            session=session, problem=slug, found=best.values()
        ).items():
            counts[name] += n
        session.commit()
    return counts


def main(argv: list[str] | None = None) -> None:
    """`python -m worker.similarity backfill|rescore [--problem P]` on the configured database."""
    import argparse

    from config import Settings
    from store.db import make_engine, make_session_factory

    parser = argparse.ArgumentParser(prog="python -m worker.similarity")
    parser.add_argument("command", choices=["backfill", "rescore"])
    parser.add_argument("--problem", help="only this problem (slug)")
    args = parser.parse_args(argv)
    engine = make_engine(Settings().db_url)
    try:
        with make_session_factory(engine)() as session:
            if args.command == "backfill":
                print(f"{backfill(session, args.problem)} submissions indexed")
            else:
                counts = rescore(session, args.problem)
                print(", ".join(f"{n} pairs {name}" for name, n in counts.items()))
    finally:
        engine.dispose()


def after_verdict(runtime: Runtime, submission_id: int) -> None:
    """Index a submission whose verdict was just stored. Best effort: logged on failure (a
    submission left out of the index is only a pair the instructor does not see)."""
    try:
        with runtime.session() as session:
            outcome = index_submission(session, submission_id)
        log.info("submission %s: similarity %s", submission_id, outcome)
    except Exception:
        log.warning("submission %s: similarity indexing failed", submission_id, exc_info=True)


if __name__ == "__main__":
    main()

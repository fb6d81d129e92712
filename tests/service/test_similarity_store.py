"""The similarity index in the database (store.repo.similarity, filled by
worker.similarity.index_submission), on SQLite and PostgreSQL, each test rolled back:
candidates by shared fingerprints, a student's own submissions never count, a pair keeps the
best match, the reviewed mark, and a redelivered message indexes nothing twice."""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bench.similarity_corpus import copies, originals
from judge.languages import all_languages, styles_of
from judge.problems.declared import declared_spec, describe
from judge.problems.package import Package
from store import repo
from store.models import Fingerprint, Role, SimilarityDocument, SimilarPair
from store.repo import problem_packages
from store.repo import similarity as index
from worker.similarity import index_submission

ROOT = Path(__file__).resolve().parents[2]
MEMO = (ROOT / "problems/numbergame/submissions/accepted/numbergame_memo.py").read_text()
TABLE = (ROOT / "bench/similarity_solutions/numbergame_iterative_rows.py").read_text()
(DOC,) = [
    d for d in originals() if d.name.endswith("numbergame/submissions/accepted/numbergame_memo.py")
]
COPY = copies(DOC, random.Random(4))[0].source
TICTACTOE = ROOT / "tests/judge/packages/tictactoe"


def submit(
    session: Session, user: str, source: str, language: str = "python", problem: str = "numbergame"
) -> int:
    found = repo.get_user_by_name(session=session, username=user)
    if found is None:
        found = repo.create_user(
            session=session, username=user, password_hash="x", role=Role.STUDENT
        )
    sub = repo.create_submission(
        session=session,
        user_id=found.id,
        problem=problem,
        source=source,
        seed=1,
        language=language,
    )
    session.commit()
    return sub.id


def test_a_copy_by_another_student_makes_a_pair_and_an_independent_solution_none(
    session: Session,
) -> None:
    first = submit(session, "ann", MEMO)
    assert index_submission(session, first).startswith("indexed, 0 candidates")
    submit_table = submit(session, "cat", TABLE)
    assert index_submission(session, submit_table).endswith("0 pairs recorded")
    copied = submit(session, "bob", COPY)
    assert index_submission(session, copied).endswith("1 pairs recorded")
    (row,) = index.pairs(session=session, problems=["numbergame"], threshold=0.0)
    assert (row.user_a, row.user_b) == ("ann", "bob")
    assert (row.submission_a, row.submission_b) == (first, copied)
    assert row.score >= 0.8 and not row.reviewed
    assert index.pairs(session=session, problems=["footholds"], threshold=0.0) == []


def test_a_students_own_earlier_submissions_never_count(session: Session) -> None:
    first = submit(session, "ann", MEMO)
    index_submission(session, first)
    again = submit(session, "ann", COPY)
    assert index_submission(session, again).startswith("indexed, 0 candidates")
    assert session.scalar(select(func.count()).select_from(SimilarPair)) == 0


def test_the_index_holds_winnowed_fingerprints_once(session: Session) -> None:
    first = submit(session, "ann", MEMO)
    index_submission(session, first)
    count = session.scalar(select(func.count()).where(Fingerprint.submission_id == first))
    assert count is not None and 5 < count < 60  # about 2 / (W + 1) per token
    assert index_submission(session, first) == "indexed already"
    assert session.scalar(select(func.count()).where(Fingerprint.submission_id == first)) == count


def test_a_pair_keeps_its_best_match_and_a_better_one_clears_the_review(session: Session) -> None:
    teacher = repo.create_user(
        session=session, username="t", password_hash="x", role=Role.INSTRUCTOR
    )
    index_submission(session, submit(session, "ann", MEMO))
    index_submission(session, submit(session, "bob", COPY))
    (row,) = index.pairs(session=session, problems=["numbergame"], threshold=0.0)
    assert index.mark_reviewed(session=session, pair_id=row.id, by=teacher.id, reviewed=True)
    assert (
        index.pairs(session=session, problems=["numbergame"], threshold=0.0, reviewed=False) == []
    )
    index_submission(session, submit(session, "bob", TABLE))  # worse: nothing changes
    (same,) = index.pairs(session=session, problems=["numbergame"], threshold=0.0)
    assert same.reviewed and same.score == row.score
    exact = submit(session, "bob", MEMO)
    index_submission(session, exact)  # the very same source: better, shown again
    (better,) = index.pairs(session=session, problems=["numbergame"], threshold=0.0)
    assert better.score > same.score and not better.reviewed and better.submission_b == exact
    assert not index.mark_reviewed(session=session, pair_id=better.id + 1000, by=1, reviewed=True)


def test_an_uploaded_problems_templates_count_for_nothing(session: Session) -> None:
    """Its templates come from the published manifest, as the built-ins' from judge/."""
    slug = "ttt_similarity"
    manifest = describe(Package.load(TICTACTOE), (TICTACTOE / "problem.toml").read_text())
    problem = problem_packages.create_problem(session=session, slug=slug, user_id=None)
    version = problem_packages.add_version(
        session=session, slug=slug, digest="1" * 64, archive=b"zip", manifest=manifest, user_id=None
    )
    problem_packages.publish(session=session, problem=problem, version=version)
    session.commit()
    spec = declared_spec(manifest)
    (*_, stdio) = styles_of(spec)  # the reading loop: the longest template
    template = all_languages()["python"].template(spec, stdio)
    ids = [submit(session, user, template, problem=slug) for user in ("ann", "bob")]
    for submission_id in ids:
        index_submission(session, submission_id)
    assert index.pairs(session=session, problems=[slug], threshold=0.0) == []
    document = session.get(SimilarityDocument, ids[1])
    assert document is not None and document.tokens == 0

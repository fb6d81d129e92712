"""`python -m worker.similarity backfill|rescore` on a real PostgreSQL database: graded
submissions from before the index are fingerprinted once, and a rescore applies the
common-fingerprint discount to pairs found before a class was large enough for it (a helper
every student wrote alike stops pairing them; a real copy stays a pair, its review kept)."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy.orm import Session

from bench.similarity_corpus import rename
from similarity import fingerprints as fp
from store import repo
from store.db import make_engine, make_session_factory
from store.migrate import upgrade
from store.models import Role, Status
from store.repo import similarity as index
from tests.service.conftest import PG_ADMIN_DSN, PG_HOST, PG_PORT
from tests.service.test_similarity_store import MEMO, TABLE
from tests.similarity.test_fingerprints import HELPER
from worker import similarity

pytestmark = [pytest.mark.services]

# Enough students for the helper they all share to be common (fp.is_common).
CLASS = fp.COMMON_MIN_STUDENTS + 1
# A student's own lines, each a different shape of tokens; each student orders some of them.
LINES = [
    "x = len(board)",
    "if x > 0:\n        x -= 1",
    "for v in board:\n        x += v",
    "while x > 10:\n        x //= 2",
    "x = max(x, min(board))",
    "x = abs(x) % 7",
    "x = sorted(board)[0] or x",
    "x = x * x - 1",
    "y = [v for v in board if v]",
    "x += sum(y) if y else 0",
    "z = {v: 1 for v in board}",
    "x -= len(z)",
]


@pytest.fixture
def database(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database, the one the command's Settings read."""
    name = f"judge_backfill_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        url = f"postgresql+psycopg://postgres@{PG_HOST}:{PG_PORT}/{name}"
        try:
            upgrade(url)
            monkeypatch.setenv("JUDGE_DATABASE_URL", url)
            yield url
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def session_of(url: str) -> Session:
    return make_session_factory(make_engine(url))()


def graded(session: Session, user: str, source: str, status: str = Status.DONE) -> int:
    """A submission as grading left it, without indexing it (as before the feature)."""
    found = repo.get_user_by_name(session=session, username=user)
    if found is None:
        found = repo.create_user(
            session=session, username=user, password_hash="x", role=Role.STUDENT
        )
    sub = repo.create_submission(
        session=session, user_id=found.id, problem="numbergame", source=source, seed=1
    )
    sub.status = status
    session.commit()
    return sub.id


def own_code(rng: random.Random) -> str:
    """A student's own few lines, unlike anyone else's."""
    lines = "\n    ".join(rng.sample(LINES, 5))
    return f"def solution(board):\n    x = y = z = 0\n    {lines}\n    return x\n"


def test_backfill_indexes_graded_submissions_once(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with session_of(database) as session:
        first = graded(session, "ann", MEMO)
        copied = graded(session, "bob", rename(MEMO, "python", random.Random(2)))
        graded(session, "cat", TABLE)
        waiting = graded(session, "dan", MEMO, status=Status.QUEUED)
    similarity.main(["backfill", "--problem", "footholds"])
    assert capsys.readouterr().out == "0 submissions indexed\n"
    similarity.main(["backfill"])
    assert capsys.readouterr().out == "3 submissions indexed\n"
    similarity.main(["backfill"])
    assert capsys.readouterr().out == "0 submissions indexed\n"
    with session_of(database) as session:
        (pair,) = index.pairs(session=session, problems=["numbergame"], threshold=fp.THRESHOLD)
        assert (pair.submission_a, pair.submission_b) == (first, copied)
        assert not index.is_indexed(session=session, submission_id=waiting)


def test_rescore_discounts_what_the_whole_class_wrote_and_keeps_a_copy(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(27)
    with session_of(database) as session:
        teacher = repo.create_user(
            session=session, username="t", password_hash="x", role=Role.INSTRUCTOR
        )
        # Indexed as they arrive: the first ones, before the class is large, pair on HELPER.
        for n in range(CLASS):
            similarity.index_submission(session, graded(session, f"s{n}", own_code(rng) + HELPER))
        similarity.index_submission(session, graded(session, "ann", MEMO + HELPER))
        copy = rename(MEMO + HELPER, "python", random.Random(2))
        similarity.index_submission(session, graded(session, "bob", copy))
        shown = index.pairs(session=session, problems=["numbergame"], threshold=fp.THRESHOLD)
        assert len(shown) > 1  # the helper made pairs while the class was small
        (real,) = [p for p in shown if (p.user_a, p.user_b) == ("ann", "bob")]
        index.mark_reviewed(session=session, pair_id=real.id, by=teacher.id, reviewed=True)
        # On arrival now, the helper is common: a new student pairs with no one.
        similarity.index_submission(session, graded(session, "late", own_code(rng) + HELPER))
        shown = index.pairs(session=session, problems=["numbergame"], threshold=fp.THRESHOLD)
        assert not [p for p in shown if "late" in (p.user_a, p.user_b)]
    similarity.main(["rescore", "--problem", "numbergame"])
    assert "pairs deleted" in capsys.readouterr().out
    with session_of(database) as session:
        (kept,) = index.pairs(session=session, problems=["numbergame"], threshold=fp.THRESHOLD)
    assert (kept.user_a, kept.user_b, kept.id) == ("ann", "bob", real.id)
    assert kept.reviewed and kept.score >= fp.THRESHOLD

"""The seams between config/, store/, api/ and worker/: what each imports, the one hidden-board
filter, the one rule of who may see a submission, the live-progress poll and the history
cursor."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.exceptions import RequestValidationError
from sqlalchemy.orm import Session

from api.submission_input import HistoryCursor
from store import repo
from store.models import Board, Role, Status, Submission
from store.outcome import JudgingOutcome

PROJECT_PACKAGES = {"judge", "store", "api", "worker", "sqlalchemy", "celery", "fastapi"}


def modules_loaded_by(statements: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `statements` (this test
    process has everything loaded already)."""
    code = f"{statements}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(out.stdout))


def test_settings_import_no_other_package_of_the_project():
    loaded = modules_loaded_by("import config\nconfig.Settings(secret_key='x' * 32)")
    assert "config" in loaded
    assert {name for name in loaded if name.split(".")[0] in PROJECT_PACKAGES} == set()


def test_the_pages_package_imports_its_modules_at_the_top():
    # `api.web` imported its pages inside install() (a cycle): importing it now loads them.
    assert {"api.web.pages", "api.web.endpoints"} <= modules_loaded_by("import api.web")


def worker_imports(path: Path) -> list[str]:
    """The worker modules a source file imports, anywhere in it (a function's body too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return [name for name in found if name == "worker" or name.startswith("worker.")]


def test_only_the_composition_root_names_a_worker_module():
    # The API reaches the workers through the senders its Services hold (api/services.py);
    # create_app fills them, with worker.queue's Celery senders by default.
    api = Path(__file__).resolve().parents[2] / "api"
    named = {
        str(path.relative_to(api.parent)): imports
        for path in sorted(api.rglob("*.py"))
        if (imports := worker_imports(path))
    }
    assert named == {"api/main.py": ["worker.queue"]}


def submit(session: Session, username: str) -> Submission:
    user = repo.get_user_by_name(session=session, username=username)
    if user is None:
        user = repo.create_user(
            session=session, username=username, password_hash="x", role=Role.STUDENT
        )
    sub = repo.create_submission(
        session=session, user_id=user.id, problem="footholds", source="", seed=1
    )
    session.commit()
    return sub


def test_a_board_that_is_not_hidden_is_neither_counted_nor_graded(session: Session) -> None:
    kept = repo.add_board(
        session=session, problem="footholds", case={"b": 1}, answer=1, author_id=None
    )
    session.add(Board(problem="footholds", input={"b": 2}, answer=2, hidden=False))
    repo.add_board(session=session, problem="numbergame", case={"b": 3}, answer=3, author_id=None)
    session.flush()
    graded = repo.hidden_cases(session=session, problem="footholds")
    assert [case["id"] for case in graded] == [kept.id]
    assert repo.hidden_board_count(session=session, problem="footholds") == len(graded) == 1


def test_an_instructor_sees_every_submission_a_student_only_their_own(session: Session) -> None:
    alices = submit(session, "alice")
    alice = repo.get_user_by_name(session=session, username="alice")
    bob = repo.create_user(session=session, username="bob", password_hash="x", role=Role.STUDENT)
    teacher = repo.create_user(
        session=session, username="teacher", password_hash="x", role=Role.INSTRUCTOR
    )
    assert alice is not None

    def sees(viewer) -> bool:
        found = repo.visible_submission(session=session, submission_id=alices.id, viewer=viewer)
        return found is not None

    assert (sees(alice), sees(bob), sees(teacher)) == (True, False, True)
    missing = repo.visible_submission(session=session, submission_id=10**9, viewer=teacher)
    assert missing is None


def test_the_progress_poll_reads_after_the_cursor_and_nothing_once_done(session: Session) -> None:
    sub = submit(session, "alice")
    other = submit(session, "bob")
    claim = repo.claim(session=session, submission_id=sub.id, lease_s=30)
    assert claim is not None
    for index in range(3):
        test = {"index": index, "kind": "sample", "verdict": "AC"}
        assert repo.record_test(session=session, claim_=claim, test=test, lease_s=30)

    def poll(cursor):
        return repo.progress(session=session, cursors={sub.id: cursor, other.id: None})

    everything = poll(None)
    assert [(p.id, p.test and p.test.index) for p in everything] == [
        (sub.id, 0),
        (sub.id, 1),
        (sub.id, 2),
        (other.id, None),
    ]
    assert {p.status for p in everything} == {Status.RUNNING, Status.QUEUED}
    after_one = poll(repo.ProgressCursor(claim.token, 1))
    assert [p.test and p.test.index for p in after_one if p.id == sub.id] == [2]
    # A cursor of an earlier judging reads the current one from its start.
    stale = poll(repo.ProgressCursor(claim.token - 1, 1))
    assert [p.test and p.test.index for p in stale if p.id == sub.id] == [0, 1, 2]

    verdict = JudgingOutcome(verdict="AC", passed=3, total=3)
    assert repo.finish(session=session, claim_=claim, outcome=verdict)
    done = [p for p in poll(repo.ProgressCursor(claim.token, 0)) if p.id == sub.id]
    assert [(p.status, p.test) for p in done] == [(Status.DONE, None)]


def test_a_history_cursor_reads_back_what_it_wrote():
    at = datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)
    for older in (True, False):
        cursor = HistoryCursor(older=older, position=repo.Position(at, 42))
        assert HistoryCursor.parse(str(cursor)) == cursor
    assert str(HistoryCursor(older=True, position=repo.Position(at, 42))).startswith("o.")


@pytest.mark.parametrize("text", ["", "x.1.2", "o.1", "o.1.0", "n.1.12345678901", "o.-1.2"])
def test_a_cursor_the_api_did_not_give_out_is_refused(text: str):
    with pytest.raises(RequestValidationError):
        HistoryCursor.parse(text)

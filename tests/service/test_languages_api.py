"""Languages in the API (issue 10): GET /languages, the language and style of a submission or
a run (JSON, or an upload's file name), the 422s naming what is offered, each problem's
templates and limits per language, the history and CSV filtered by language, and migration
0011 up and down on PostgreSQL with rows from before it."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.orm import Session

from api import offered_languages
from judge import problems
from judge.languages import all_languages, styles_of
from store import repo
from store.migrate import alembic_config, upgrade
from tests.service.conftest import api_client
from tests.service.test_api import Recorder

FOUR = {"python", "cpp", "java", "kotlin"}
SOURCES = {
    "python": "def solution(board):\n    return 0\n",
    "cpp": "int main() { return 0; }\n",
    "java": "class Solution {}\n",
    "kotlin": "fun main() {}\n",
}


@pytest.fixture
def enqueued() -> Recorder:
    return Recorder()


@pytest.fixture
def runs_sent() -> list[int]:
    return []


@pytest.fixture
def client(session: Session, db_engine, enqueued, runs_sent) -> Iterator[TestClient]:
    with api_client(
        session,
        db_engine,
        enqueue=enqueued,
        enqueue_run=lambda run_id: runs_sent.append(run_id) is None,
        submit_rate_per_minute=100,
        max_queued_per_user=100,
        run_rate_per_minute=100,
    ) as test_client:
        yield test_client


def submit(client: TestClient, headers, **body):
    payload = {"problem": "numbergame", "source": SOURCES["python"]} | body
    return client.post("/api/v1/submissions", headers=headers, json=payload)


def upload(client: TestClient, headers, filename: str, source: str, **fields):
    return client.post(
        "/api/v1/submissions",
        headers=headers,
        data={"problem": "footholds", **fields},
        files={"file": (filename, source.encode(), "text/plain")},
    )


# ---- GET /languages -------------------------------------------------------------------------


def test_the_four_languages_are_listed_with_their_versions_without_login(client) -> None:
    listed = client.get("/api/v1/languages")
    assert listed.status_code == 200
    by_name = {entry["name"]: entry for entry in listed.json()}
    assert set(by_name) == FOUR
    assert by_name["cpp"]["extensions"][:2] == [".cpp", ".cc"]
    assert by_name["java"]["extensions"] == [".java"]
    assert by_name["kotlin"]["extensions"] == [".kt"]
    assert by_name["python"]["extensions"] == [".py"]
    for entry in by_name.values():
        # This machine has every toolchain (.ci/run fails without them).
        assert entry["installed"] is True, entry
        assert entry["version"], entry
        assert entry["title"] and entry["highlight"]
        assert entry["time_factor"] >= 1 and entry["time_extra_s"] >= 0
    assert "12." in by_name["cpp"]["version"]  # g++ 12
    assert "17" in by_name["java"]["version"]


def test_each_problem_shows_its_styles_templates_and_limits_per_language(client) -> None:
    for slug, module in problems.registry().items():
        shown = client.get(f"/api/v1/problems/{slug}").json()
        assert shown["styles"] == [s.value for s in styles_of(module)]
        assert {entry["name"] for entry in shown["languages"]} == FOUR
        for entry in shown["languages"]:
            language = all_languages()[entry["name"]]
            assert set(entry["templates"]) == set(shown["styles"])
            assert all(entry["templates"].values())
            limits = module.LIMITS
            assert entry["time_s"] == pytest.approx(limits.time_s * language.time_factor)
            assert entry["start_s"] == language.time_extra_s
            assert entry["memory_mb"] == limits.memory_mb + language.memory_extra_mb
    footholds = client.get("/api/v1/problems/footholds").json()
    assert footholds["styles"] == ["function"]
    templates = {e["name"]: e["templates"]["function"] for e in footholds["languages"]}
    assert "solution(board, aloc, bloc)" in templates["python"]
    assert "vector<vector<int>> board" in templates["cpp"]
    assert "int[][] board" in templates["java"]
    assert "board: Array<IntArray>" in templates["kotlin"]
    numbergame = client.get("/api/v1/problems/numbergame").json()
    assert numbergame["styles"] == ["function", "stdio"]
    assert "number of cases `C`" in numbergame["stdio_statement"]
    assert footholds["stdio_statement"] is None


# ---- choosing a language and a style --------------------------------------------------------


def test_a_submission_keeps_its_language_and_style(client, alice, enqueued) -> None:
    default = submit(client, alice)
    assert default.status_code == 202, default.text
    assert (default.json()["language"], default.json()["style"]) == ("python", "function")
    stdio = submit(client, alice, language="cpp", style="stdio", source=SOURCES["cpp"])
    assert stdio.status_code == 202, stdio.text
    shown = client.get(f"/api/v1/submissions/{stdio.json()['id']}", headers=alice).json()
    assert (shown["language"], shown["style"]) == ("cpp", "stdio")
    assert len(enqueued.sent) == 2


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"language": "cobol"}, "unknown language 'cobol' (known: cpp, java, kotlin, python)"),
        ({"language": "Python"}, "unknown language 'Python'"),
        ({"problem": "footholds", "style": "stdio"}, "offered: function)"),
        ({"style": "interactive"}, "offered: function, stdio)"),
    ],
)
def test_an_unknown_language_or_style_is_422_naming_the_offered_ones(
    client, alice, enqueued, body, words
) -> None:
    refused = submit(client, alice, **body)
    assert refused.status_code == 422, refused.text
    assert words in refused.json()["detail"]
    assert enqueued.sent == []


def test_a_language_whose_toolchain_is_missing_is_422(client, alice, enqueued, monkeypatch) -> None:
    # As if kotlinc were not installed: what version_of caches when the toolchain is missing.
    monkeypatch.setitem(offered_languages._versions, "kotlin", (time.monotonic(), None))
    refused = submit(client, alice, language="kotlin", source=SOURCES["kotlin"])
    assert refused.status_code == 422
    assert refused.json()["detail"] == (
        "Kotlin is not installed on this judge (installed: cpp, java, python)"
    )
    listed = {e["name"]: e for e in client.get("/api/v1/languages").json()}
    assert (listed["kotlin"]["installed"], listed["kotlin"]["version"]) == (False, None)
    assert enqueued.sent == []


@pytest.mark.parametrize(
    ("filename", "language"),
    [
        ("solution.py", "python"),
        ("Main.cpp", "cpp"),
        ("main.CC", "cpp"),
        ("Solution.java", "java"),
        ("solution.kt", "kotlin"),
    ],
)
def test_an_upload_picks_its_language_from_the_file_name(client, alice, filename, language) -> None:
    queued = upload(client, alice, filename, SOURCES[language])
    assert queued.status_code == 202, queued.text
    assert (queued.json()["language"], queued.json()["style"]) == (language, "function")


def test_an_uploads_language_field_wins_and_an_unknown_ending_is_422(client, alice) -> None:
    told = upload(client, alice, "solution.txt", SOURCES["kotlin"], language="kotlin")
    assert told.status_code == 202 and told.json()["language"] == "kotlin"
    stdio = client.post(
        "/api/v1/submissions",
        headers=alice,
        data={"problem": "numbergame", "style": "stdio"},
        files={"file": ("a.cc", SOURCES["cpp"].encode(), "text/plain")},
    )
    assert stdio.status_code == 202 and (stdio.json()["language"], stdio.json()["style"]) == (
        "cpp",
        "stdio",
    )
    unknown = upload(client, alice, "solution.rb", "puts 1\n")
    assert unknown.status_code == 422
    assert "cannot tell the language of 'solution.rb'" in unknown.json()["detail"]
    assert ".kt" in unknown.json()["detail"]


def test_a_run_takes_a_language_and_a_style(client, alice, runs_sent) -> None:
    started = client.post(
        "/api/v1/runs",
        headers=alice,
        json={"problem": "numbergame", "source": SOURCES["java"], "language": "java"},
    )
    assert started.status_code == 202, started.text
    shown = client.get(f"/api/v1/runs/{started.json()['id']}", headers=alice).json()
    assert (shown["language"], shown["style"]) == ("java", "function")
    assert runs_sent == [started.json()["id"]]
    refused = client.post(
        "/api/v1/runs",
        headers=alice,
        json={"problem": "footholds", "source": "x", "language": "kotlin", "style": "stdio"},
    )
    assert refused.status_code == 422 and "offered: function" in refused.json()["detail"]


def test_the_run_claim_carries_the_language_and_style(client, session, alice) -> None:
    started = client.post(
        "/api/v1/runs",
        headers=alice,
        json={
            "problem": "numbergame",
            "source": SOURCES["cpp"],
            "language": "cpp",
            "style": "stdio",
        },
    )
    claim = repo.claim_run(session=session, run_id=started.json()["id"], lease_s=60)
    assert claim is not None and (claim.language, claim.style) == ("cpp", "stdio")


# ---- the history ----------------------------------------------------------------------------


def test_history_and_csv_filter_by_language(client, alice, bob, teacher) -> None:
    ids = {}
    for language in ("python", "cpp", "kotlin", "cpp"):
        queued = submit(client, alice, language=language, source=SOURCES[language])
        ids.setdefault(language, []).append(queued.json()["id"])
    submit(client, bob, language="cpp", source=SOURCES["cpp"])
    mine = client.get("/api/v1/submissions?language=cpp", headers=alice).json()
    assert [item["id"] for item in mine["items"]] == ids["cpp"][::-1]
    assert {item["language"] for item in mine["items"]} == {"cpp"} and mine["total"] == 2
    everyone = client.get("/api/v1/submissions?language=cpp", headers=teacher).json()
    assert everyone["total"] == 3
    assert client.get("/api/v1/submissions?language=java", headers=alice).json()["items"] == []
    page = client.get("/api/v1/submissions?language=kotlin&limit=1", headers=alice).json()
    assert [(i["id"], i["style"]) for i in page["items"]] == [(ids["kotlin"][0], "function")]
    exported = client.get("/api/v1/submissions.csv?language=cpp", headers=teacher).text
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert [(r["username"], r["language"], r["style"]) for r in rows] == [
        ("bob", "cpp", "function"),
        ("alice", "cpp", "function"),
        ("alice", "cpp", "function"),
    ]


def test_a_held_submission_shows_its_language(client, session, alice, teacher) -> None:
    sid = submit(client, alice, language="java", source=SOURCES["java"]).json()["id"]
    session.execute(text("UPDATE submissions SET status = 'held' WHERE id = :id"), {"id": sid})
    session.commit()
    held = client.get("/api/v1/submissions/held", headers=teacher).json()
    assert [(h["id"], h["language"]) for h in held] == [(sid, "java")]


# ---- migration 0011 -------------------------------------------------------------------------


def test_migration_0011_gives_older_rows_python_functions_and_goes_back_down(postgres) -> None:
    url = postgres()
    upgrade(url, "0010")
    engine = create_engine(url)
    with engine.begin() as connection:
        user = connection.execute(
            text(
                "INSERT INTO users (username, password_hash, role, disabled, token_generation,"
                " created_at) VALUES ('old', 'x', 'student', false, 0, now()) RETURNING id"
            )
        ).scalar_one()
        for table, extra in (("submissions", ", seed"), ("runs", "")):
            columns = "user_id, problem, source, status, created_at" + extra
            values = (
                f":u, 'footholds', 'def solution(): pass', 'queued', now(){', 1' * bool(extra)}"
            )
            if table == "runs":
                columns += ", results, case_count, token, attempts"
                values += ", '[]', 0, 0, 0"
            else:
                columns += ", attempts, lease_token, priority, enqueued_at, resends"
                values += ", 0, 0, 'live', now(), 0"
            connection.execute(
                text(f"INSERT INTO {table} ({columns}) VALUES ({values})"), {"u": user}
            )
    upgrade(url, "0011")
    with engine.connect() as connection:
        for table in ("submissions", "runs"):
            row = connection.execute(text(f"SELECT language, style FROM {table}")).one()
            assert tuple(row) == ("python", "function"), table
    indexes = {i["name"] for i in inspect(engine).get_indexes("submissions")}
    assert "ix_submissions_language_created" in indexes
    command.downgrade(alembic_config(url), "0010")
    inspector = inspect(create_engine(url))
    for table in ("submissions", "runs"):
        columns = {c["name"] for c in inspector.get_columns(table)}
        assert not {"language", "style"} & columns, table
    assert "ix_submissions_language_created" not in {
        i["name"] for i in inspector.get_indexes("submissions")
    }
    with engine.connect() as connection:  # the rows survive the round trip
        assert connection.execute(text("SELECT count(*) FROM submissions")).scalar_one() == 1
    engine.dispose()

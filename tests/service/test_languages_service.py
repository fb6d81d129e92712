"""A student submits in each of the four languages through HTTP, a real Celery worker grades
each in the real sandbox, and the student reads the verdicts, the language and the style in
the submission, the history and the event stream (PostgreSQL + Redis, as deployed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import started_stack
from tests.service.stack import SOLUTIONS, Stack, solution

pytestmark = [pytest.mark.services, pytest.mark.sandbox]

# (problem, language, style, source file) -> the verdict the worker must reach
CASES = {
    ("numbergame", "python", "function", "numbergame_ok.py"): "AC",
    ("numbergame", "cpp", "function", "numbergame_ok.cpp"): "AC",
    ("numbergame", "cpp", "stdio", "numbergame_ok_stdio.cpp"): "AC",
    ("numbergame", "java", "function", "numbergame_wrong.java"): "WA",
    ("numbergame", "kotlin", "function", "numbergame_ok.kt"): "AC",
    ("numbergame", "cpp", "function", "numbergame_ce.cpp"): "CE",
}
# Kotlin compiles in about 3 s (its first compile more) on an idle machine; a busy one more.
TIMEOUT_S = 300


@pytest.fixture(scope="module")
def stack(tmp_path_factory, postgres, redis_main) -> Iterator[Stack]:
    # Judgings released to the student when they finish, not on the quanta that hide a
    # hidden tier's timing: one student's six submissions are graded one after another, each
    # once the one before is released.
    with started_stack(
        "languages",
        "services",
        tmp_path_factory,
        postgres,
        redis_main,
        runner=True,
        JUDGE_HIDDEN_RELEASE_QUANTUM_S="0",
    ) as running:
        yield running


def source_of(name: str) -> str:
    return (
        solution(name.removesuffix(".py"))
        if name.endswith(".py")
        else (SOLUTIONS / name).read_text()
    )


def submit(stack: Stack, token: str, problem: str, language: str, style: str, source: str) -> int:
    response = stack.request(
        "POST",
        "/api/v1/submissions",
        token,
        json={"problem": problem, "source": source, "language": language, "style": style},
    )
    assert response.status_code == 202, response.text
    assert (response.json()["language"], response.json()["style"]) == (language, style)
    return response.json()["id"]


def test_one_student_four_languages_real_worker(stack: Stack) -> None:
    token = stack.register("polyglot")
    languages = {e["name"]: e for e in stack.request("GET", "/api/v1/languages", token).json()}
    assert {"python", "cpp", "java", "kotlin"} <= {
        n for n, e in languages.items() if e["installed"]
    }

    submitted = {key: submit(stack, token, *key[:3], source_of(key[3])) for key in CASES}
    results: dict[tuple[str, ...], dict[str, Any]] = {}
    for key, sid in submitted.items():
        results[key] = stack.wait_done(token, sid, timeout=TIMEOUT_S)
    for key, body in results.items():
        _, language, style, _ = key
        assert (body["language"], body["style"]) == (language, style)
        assert body["verdict"] == CASES[key], (key, body["verdict"], body["message"])
        assert body["sandboxed"] is True
        if body["verdict"] == "CE":
            # The compiler's message, about the submission's own file and line, no judge path.
            assert body["message"] and "5" in body["message"], body["message"]
            assert str(Path(__file__).parents[2]) not in body["message"]
            assert "/tmp/" not in body["message"] and "/box/" not in body["message"]
            assert body["tests"] == []
            continue
        assert body["total"] == len(body["tests"]) > 0
        kinds = {t["kind"] for t in body["tests"]}
        assert {"sample", "random"} <= kinds, kinds
        if body["verdict"] == "AC":
            assert body["passed"] == body["total"]
        else:
            failing = next(t for t in body["tests"] if t["verdict"] != "AC")
            assert failing["verdict"] == "WA" and failing["expected"] != failing["got"]

    # The history filtered by language; every row says its language.
    cpp = stack.request("GET", "/api/v1/submissions", token, params={"language": "cpp"}).json()
    assert sorted(i["id"] for i in cpp["items"]) == sorted(
        sid for key, sid in submitted.items() if key[1] == "cpp"
    )
    assert {(i["language"], i["style"]) for i in cpp["items"]} == {
        ("cpp", "function"),
        ("cpp", "stdio"),
    }
    everything = stack.request("GET", "/api/v1/submissions", token).json()["items"]
    assert {i["language"] for i in everything} == {"python", "cpp", "java", "kotlin"}


def test_a_kotlin_submission_streams_its_tests_and_a_cpp_run_runs(stack: Stack) -> None:
    token = stack.register("streamer")
    sid = submit(stack, token, "numbergame", "kotlin", "function", source_of("numbergame_ok.kt"))
    events = list(stack.events(token, sid))
    assert events[-1][0] == "done"
    assert (events[-1][1]["verdict"], events[-1][1]["language"]) == ("AC", "kotlin")
    run = stack.request(
        "POST",
        "/api/v1/runs",
        token,
        json={
            "problem": "numbergame",
            "source": source_of("numbergame_ok.cpp"),
            "language": "cpp",
        },
    )
    assert run.status_code == 202, run.text
    done = dict(stack.events(token, run.json()["id"], feed="runs"))["done"]
    assert (done["outcome"], done["language"]) == ("done", "cpp")
    assert done["results"] and all(r["verdict"] == "AC" for r in done["results"])


def test_a_rejudge_keeps_the_language_and_style(stack: Stack) -> None:
    token = stack.register("rejudged")
    sid = submit(stack, token, "numbergame", "cpp", "stdio", source_of("numbergame_ok_stdio.cpp"))
    first = stack.wait_done(token, sid, timeout=TIMEOUT_S)
    assert first["verdict"] == "AC", first["message"]
    teacher = stack.instructor()
    again = stack.request("POST", f"/api/v1/submissions/{sid}/rejudge", teacher)
    assert again.status_code == 202, again.text
    body = stack.wait_done(token, sid, judgings=2, timeout=TIMEOUT_S)
    assert (body["verdict"], body["language"], body["style"]) == ("AC", "cpp", "stdio")
    assert [j["verdict"] for j in body["history"]] == ["AC", "AC"]

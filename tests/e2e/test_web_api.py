"""The JSON endpoints only the pages use (api/web/endpoints.py), and the page routes' headers,
over HTTP against the same running service (no browser)."""

from __future__ import annotations

import pytest

from judge import problems
from judge.grading.plan import small_positions
from judge.problems import registry
from tests.e2e.helpers import CORPUS, unique
from tests.service.stack import GRADE_TIMEOUT_S, wait_for

footholds = problems.get("footholds")  # the spec the judge grades with

pytestmark = pytest.mark.e2e

BOARD = {"board": [[1, 1, 1], [1, 1, 1]], "aloc": [0, 0], "bloc": [1, 2]}


def test_preview_validates_and_solves_without_saving(service):
    student = service.register(unique("prev"))
    teacher = service.instructor()
    url = "/api/v1/problems/footholds/boards/preview"
    # Students draw their own run cases with the same editor and preview.
    by_student = service.request("POST", url, student, json={"input": BOARD})
    assert by_student.status_code == 200 and by_student.json()["answer"] == footholds.reference(
        BOARD
    )
    assert service.request("POST", url, json={"input": BOARD}).status_code == 401
    before = service.request("GET", "/api/v1/problems/footholds/boards", teacher).json()

    response = service.request("POST", url, teacher, json={"input": BOARD})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answer"] == footholds.reference(BOARD)
    assert body["explanation"] == footholds.explain(BOARD)

    bad = dict(BOARD, aloc=[5, 5])
    response = service.request("POST", url, teacher, json={"input": bad})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("invalid board: aloc")
    missing = service.request(
        "POST", "/api/v1/problems/nope/boards/preview", teacher, json={"input": BOARD}
    )
    assert missing.status_code == 404
    assert service.request("GET", "/api/v1/problems/footholds/boards", teacher).json() == before


def test_plan_counts_samples_small_worst_hidden_and_random_boards(service):
    token = service.register(unique("plan"))
    teacher = service.instructor()
    url = "/api/v1/problems/footholds/plan"
    plan = service.request("GET", url, token).json()
    assert plan["samples"] == len(footholds.SAMPLES)
    assert plan["random"] == footholds.RANDOM_COUNT
    assert plan["small"] == 1 and plan["small_positions"] == len(small_positions(footholds))
    assert plan["worst"] == len(footholds.WORST_CASES) > 0
    parts = ("samples", "small", "worst", "hidden", "random")
    assert plan["total"] == sum(plan[part] for part in parts)
    # A hidden board the test adds is one more hidden test, and one more in all.
    board = service.request(
        "POST", "/api/v1/problems/footholds/boards", teacher, json={"input": BOARD}
    )
    try:
        more = service.request("GET", url, token).json()
    finally:
        service.request(
            "DELETE", f"/api/v1/problems/footholds/boards/{board.json()['id']}", teacher
        )
    assert (more["hidden"], more["total"]) == (plan["hidden"] + 1, plan["total"] + 1)
    assert service.request("GET", url).status_code == 401


def test_explanations_only_for_inputs_the_viewer_was_shown(service):
    """numbergame: its grading takes a fraction of footholds' full plan, and its tests are
    explained as footholds' are."""
    teacher = service.instructor()
    owner = service.register(unique("own"))
    other = service.register(unique("other"))
    boards = "/api/v1/problems/numbergame/boards"
    row = {"board": [5, -2, 8, 3, -7, 6, 1]}
    board = service.request("POST", boards, teacher, json={"input": row}).json()
    try:
        plan = service.request("GET", "/api/v1/problems/numbergame/plan", owner).json()
        source = (CORPUS / "accepted" / "numbergame_dp.py").read_text()
        sid = service.submit(owner, "numbergame", source)
        result = service.wait_done(owner, sid, timeout=GRADE_TIMEOUT_S)
    finally:
        service.request("DELETE", f"{boards}/{board['id']}", teacher)
    # The plan said what the grading then ran: as many tests, as many of them hidden.
    assert len(result["tests"]) == result["total"] == plan["total"]
    assert sum(t["kind"] == "hidden" for t in result["tests"]) == plan["hidden"] >= 1
    sample = next(t for t in result["tests"] if t["kind"] == "sample")
    hidden = next(t for t in result["tests"] if t["kind"] == "hidden")

    def explanation(token, index):
        return service.request("GET", f"/api/v1/submissions/{sid}/tests/{index}/explanation", token)

    shown = explanation(owner, sample["index"])
    assert shown.status_code == 200
    assert shown.json() == problems.get("numbergame").explain(sample["input"])
    assert explanation(teacher, sample["index"]).status_code == 200
    # Not a solver for arbitrary boards: hidden inputs, other people's work, absent tests.
    assert explanation(owner, hidden["index"]).status_code == 404
    assert explanation(other, sample["index"]).status_code == 404
    assert explanation(owner, 10_000).status_code == 404
    assert explanation(None, sample["index"]).status_code == 401


def test_statistics_count_the_verdicts_the_test_adds(service):
    """Figures before and after two submissions the test makes (one accepted, one not),
    compared with what the test knows it added: never with a total the endpoint derives."""
    solver, trier, idle = (service.register(unique(name)) for name in ("solv", "try", "idle"))
    teacher = service.instructor()
    url = "/api/v1/problems/numbergame/stats?days=7"

    def totals(token):
        rows = service.request("GET", "/api/v1/stats/problems", token).json()
        assert {r["slug"] for r in rows} == set(registry())
        return next(r for r in rows if r["slug"] == "numbergame")

    def detail():
        return service.request("GET", url, teacher).json()

    wait_for(lambda: detail()["pending"] == 0, timeout=GRADE_TIMEOUT_S, what="an idle queue")
    before, before_detail = totals(idle), detail()
    runs = [
        (solver, "accepted/numbergame_dp.py"),
        (trier, "runtime_error/numbergame_index_error.py"),
    ]
    for token, path in runs:
        sid = service.submit(token, "numbergame", (CORPUS / path).read_text())
        service.wait_done(token, sid, timeout=GRADE_TIMEOUT_S)

    after = totals(idle)
    assert (after["submissions"], after["accepted"], after["solvers"]) == (
        before["submissions"] + 2,
        before["accepted"] + 1,
        before["solvers"] + 1,
    )
    assert after["acceptance"] == pytest.approx(
        (before["accepted"] + 1) / (before["submissions"] + 2)
    )
    assert [totals(token)["mine"] for token in (solver, trier, idle)] == ["solved", "tried", None]

    added = detail()
    assert (added["submissions"], added["users"], added["solvers"], added["pending"]) == (
        before_detail["submissions"] + 2,
        before_detail["users"] + 2,
        before_detail["solvers"] + 1,
        0,
    )
    count = {v["verdict"]: v["count"] for v in added["verdicts"]}
    count_before = {v["verdict"]: v["count"] for v in before_detail["verdicts"]}
    assert {v: count[v] - count_before[v] for v in count} == {
        v: {"AC": 1, "RE": 1}.get(v, 0) for v in count
    }
    assert [v["verdict"] for v in added["verdicts"]][:2] == ["AC", "WA"]
    # Matched by date, not by position: a run that crosses midnight (UTC) moves the window.
    was = {day["date"]: (day["total"], day["accepted"]) for day in before_detail["days"]}
    grew = [
        (
            day["total"] - was.get(day["date"], (0, 0))[0],
            day["accepted"] - was.get(day["date"], (0, 0))[1],
        )
        for day in added["days"]
    ]
    assert (sum(t for t, _ in grew), sum(a for _, a in grew)) == (2, 1), grew
    assert len(added["days"]) == 7

    assert service.request("GET", url, solver).status_code == 403
    assert service.request("GET", url.replace("days=7", "days=0"), teacher).status_code == 422


def test_pages_carry_security_headers_and_local_assets(service):
    page = service.http.get("/problems/footholds")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "<script>" not in page.text  # no inline script: only /static modules and JSON data
    for asset in ("/static/js/app.js", "/static/css/app.css", "/static/favicon.svg"):
        assert service.http.get(asset).status_code == 200
    missing = service.http.get("/problems/nope", headers={"Accept": "text/html"})
    assert missing.status_code == 404 and "Page not found" in missing.text
    api_missing = service.http.get("/api/v1/nope", headers={"Accept": "text/html"})
    assert api_missing.status_code == 404
    assert api_missing.headers["content-type"].startswith("application/json")

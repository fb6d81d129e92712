"""The pages' scripts name verdicts only from the table every page embeds, built from
judge.verdict: rendering a page must carry exactly that table."""

from __future__ import annotations

import json
import re

from api.web import pages
from judge.verdict import Verdict
from tests.service.conftest import api_client


def embedded_verdicts(html: str) -> list[dict[str, object]]:
    found = re.search(r'<script type="application/json" id="verdicts">(.*?)</script>', html, re.S)
    assert found, "the page embeds no verdict table"
    return json.loads(found.group(1))


def test_every_page_embeds_the_verdicts_of_judge_verdict(session, db_engine) -> None:
    # The whole app: the problem list reads the catalog (built-in and published problems).
    with api_client(session, db_engine, enqueue=lambda *args: True) as client:
        responses = {path: client.get(path) for path in ("/login", "/problems", "/submissions/1")}
    for path, response in responses.items():
        assert response.status_code == 200, path
        table = embedded_verdicts(response.text)
        assert [row["code"] for row in table] == [v.value for v in Verdict]
        assert {row["code"]: row["label"] for row in table} == {
            v.value: v.description for v in Verdict
        }
        failures = {row["code"] for row in table if row["failure"]}
        assert failures == set(Verdict) - {Verdict.AC, Verdict.SKIPPED}
        assert all(row["css"] == str(row["code"]).lower() for row in table)


def test_no_script_keeps_a_verdict_table_of_its_own() -> None:
    # A table of their own would be keyed by the codes: `WA: "Wrong answer"`.
    codes = "|".join(v.value for v in Verdict)
    keyed = re.compile(rf"\b({codes})\s*:\s*[\"'`]")
    scripts = sorted((pages.STATIC_DIR / "js").rglob("*.js"))
    assert scripts
    for path in scripts:
        assert not keyed.search(path.read_text()), path

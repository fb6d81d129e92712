"""A regrade's score changes (store/score_changes.py): a student's attempts credited again
with a preview's new verdicts substituted, at the boundaries that decide whether a score
changes: the due time and an extension's, the late window's end, the attempt limit, best or
last, tests scoring, and an override (it stays, marked); and which submissions applying it
rejudges. Pure: no database, no clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from store.credit import Attempt, ProblemRule, Rules, deadline
from store.models import StrengthReport
from store.repo.regrades import ScoreChange, to_rejudge
from store.score_changes import Regraded, problem_change, substituted

RELEASE = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
DUE = datetime(2026, 12, 2, 23, 59, tzinfo=UTC)
SECOND = timedelta(seconds=1)
DAY = timedelta(days=1)
PER_DAY = {"late_rule": "per_day", "late_until": DUE + 3 * DAY, "late_percent": 20}
RULES = Rules(RELEASE, DUE, [ProblemRule("footholds", 10), ProblemRule("numbergame", 5)])
LATE = Rules(RELEASE, DUE, RULES.problems, **PER_DAY)  # type: ignore[arg-type]
WA = Regraded("WA")
AC = Regraded("AC")


def made(id: int, at: datetime, verdict: str | None = "AC", problem: str = "footholds"):
    return Attempt(id, problem, at, verdict)


def change(rules: Rules, attempts, regraded, when=None, overrides=None):
    when = when or deadline(rules)
    return problem_change(rules, when, attempts, regraded, "footholds", overrides or {})


def test_an_accepted_solution_now_failing_loses_its_points_and_the_total_follows():
    other = made(9, DUE, problem="numbergame")
    found = change(RULES, [made(1, DUE), other], {1: WA})
    assert found is not None
    assert (found.old, found.new, found.old_total, found.new_total) == (10, 0, 15, 5)
    assert not found.overridden and found.reason == "WA on 2 Dec 23:59 UTC, on time: 0%"


def test_a_verdict_change_that_leaves_the_score_is_no_change():
    # Best: another accepted one on time keeps the 10 points.
    assert change(RULES, [made(1, DUE - DAY), made(2, DUE)], {1: WA}) is None
    # Failing already, failing otherwise.
    assert change(RULES, [made(1, DUE, "WA")], {1: Regraded("TLE")}) is None


def test_after_the_cutoff_a_submission_is_practice_whatever_its_new_verdict():
    assert change(RULES, [made(1, DUE + SECOND, "WA")], {1: AC}) is None
    assert change(LATE, [made(1, DUE + 3 * DAY + SECOND, "WA")], {1: AC}) is None
    late = change(LATE, [made(1, DUE + 3 * DAY, "WA")], {1: AC})
    assert late is not None and (late.old, late.new) == (0, 4)  # 3 days late: 40% of 10


def test_the_penalty_of_the_time_it_was_made_applies_and_an_extension_moves_it():
    attempts = [made(1, DUE + SECOND, "WA")]
    plain = change(LATE, attempts, {1: AC})
    assert plain is not None and plain.new == 8  # a day late: 80%
    extended = deadline(LATE, DUE + DAY)
    inside = change(LATE, attempts, {1: AC}, when=extended)
    assert inside is not None and inside.new == 10 and "on time" in inside.reason


def test_beyond_the_attempt_limit_a_new_verdict_counts_for_nothing():
    rules = Rules(RELEASE, DUE, [ProblemRule("footholds", 10, max_attempts=1)])
    attempts = [made(1, DUE - DAY, "WA"), made(2, DUE, "WA")]
    assert change(rules, attempts, {2: AC}) is None
    first = change(rules, attempts, {1: AC})
    assert first is not None and (first.old, first.new) == (0, 10)


def test_last_credits_the_last_one_so_only_its_change_matters():
    rules = Rules(RELEASE, DUE, RULES.problems, counts="last")
    attempts = [made(1, DUE - DAY), made(2, DUE)]
    assert change(rules, attempts, {1: WA}) is None
    last = change(rules, attempts, {2: WA})
    assert last is not None and (last.old, last.new) == (10, 0)


def test_tests_scoring_reads_the_new_counts_per_kind():
    rules = Rules(RELEASE, DUE, [ProblemRule("footholds", 10, scoring="tests")])
    before = Attempt(1, "footholds", DUE, "AC", {"sample": (2, 2), "hidden": (0, 0)})
    now = Regraded("WA", {"sample": (2, 2), "hidden": (0, 1)})
    found = change(rules, [before], {1: now})
    assert found is not None and (found.old, found.new) == (10, 5)


def test_an_override_stays_and_the_computed_change_is_marked():
    found = change(RULES, [made(1, DUE)], {1: WA}, overrides={"footholds": 7})
    assert found is not None and found.overridden
    assert (found.old, found.new, found.old_total, found.new_total) == (7, 7, 7, 7)
    assert "computed 10 -> 0" in found.reason


def test_a_pending_submission_is_not_substituted():
    pending = made(1, DUE, None)
    assert substituted([pending], {1: AC}) == [pending]


def _item(id: int, verdict: str, passed: int, total: int) -> dict:
    return {"id": id, "user": "ann", "language": "python", "style": "function", "token": 1} | {
        "verdict": verdict,
        "passed": passed,
        "total": total,
    }


def test_applying_rejudges_changed_verdicts_and_only_the_credited_ones_whose_counts_move():
    items = [_item(1, "AC", 5, 5), _item(2, "WA", 3, 5), _item(3, "AC", 5, 5), _item(4, "AC", 5, 5)]
    results = {
        "1": {"verdict": "WA", "passed": 5, "total": 6},  # verdict changes
        "2": {"verdict": "WA", "passed": 4, "total": 6},  # counts change, credited
        "3": {"verdict": "AC", "passed": 6, "total": 6},  # counts change, credited by nobody
        "4": {"verdict": "AC", "passed": 5, "total": 5},  # nothing changes, credited
    }
    row = StrengthReport(report={"items": items, "results": results})
    found = [
        ScoreChange(1, "Week 1", 7, "ann", "footholds", 5, 3, 5, 3, False, "", (1, 2)),
        ScoreChange(2, "Week 2", 7, "ann", "footholds", 5, 4, 5, 4, False, "", (4,)),
    ]
    assert to_rejudge(row, found) == [1, 2]

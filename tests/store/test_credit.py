"""An assignment's credit (store/credit.py) at every boundary: the due time, the late
window's edges, an extension, the attempt limit, best or last, weighted tests, practice
after the window. Pure: no database, no clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from store.credit import (
    Attempt,
    ProblemRule,
    Rules,
    credit,
    credit_problem,
    days_late,
    deadline,
    is_practice,
    raw_fraction,
)

RELEASE = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
DUE = datetime(2026, 12, 2, 23, 59, tzinfo=UTC)
SECOND = timedelta(seconds=1)
DAY = timedelta(days=1)
AC_RULE = ProblemRule("footholds", 10)


def rules(**kw) -> Rules:
    base = {"release_at": RELEASE, "due_at": DUE, "problems": [AC_RULE]}
    return Rules(**(base | kw))


PER_DAY = {"late_rule": "per_day", "late_until": DUE + 3 * DAY, "late_percent": 20}
FIXED = {"late_rule": "fixed", "late_until": DUE + 2 * DAY, "late_factor": 0.5}


def ac(at: datetime, id: int = 1, verdict: str | None = "AC", **kw) -> Attempt:
    return Attempt(id, kw.get("problem", "footholds"), at, verdict, kw.get("tests", {}))


def one(r: Rules, attempts, when=None):
    return credit_problem(r, r.problems[0], when or deadline(r), attempts)


def test_exactly_at_the_due_time_is_on_time_and_a_second_later_is_nothing_without_a_window():
    r = rules()
    on_time = one(r, [ac(DUE)])
    assert (on_time.score, on_time.days_late, on_time.factor) == (10, 0, 1.0)
    assert on_time.reason == "AC on 2 Dec 23:59 UTC, on time: 100%"
    late = one(r, [ac(DUE + SECOND)])
    assert (late.score, late.submission_id) == (0, None)
    assert late.reason == "no submission that counts"


def test_before_the_release_counts_for_nothing():
    assert one(rules(), [ac(RELEASE - SECOND)]).score == 0
    assert one(rules(), [ac(RELEASE)]).score == 10


def test_per_started_day_late_down_to_the_window_end_inclusive():
    r = rules(**PER_DAY)
    assert days_late(DUE + SECOND, DUE) == 1
    assert days_late(DUE + DAY, DUE) == 1
    assert days_late(DUE + DAY + SECOND, DUE) == 2
    c = one(r, [ac(DUE + SECOND)])
    assert (c.score, c.days_late, c.factor) == (8, 1, 0.8)
    assert c.reason == "AC on 2 Dec 23:59:01 UTC, 1 day late: 80%"
    assert one(r, [ac(DUE + DAY + SECOND)]).score == 6
    assert one(r, [ac(DUE + 3 * DAY)]).score == pytest.approx(4)  # the cutoff itself counts
    after = one(r, [ac(DUE + 3 * DAY + SECOND)])
    assert (after.score, after.attempts) == (0, 0)  # practice: not even an attempt


def test_per_day_never_goes_below_zero():
    r = rules(late_rule="per_day", late_until=DUE + 10 * DAY, late_percent=40)
    assert one(r, [ac(DUE + 4 * DAY)]).score == 0


def test_a_fixed_factor_until_the_cutoff():
    r = rules(**FIXED)
    assert one(r, [ac(DUE + SECOND)]).score == 5
    assert one(r, [ac(DUE + 2 * DAY)]).score == 5
    assert one(r, [ac(DUE + 2 * DAY + SECOND)]).score == 0


def test_an_extension_moves_the_due_time_and_keeps_the_window_length_unless_given():
    r = rules(**FIXED)
    when = deadline(r, DUE + 3 * DAY)
    assert when.extended and when.cutoff == DUE + 5 * DAY
    assert one(r, [ac(DUE + 3 * DAY)], when).score == 10  # on time for this student
    assert one(r, [ac(DUE + 3 * DAY + SECOND)], when).score == 5
    assert one(r, [ac(DUE + 5 * DAY + SECOND)], when).score == 0
    own = deadline(r, DUE + DAY, DUE + DAY)  # no late window for this student
    assert one(r, [ac(DUE + DAY + SECOND)], own).score == 0
    assert deadline(rules(), DUE + DAY).cutoff == DUE + DAY  # no late rule: no window


def test_practice_after_the_cutoff():
    r = rules(**PER_DAY)
    assert not is_practice(deadline(r), DUE + 3 * DAY)
    assert is_practice(deadline(r), DUE + 3 * DAY + SECOND)
    assert not is_practice(deadline(r, DUE + 7 * DAY), DUE + 5 * DAY)


def test_best_takes_the_highest_score_after_penalty_and_last_the_last():
    r = rules(**PER_DAY)
    wa_on_time = ac(DUE - DAY, 1, "WA")
    ac_late = ac(DUE + 2 * DAY, 2)  # 60%
    wa_late = ac(DUE + 2 * DAY + SECOND * 60, 3, "WA")
    best = one(r, [wa_late, ac_late, wa_on_time])
    assert (best.submission_id, best.score, best.attempts) == (2, 6, 3)
    last = one(rules(counts="last", **PER_DAY), [wa_on_time, ac_late, wa_late])
    assert (last.submission_id, last.score) == (3, 0)
    assert last.reason.startswith("WA on 5 Dec 00:00 UTC, 3 days late")


def test_best_ties_go_to_the_earliest():
    c = one(rules(), [ac(DUE - SECOND, 2), ac(DUE - DAY, 1)])
    assert c.submission_id == 1


def test_last_skips_the_judges_failures():
    c = one(rules(counts="last"), [ac(DUE - DAY, 1), ac(DUE - SECOND, 2, "IE")])
    assert (c.submission_id, c.score) == (1, 10)


def test_the_attempt_limit_counts_the_first_ones_only():
    r = rules(problems=[ProblemRule("footholds", 10, max_attempts=2)])
    tries = [ac(DUE - 3 * DAY, 1, "WA"), ac(DUE - 2 * DAY, 2, "WA"), ac(DUE - DAY, 3)]
    c = one(r, tries)
    assert (c.score, c.attempts) == (0, 2)
    assert c.reason.endswith("(only the first 2 attempts count)")
    assert one(r, tries[1:]).score == 10


def test_pending_best_waits_only_when_it_could_do_better():
    r = rules(**PER_DAY)
    waiting = ac(DUE + DAY, 2, None)  # could earn 80%
    c = one(r, [ac(DUE - DAY, 1, "WA"), waiting])
    assert c.pending and c.reason.startswith("waiting for a verdict; so far WA")
    done = one(r, [ac(DUE - DAY, 1), waiting])
    assert not done.pending and done.score == 10


def test_pending_last_waits_and_shows_the_score_so_far():
    c = one(rules(counts="last"), [ac(DUE - DAY, 1), ac(DUE - SECOND, 2, None)])
    assert c.pending and c.submission_id == 1 and c.score == 10


def test_proportional_with_weights_per_kind():
    tests = {"sample": (2, 2), "small": (1, 1), "random": (5, 10), "hidden": (0, 4)}
    rule = ProblemRule("footholds", 20, scoring="tests", weights={"sample": 1, "hidden": 3})
    attempt = ac(DUE, verdict="WA", tests=tests)
    assert raw_fraction(rule, attempt) == pytest.approx(0.25)  # (1*1 + 3*0) / 4
    c = one(rules(problems=[rule]), [attempt])
    assert c.score == 5
    assert c.reason == "WA, 8/17 tests on 2 Dec 23:59 UTC, on time: 25% of the tests"
    unweighted = ProblemRule("footholds", 20, scoring="tests")
    assert raw_fraction(unweighted, attempt) == pytest.approx((1 + 1 + 0.5 + 0) / 4)


def test_proportional_late_and_compile_errors():
    rule = ProblemRule("footholds", 10, scoring="tests")
    r = rules(problems=[rule], **FIXED)
    late = one(r, [ac(DUE + DAY, verdict="WA", tests={"sample": (1, 2)})])
    assert late.score == 2.5 and late.reason.endswith(": 50% of the tests x 50%")
    assert one(r, [ac(DUE, verdict="CE")]).score == 0


def test_other_problems_and_order():
    two = rules(problems=[AC_RULE, ProblemRule("numbergame", 5)])
    credits = credit(two, deadline(two), [ac(DUE, 1, problem="numbergame")])
    assert [(c.problem, c.score) for c in credits] == [("footholds", 0), ("numbergame", 5)]

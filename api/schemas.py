"""Request and response bodies (XCreate = what a client sends, XPublic = what it gets)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, computed_field

from store.models import Priority, RunStatus

# Registration: 3 to 32 ASCII letters, digits, dots, dashes or underscores (nothing a
# database, a URL or a page could trip on).
Username = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{3,32}$")]
Slug = Annotated[str, Field(pattern=r"^[a-z0-9_]{1,64}$")]
DbId = Annotated[int, Path(ge=1, le=2**31 - 1)]  # ids in URLs; beyond int4 is just absent


def _as_utc(value: datetime) -> datetime:
    """Naive times are UTC; out-of-range ones are a client error, not a crash."""
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("date out of range") from exc


UtcDatetime = Annotated[datetime, AfterValidator(_as_utc)]


class Message(BaseModel):
    detail: str


def login_name_ok(name: str) -> bool:
    """Whether a login form's username could name an account. Wider than Username, since
    `python -m api create-user` accepts other names; never a control character (PostgreSQL
    refuses NUL in text) or more than the column holds."""
    return 0 < len(name) <= 64 and name.isprintable()


class UserCreate(BaseModel):
    username: Username
    password: str = Field(min_length=8, max_length=128)
    invite_code: str | None = Field(
        default=None, max_length=256, description="needed when registration is by invitation"
    )


class RegistrationInfo(BaseModel):
    mode: Literal["open", "invite", "closed"]


class UserPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    username: str
    role: Literal["student", "instructor"]
    created_at: datetime


class Token(BaseModel):
    access_token: str
    token_type: Literal["bearer"] = "bearer"


class LimitsPublic(BaseModel):
    time_s: float
    memory_mb: int
    total_s: float


class Sample(BaseModel):
    input: dict[str, Any]
    answer: Any


class ViewPublic(BaseModel):
    """How the pages draw and edit a problem's cases (judge.problems.View)."""

    kind: str  # a renderer and editor of the front end: "grid-two-pieces", "number-row"
    bounds: dict[str, int]  # what the editor checks before asking the judge


class ProblemSummary(BaseModel):
    slug: str
    title: str
    limits: LimitsPublic
    view: ViewPublic


class LanguagePublic(BaseModel):
    """A language submissions may be written in (GET /languages)."""

    name: str  # the API's value: "cpp"
    title: str  # "C++17"
    extensions: list[str]  # upload file name endings: [".cpp", ".cc"]
    version: str | None  # the toolchain's, None when it is not installed
    highlight: str  # the editor's syntax mode
    installed: bool
    # The problem's time limit is multiplied by time_factor, plus time_extra_s per process
    # start (a JVM's); memory_extra_mb is added to its memory limit.
    time_factor: float
    time_extra_s: float
    memory_extra_mb: int


class ProblemLanguage(LanguagePublic):
    """A language on one problem: its starting source per style and the limits it gets."""

    templates: dict[str, str]  # style -> source
    time_s: float  # per test: the problem's time_s * time_factor
    start_s: float  # time_extra_s, added to the first test of each process (a JVM's start)
    memory_mb: int  # the problem's memory_mb + memory_extra_mb


class ProblemPublic(ProblemSummary):
    statement: str  # markdown
    statement_html: str
    params: list[str]
    samples: list[Sample]
    # The signature, as type names: {"board": "int[][]", ...} and "int".
    param_types: dict[str, str]
    answer_type: str
    # The styles the problem offers ("function", and "stdio" when it declares an input
    # format) and, per language, its templates and its limits on this problem.
    styles: list[str] = ["function"]
    languages: list[ProblemLanguage] = []
    # The whole program's input and output format (markdown), when "stdio" is offered.
    stdio_statement: str | None = None
    # Until then students see each judging over its visible tests alone (None: each is
    # shown whole once released).
    hidden_release_at: datetime | None = None


class ReleaseUpdate(BaseModel):
    """When a problem's hidden results are released to students; null: as each judging
    ends."""

    hidden_release_at: UtcDatetime | None


class ReleasePublic(BaseModel):
    problem: str
    hidden_release_at: datetime | None


class BoardCreate(BaseModel):
    input: dict[str, Any]


class BoardPublic(BaseModel):
    id: int
    problem: str
    input: dict[str, Any]
    answer: int
    author: str | None
    created_at: datetime


class BoardCreated(BoardPublic):
    explanation: dict[str, Any]  # problem.explain(input): winner and one optimal line


LANGUAGE_FIELD = Field(
    default="python",
    max_length=32,
    description="a language's name from GET /languages: python, cpp, java, kotlin",
)
STYLE_FIELD = Field(
    default="function",
    max_length=32,
    description='"function" (solution(...)) or "stdio" (a whole program), as the problem offers',
)


class SubmissionCreate(BaseModel):
    problem: str = Field(max_length=64)
    source: str
    language: str = LANGUAGE_FIELD
    style: str = STYLE_FIELD


MAX_RUN_CASES = 10  # judge.run.MAX_CASES: a run is a quick experiment, not a test plan


class RunCreate(BaseModel):
    problem: str = Field(max_length=64)
    source: str
    language: str = LANGUAGE_FIELD
    style: str = STYLE_FIELD
    cases: list[Any] | None = Field(
        default=None,
        description=f"at most {MAX_RUN_CASES} cases (each a JSON object keyed by the problem's "
        "parameters); none: the problem's samples",
    )


class RunQueued(BaseModel):
    id: int
    status: RunStatus


class RunCasePublic(BaseModel):
    """One case of a run (judge.run's result entry): everything about it is the student's."""

    index: int
    input: Any = None
    answer: Any = None  # what the solution returned
    expected: Any = None  # the reference answer
    verdict: str | None = None
    message: str | None = None
    time_ms: float | None = None
    wall_ms: float | None = None
    memory_kb: int | None = None
    stdout: str = ""
    stderr: str = ""
    output_cut: bool = False
    error: str | None = None
    traceback: str | None = None


class RunPublic(BaseModel):
    id: int
    problem: str
    language: str = "python"
    style: str = "function"
    status: RunStatus
    # Once done: "done" (the cases ran), "compile_error" or "internal_error".
    outcome: str | None = None
    message: str | None = None
    results: list[RunCasePublic]
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None


class SubmissionQueued(BaseModel):
    id: int
    problem: str
    language: str = "python"
    style: str = "function"
    status: Literal["queued", "running", "done", "held"]
    created_at: datetime
    # The problem belongs to assignments, all past this student's cutoff: counts for nothing.
    practice: bool = False
    practice_note: str | None = None


class TestPublic(BaseModel):
    index: int
    kind: str
    verdict: str
    # Everything below is left out for hidden tests shown to students.
    time_ms: float | None = None
    wall_ms: float | None = None
    memory_kb: int | None = None
    message: str | None = None
    profile: str | None = None
    input: Any = None
    expected: Any = None
    got: Any = None
    counterexample: Any = None
    board_id: int | None = None  # hidden tests, for instructors: which hidden board
    positions: int | None = None  # the small tier: how many positions were tried
    # Visible tests only: what the submission printed (capped; output_cut when it was cut),
    # and on the first failing one of a function-style submission, where the bug is
    # ({"case", "expected", "got", "children": [{"case", "expected", "got"}...], "summary"}).
    stdout: str | None = None
    stderr: str | None = None
    output_cut: bool | None = None
    diagnosis: dict[str, Any] | None = None


class JudgingPublic(BaseModel):
    # As the viewer is shown it: a student's passed/total over the tests they are shown,
    # None when not known (an old judging whose tests are gone).
    verdict: str | None
    passed: int | None
    total: int | None
    max_time_ms: float
    peak_memory_kb: int
    seed: int
    judge_version: str | None
    problem_version: str | None = None  # the package digest it was graded against
    attempts: int
    reason: Priority  # "live" (submitted) or "rejudge"
    finished_at: datetime

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented form
    @property
    def reason_label(self) -> str:
        """The reason for people: "submitted" or "rejudged"."""
        return self.reason.label


class SubmissionSummary(BaseModel):
    id: int
    user: str
    problem: str
    language: str = "python"
    style: str = "function"
    # "received": an assignment shows this student nothing more before their due time.
    status: Literal["queued", "running", "done", "held", "received"]
    verdict: str | None
    passed: int | None
    total: int | None
    max_time_ms: float | None
    peak_memory_kb: int | None
    created_at: datetime
    # For students the release moment (whole seconds): see docs/ARCHITECTURE.md, "What
    # students see of a judging".
    finished_at: datetime | None
    # True: shown without the hidden tests (the problem holds them back until
    # hidden_release_at): the verdict, passed and total are the visible tests'.
    hidden_pending: bool = False
    hidden_release_at: datetime | None = None  # the problem's, while it holds them back


class SubmissionPublic(SubmissionSummary):
    source: str
    seed: int
    judge_version: str | None
    problem_version: str | None = None  # the package digest it was graded against
    attempts: int
    message: str | None
    sandboxed: bool | None
    started_at: datetime | None  # instructors only (it would time the grading's phases)
    # Held (grading kept being interrupted, an instructor decides): why, for instructors only.
    hold_reason: str | None = None
    # While queued: 1 when it is next in its lane (live or rejudge); None otherwise.
    queue_position: int | None = None
    # Waiting for a grader far beyond the normal (no grader alive, or longer than
    # max(60 s, 5x the recent median wait)): the page says so; the submission is safe.
    delayed: bool = False
    tests: list[TestPublic]
    history: list[JudgingPublic]  # every finished judging, oldest first (rejudges add rows)
    # Made after the student's cutoff of every assignment with the problem: counts for nothing.
    practice: bool = False
    practice_note: str | None = None


class HeldSubmission(BaseModel):
    """A submission held for an instructor: grading kept being interrupted."""

    id: int
    user: str
    problem: str
    created_at: datetime
    attempts: int
    hold_reason: str | None
    language: str = "python"


class SubmissionPage(BaseModel):
    items: list[SubmissionSummary]
    total: int  # matching submissions, counted up to a cap
    total_exact: bool = True  # False: more than `total` match
    limit: int
    offset: int
    next_cursor: str | None = None  # the older page; None on the last page
    prev_cursor: str | None = None  # the newer page; None on the first page


class RejudgeQueued(BaseModel):
    queued: list[int]


class ApiHealth(BaseModel):
    status: Literal["ok"]
    database: Literal["ok"]


class LaneHealth(BaseModel):
    alive: bool  # a worker of the lane has a fresh heartbeat
    workers: int


class Health(BaseModel):
    # "no grading worker": answered with 503; submissions wait, safe, until one starts.
    status: Literal["ok", "no grading worker"]
    database: Literal["ok"]
    lanes: dict[str, LaneHealth]  # grading, run, hidden, sweeper
    oldest_queued_s: float | None  # the oldest live submission waiting for a grader; None: none
    delayed: bool  # no grader, or that wait is far beyond the recent normal (the banner)


# -- the instructors' course view: the progress table, account management, board notes ---
MAX_BATCH = 100  # accounts created by one request: each password hash takes about 0.1 s


class ProgressCell(BaseModel):
    attempts: int
    verdict: str | None = Field(description="the best verdict of a graded submission")
    first_ac: datetime | None = Field(description="when the first accepted one was made")


class ProgressRow(BaseModel):
    user: str
    disabled: bool
    solved: int
    problems: dict[str, ProgressCell] = Field(description="only problems the student tried")


class ProgressPublic(BaseModel):
    problems: list[str]
    students: list[ProgressRow]


class RosterUser(BaseModel):
    id: int
    username: str
    role: Literal["student", "instructor"]
    disabled: bool
    created_at: datetime
    submissions: int


class RosterPage(BaseModel):
    items: list[RosterUser]
    more: bool = Field(description="more users matched than the limit")


class AccountsCreate(BaseModel):
    """Names one per line or as the first column of a CSV (a header `username` is skipped);
    or a list."""

    usernames: list[str] | None = Field(default=None, max_length=MAX_BATCH)
    csv: str | None = Field(default=None, max_length=64 * 1024)
    role: Literal["student", "instructor"] = "student"


class CreatedAccount(BaseModel):
    id: int
    username: str
    role: Literal["student", "instructor"]
    password: str = Field(description="the initial password, shown this once")


class AccountChange(BaseModel):
    disabled: bool


class NewPassword(BaseModel):
    username: Username
    password: str = Field(description="shown this once")


class BoardNotes(BaseModel):
    label: str | None = Field(default=None, max_length=80)
    note: str | None = Field(default=None, max_length=2000)


class BoardReport(BaseModel):
    id: int
    label: str | None
    note: str | None
    judged: int = Field(description="submissions whose current judging ran this board")
    failing: int = Field(description="... of them failing it; 0 of many: a weak board")
    failing_students: int


class CheckPublic(BaseModel):
    name: str
    ok: bool
    message: str


class CheckReportPublic(BaseModel):
    ok: bool
    checks: list[CheckPublic]


class ProblemVersionPublic(BaseModel):
    """One uploaded version of a problem; `report` is its check's (null while checking, and
    in lists)."""

    id: int
    slug: str
    number: int
    digest: str
    status: str  # checking, passed or failed
    title: str
    uploaded_by: str | None  # username
    created_at: datetime
    checked_at: datetime | None
    published: bool
    report: CheckReportPublic | None = None


class ProblemVersionList(BaseModel):
    items: list[ProblemVersionPublic]


class ProblemManaged(BaseModel):
    """A problem as instructors manage it: built-in or uploaded, its state and versions."""

    slug: str
    title: str
    state: str  # draft, published, hidden or retired
    builtin: bool
    published_version: ProblemVersionPublic | None
    latest_version: ProblemVersionPublic | None


class ProblemPublished(ProblemManaged):
    """A problem just published: the submissions sent to be rejudged (their ids)."""

    rejudged: list[int]


class PublishRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # True: rejudge, on the rejudge queue, the submissions whose verdict the version's
    # ready preview changes; False: publish only (new submissions use the version).
    rejudge: bool = False


class PreviewChange(BaseModel):
    submission_id: int
    user: str
    language: str
    style: str
    old_verdict: str | None
    old_passed: int | None
    old_total: int | None
    new_verdict: str | None  # None until graded (or the submission is gone)
    new_passed: int | None
    new_total: int | None
    changed: bool


class PreviewScoreChange(BaseModel):
    """One student's score of the problem in an assignment that the regrade changes."""

    assignment_id: int
    assignment: str  # its title
    student: str
    problem: str
    old: float
    new: float
    old_total: float  # the assignment's total, before
    new_total: float
    overridden: bool  # an instructor's score: it stays (old == new), the computed one changes
    reason: str


class RejudgePreview(BaseModel):
    """What publishing a version, or rejudging the problem as it is now (version_id None),
    would do to the problem's submissions' verdicts and to assignment scores."""

    slug: str
    version_id: int | None
    key: str  # what POST /problems/{slug}/rejudge {"preview": key} applies
    status: str  # computing, ready or failed
    done: int  # submissions graded so far
    total: int  # submissions in the preview
    truncated: bool  # more submissions could count than a preview grades (the newest kept)
    changed: int  # of those graded, how many get another verdict
    changes: list[PreviewChange]  # every submission of the preview, changed ones first
    score_changes: list[PreviewScoreChange]  # once ready: every score that changes
    error: str | None


class RejudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The key of a ready preview of the problem as it is now: rejudge the submissions whose
    # result it changes, and keep the scores they replace.
    preview: str = Field(min_length=1, max_length=64)


class RegradeScorePublic(BaseModel):
    id: int
    student: str
    problem: str
    preview_key: str
    applied_by: str | None
    applied_at: datetime
    old_score: float
    new_score: float  # what the preview expected
    old_total: float
    new_total: float
    overridden: bool
    reason: str


class RegradeList(BaseModel):
    items: list[RegradeScorePublic]


class ProblemManagedList(BaseModel):
    items: list[ProblemManaged]


class ProblemStateUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    state: Literal["published", "hidden", "retired"]


# ---- assignments (docs/assignments.md) ---------------------------------------------------

TestKindName = Literal["sample", "small", "worst", "random", "hidden"]


class AssignmentProblemBody(BaseModel):
    problem: Slug
    points: float = Field(gt=0, le=10_000)
    max_attempts: int | None = Field(default=None, ge=1, le=10_000)
    scoring: Literal["ac", "tests"] = "ac"
    # "tests": a weight per test kind (a kind left out weighs 0); None: every kind weighs 1.
    weights: dict[TestKindName, float] | None = None


class AssignmentBody(BaseModel):
    """An assignment as an instructor writes it (times in UTC; naive ones are UTC)."""

    title: str = Field(min_length=1, max_length=200)
    release_at: UtcDatetime
    due_at: UtcDatetime
    late_rule: Literal["none", "per_day", "fixed"] = "none"
    late_until: UtcDatetime | None = Field(
        default=None, description="the late window's end (per_day, fixed)"
    )
    late_percent: float | None = Field(
        default=None, gt=0, le=100, description="per_day: taken off per started day late"
    )
    late_factor: float | None = Field(
        default=None, gt=0, le=1, description="fixed: a late submission's score is multiplied by it"
    )
    counts: Literal["best", "last"] = "best"
    feedback: Literal["all", "visible", "received"] = "all"
    problems: list[AssignmentProblemBody] = Field(min_length=1, max_length=50)


class AssignmentPublic(AssignmentBody):
    id: int
    points: float  # the sum of the problems' points
    created_at: datetime
    updated_at: datetime


class ExtensionBody(BaseModel):
    due_at: UtcDatetime
    late_until: UtcDatetime | None = Field(
        default=None, description="None: a late window as long as the assignment's"
    )
    reason: str = Field(default="", max_length=2000)


class ExtensionPublic(BaseModel):
    user: str
    due_at: datetime
    late_until: datetime | None
    cutoff: datetime  # after it, nothing this student submits counts
    reason: str
    granted_by: str | None
    granted_at: datetime


class OverrideBody(BaseModel):
    score: float | None = Field(ge=0, le=10_000, description="None: back to the computed score")
    comment: str = Field(default="", max_length=2000)


class ScoreCell(BaseModel):
    problem: str
    points: float
    score: float
    reason: str  # one line a student can read
    submission_id: int | None  # the credited submission
    pending: bool  # a submission that may change it is still being judged
    attempts: int  # submissions that count
    overridden: bool = False


class GradebookRow(BaseModel):
    user: str
    disabled: bool = False
    due_at: datetime
    cutoff: datetime
    extended: bool
    total: float
    cells: list[ScoreCell]


class GradebookPublic(BaseModel):
    assignment: AssignmentPublic
    rows: list[GradebookRow]


class MyAssignment(BaseModel):
    """An assignment as one student sees it: their own deadline and scores."""

    id: int
    title: str
    release_at: datetime
    due_at: datetime  # theirs, with an extension
    cutoff: datetime  # the end of their late window (due_at without one)
    extended: bool
    late_rule: str
    late_percent: float | None
    late_factor: float | None
    counts: str
    feedback: str
    open: bool  # submitting now counts
    points: float
    total: float
    cells: list[ScoreCell]

"""Tables of the service (SQLAlchemy 2 typed declarative models).

A submission row holds the current judging: status, the latest verdict, and the claim
(lease_token, lease_expires) a worker holds while grading. Per-test rows are keyed by the
claim that produced them, so a crashed or superseded judging never mixes with the current
one. Every finished judging is also recorded in `judgings`, so a rejudge keeps the old
verdict in history.
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Stable constraint names, so migrations can refer to them on every backend.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes on every backend (SQLite stores naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime; use aware UTC datetimes")
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UTCDateTime, dict[str, Any]: JSON, Any: JSON}


class Role(enum.StrEnum):
    STUDENT = "student"
    INSTRUCTOR = "instructor"


class Status(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    # Grading kept being interrupted (worker deaths, infrastructure): no verdict, waiting
    # for an instructor to rejudge. Never the student's fault, so never an IE.
    HELD = "held"


class Priority(enum.StrEnum):
    """Why a submission is judged: its queue while it waits (Submission.priority), and the
    reason its finished judging records in the history (Judging.reason)."""

    LIVE = "live"  # the student submitted it: the live queue
    REJUDGE = "rejudge"  # an instructor asked again: the low-priority queue

    @property
    def label(self) -> str:
        """For people: the history says "submitted", not the queue's name."""
        return _PRIORITY_LABELS[self]


_PRIORITY_LABELS = {Priority.LIVE: "submitted", Priority.REJUDGE: "rejudged"}


class PriorityColumn(TypeDecorator[Priority]):
    """A Priority stored as its string (the column stays VARCHAR(16)); an unknown value
    fails loudly on write and on read instead of passing through as a plain str."""

    impl = String(16)
    cache_ok = True

    def process_bind_param(self, value: Priority | str | None, dialect: Any) -> str | None:
        return None if value is None else Priority(value).value

    def process_result_value(self, value: str | None, dialect: Any) -> Priority | None:
        return None if value is None else Priority(value)


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default=Role.STUDENT)
    # A disabled account cannot log in, and its tokens stop working (checked per request).
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    # Tokens carry the generation they were issued in; a new password starts a new one, so
    # every token issued before it stops working (checked per request).
    token_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LoginAttempt(Base):
    """A failed login or a registration attempt, kept while it counts towards a limit.

    Rows older than the longest window are deleted whenever a new one is written.
    """

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_kind_username", "kind", "username", "created_at"),
        Index("ix_login_attempts_kind_address", "kind", "address", "created_at"),
        Index("ix_login_attempts_created", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # failed_login | registration
    username: Mapped[str | None] = mapped_column(String(64))  # as typed; None when malformed
    address: Mapped[str] = mapped_column(String(64))  # client IP (an IPv6 /64)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Board(Base):
    """A hidden board an instructor added to a problem, with its cached reference answer."""

    __tablename__ = "boards"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    problem: Mapped[str] = mapped_column(String(64), index=True)
    input: Mapped[dict[str, Any]] = mapped_column(JSON)
    answer: Mapped[int] = mapped_column(BigInteger)
    hidden: Mapped[bool] = mapped_column(Boolean, default=True)
    # The instructor's own words about the board (what it is meant to catch).
    label: Mapped[str | None] = mapped_column(String(80))
    note: Mapped[str | None] = mapped_column(Text)
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    author: Mapped[User | None] = relationship(lazy="joined")


class StudentView:
    """What students are shown of a judging and from when (store/release.py), kept on the
    submission (its current judging) and on each judging of its history."""

    released_at: Mapped[datetime | None] = mapped_column()
    shown_passed: Mapped[int | None] = mapped_column(Integer)
    shown_total: Mapped[int | None] = mapped_column(Integer)
    visible_verdict: Mapped[str | None] = mapped_column(String(16))
    visible_passed: Mapped[int | None] = mapped_column(Integer)
    visible_total: Mapped[int | None] = mapped_column(Integer)


# What an assignment's gradebook reads of each submission besides the index's key.
GRADEBOOK_COLUMNS = ["user_id", "status", "verdict", "test_counts"]


class Submission(StudentView, Base):
    __tablename__ = "submissions"
    __table_args__ = (
        # History is newest first (created_at, id) and filtered by user, problem or verdict:
        # each filter's index ends with the order, so a page is an index range scan.
        Index("ix_submissions_created", "created_at", "id"),
        Index("ix_submissions_user_created", "user_id", "created_at", "id"),
        # Also the gradebook's attempts query, read from the index alone on PostgreSQL.
        Index(
            "ix_submissions_problem_created",
            "problem",
            "created_at",
            "id",
            postgresql_include=GRADEBOOK_COLUMNS,
        ),
        Index("ix_submissions_verdict_created", "verdict", "created_at", "id"),
        Index("ix_submissions_language_created", "language", "created_at", "id"),
        Index("ix_submissions_status_enqueued", "status", "enqueued_at"),
        # The sweeper asks what was claimed lately, to tell a lost message from a backlog.
        Index("ix_submissions_started", "started_at"),
        # The statistics: a cheap "has anything finished since?" and the per-problem counts
        # read from the index alone.
        Index("ix_submissions_finished", "finished_at"),
        Index("ix_submissions_problem_stats", "problem", "status", "verdict", "user_id"),
        # The course's progress table groups by (user, problem) from this index alone.
        Index("ix_submissions_progress", "user_id", "problem", "status", "verdict", "created_at"),
        # The students' statistics count verdicts once released: "what was released since?"
        Index("ix_submissions_released", "released_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(Text)
    # judge.languages names ("python", "cpp", "java", "kotlin") and styles (function, stdio).
    language: Mapped[str] = mapped_column(String(16), default="python", server_default="python")
    style: Mapped[str] = mapped_column(String(16), default="function", server_default="function")
    status: Mapped[str] = mapped_column(String(16), default=Status.QUEUED)
    verdict: Mapped[str | None] = mapped_column(String(16))
    passed: Mapped[int | None] = mapped_column(Integer)
    total: Mapped[int | None] = mapped_column(Integer)
    max_time_ms: Mapped[float | None] = mapped_column(Float)
    peak_memory_kb: Mapped[int | None] = mapped_column(BigInteger)
    seed: Mapped[int] = mapped_column(BigInteger)
    judge_version: Mapped[str | None] = mapped_column(String(64))
    message: Mapped[str | None] = mapped_column(Text)
    sandboxed: Mapped[bool | None] = mapped_column(Boolean)
    # Claims made for the current judging (reset by a rejudge): IE after too many.
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Fencing token: bumped by every claim and every rejudge, never reset. A worker writes
    # only while the row still carries the token it claimed with.
    lease_token: Mapped[int] = mapped_column(Integer, default=0)
    lease_expires: Mapped[datetime | None] = mapped_column()
    priority: Mapped[Priority] = mapped_column(PriorityColumn(), default=Priority.LIVE)
    # Why the latest attempt was given back (an infrastructure error), and, once held, why
    # it is held: for instructors only.
    last_failure: Mapped[str | None] = mapped_column(Text)
    hold_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # When the latest message for the row was sent (or is due, for a delayed retry), and how
    # many times the sweeper has sent it again since: the sweeper backs off on both.
    enqueued_at: Mapped[datetime] = mapped_column(default=utcnow)
    resends: Mapped[int] = mapped_column(Integer, default=0)
    # When the latest message was dropped while another of the user's submissions went
    # first: the worker finishing that one sends it again (only then: one still queued
    # arrives), and the sweeper counts it as the queue moving.
    deferred_at: Mapped[datetime | None] = mapped_column()
    # The latest message may be claimed out of the queue's order (sent delayed, for the
    # release of the user's previous judging, or sent again by the sweeper while the first
    # may still be queued): its claim is no sign to the sweeper that the queue moved past
    # older rows.
    # (The database's default only: a write naming no column added after it stays valid for
    # the schema before, as the migration tests write rows.)
    sent_out_of_order: Mapped[bool] = mapped_column(Boolean, server_default=false())
    started_at: Mapped[datetime | None] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column()
    # The worker (its WorkerHeartbeat row) holding the current claim: when the lease runs out,
    # whether that worker was being stopped says if the attempt counts (store/repo/judging.py).
    claimed_by: Mapped[int | None] = mapped_column(Integer)
    # Set while the grading waits for its hidden tier on the hidden lane: none of its code
    # runs in its worker then, so that worker dying is not counted as its attempt.
    away_since: Mapped[datetime | None] = mapped_column()
    # The package digest (problem_versions.digest, or a built-in's) the current judging
    # graded against: which version of the problem a verdict is about.
    problem_version: Mapped[str | None] = mapped_column(String(64))
    # The current judging's passed and total tests per kind ({"sample": [2, 3], ...}),
    # stored when it ends so that "tests" scoring reads no test rows (store/credit.py);
    # None until then (SQL NULL, not JSON null: the gradebook tells the two apart).
    test_counts: Mapped[dict[str, Any] | None] = mapped_column(
        JSON(none_as_null=True), nullable=True
    )
    # What students are shown of the current judging, and from when (StudentView).

    user: Mapped[User] = relationship(lazy="joined")


class TestRow(Base):
    """One test of one judging (identified by the claim token that produced it)."""

    __tablename__ = "test_results"
    __table_args__ = (
        UniqueConstraint("submission_id", "lease_token", "index"),
        # How many submissions fail each hidden board: hidden rows only, read from here.
        Index(
            "ix_test_results_board",
            "board_id",
            "verdict",
            "submission_id",
            postgresql_where=text("board_id IS NOT NULL"),
            sqlite_where=text("board_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # No index of its own: the unique constraint's index leads with it.
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    lease_token: Mapped[int] = mapped_column(Integer)
    index: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    verdict: Mapped[str] = mapped_column(String(16))
    time_ms: Mapped[float] = mapped_column(Float, default=0.0)
    wall_ms: Mapped[float] = mapped_column(Float, default=0.0)
    memory_kb: Mapped[int] = mapped_column(BigInteger, default=0)
    message: Mapped[str] = mapped_column(Text, default="")
    profile: Mapped[str | None] = mapped_column(String(64))
    # Visible tests only (samples, small tier, worst cases, random boards): NULL for hidden.
    input: Mapped[Any] = mapped_column(JSON, nullable=True)
    expected: Mapped[Any] = mapped_column(JSON, nullable=True)
    got: Mapped[Any] = mapped_column(JSON, nullable=True)
    counterexample: Mapped[Any] = mapped_column(JSON, nullable=True)
    # Hidden tests only: which board it was (no foreign key: a board may be deleted later).
    board_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The small tier only: how many positions were tried (all of them, or up to the first
    # failing one, which is this row's input).
    positions: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Visible tests only: what the submission printed (capped, cleaned), whether it was cut,
    # and on the first failing visible test of a function-style submission where the bug is.
    stdout: Mapped[str | None] = mapped_column(Text, nullable=True)
    stderr: Mapped[str | None] = mapped_column(Text, nullable=True)
    output_cut: Mapped[bool] = mapped_column(Boolean, default=False)
    diagnosis: Mapped[Any] = mapped_column(JSON, nullable=True)


class RunStatus(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"  # the cases ran (or the source did not compile: `outcome` says which)
    ERROR = "error"  # the judge could not run it: `message` says so in plain words


class Run(Base):
    """A run: a student's source on the samples or on their own cases, not a submission.

    Never in the history, the statistics, the strength report, the course's progress or the
    CSV exports: nothing there reads this table. Rows are deleted a day after they were made.
    """

    __tablename__ = "runs"
    __table_args__ = (
        Index("ix_runs_user_created", "user_id", "created_at"),
        Index("ix_runs_created", "created_at"),
        Index("ix_runs_status", "status", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(Text)
    language: Mapped[str] = mapped_column(String(16), default="python", server_default="python")
    style: Mapped[str] = mapped_column(String(16), default="function", server_default="function")
    cases: Mapped[Any] = mapped_column(JSON, nullable=True)  # None: the problem's samples
    status: Mapped[str] = mapped_column(String(16), default=RunStatus.QUEUED)
    # judge.run.RunResult's status once it ran: done | compile_error | internal_error.
    outcome: Mapped[str | None] = mapped_column(String(16))
    results: Mapped[Any] = mapped_column(JSON, default=list)  # one entry per finished case
    case_count: Mapped[int] = mapped_column(Integer, default=0)  # len(results), cheap to poll
    message: Mapped[str | None] = mapped_column(Text)
    # Bumped by every claim: only the latest claim writes, and a restarted run's stream
    # starts over (the same cursor as a submission's judging).
    token: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_expires: Mapped[datetime | None] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column()


class Judging(StudentView, Base):
    """A finished judging of a submission: the verdict history that rejudges keep."""

    __tablename__ = "judgings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    lease_token: Mapped[int] = mapped_column(Integer)
    verdict: Mapped[str] = mapped_column(String(16))
    passed: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    max_time_ms: Mapped[float] = mapped_column(Float, default=0.0)
    peak_memory_kb: Mapped[int] = mapped_column(BigInteger, default=0)
    seed: Mapped[int] = mapped_column(BigInteger)
    judge_version: Mapped[str | None] = mapped_column(String(64))
    message: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer)
    reason: Mapped[Priority] = mapped_column(PriorityColumn(), default=Priority.LIVE)
    finished_at: Mapped[datetime] = mapped_column(default=utcnow)
    problem_version: Mapped[str | None] = mapped_column(String(64))  # as Submission's
    # What students are shown of this judging and from when (StudentView). None on judgings
    # from before migration 0012 whose tests were gone by then (nothing to count).


class ProblemRelease(Base):
    """A problem whose hidden results are held back from students until a time ("pretests
    now, system tests at the deadline"): until `hidden_release_at` students see each
    judging over the visible tests alone. No row: released as each judging ends."""

    __tablename__ = "problem_releases"

    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    hidden_release_at: Mapped[datetime] = mapped_column()
    set_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class SandboxUidBlock(Base):
    """A worker's range of sandbox uids, leased: block N is uids base + N * size onwards.

    Workers on one host share the kernel's uids but not /run, where the slot locks live
    (containers), so each claims a block of its own here at start and renews it while it
    runs. The holder's identity says whether it is provably gone (same boot and pid
    namespace, and that process no longer exists), so a restarted worker need not wait for
    the lease to expire.
    """

    __tablename__ = "sandbox_uid_blocks"

    block: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    host: Mapped[str] = mapped_column(String(255))
    boot_id: Mapped[str] = mapped_column(String(64))
    pid_namespace: Mapped[str] = mapped_column(String(64))
    pid: Mapped[int] = mapped_column(Integer)
    started: Mapped[int] = mapped_column(BigInteger)  # the process's start time (clock ticks)
    expires_at: Mapped[datetime] = mapped_column()


class WorkerHeartbeat(Base):
    """A worker process of one lane (grading, run, hidden, sweeper), alive while it beats.

    Written by the process's main thread every few seconds (worker/liveness.py); /healthz
    reads it. `stopping_at`: the worker was asked to stop (SIGTERM, a deploy), so a grading
    it leaves unfinished is not held against its submission. Rows of dead workers are kept
    a day (the claims they held are judged by them), then deleted.
    """

    __tablename__ = "worker_heartbeats"
    __table_args__ = (Index("ix_worker_heartbeats_lane_beat", "lane", "beat_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lane: Mapped[str] = mapped_column(String(16))
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    beat_at: Mapped[datetime] = mapped_column(default=utcnow)
    stopping_at: Mapped[datetime | None] = mapped_column()


class StrengthReport(Base):
    """A test-strength report computed by a worker, cached per hidden-board set.

    `key` names everything the report depends on (problem, hidden boards, options, judge
    version), so a new or deleted board makes a new key and old reports are simply not read.
    Rejudge previews are kept here too, keyed alike (store/repo/rejudge_previews.py).
    """

    __tablename__ = "strength_reports"
    __table_args__ = (Index("ix_strength_reports_problem", "problem", "requested_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)
    problem: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="computing")  # computing|ready|failed
    report: Mapped[Any] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text)
    requested_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column()


class ProblemState(enum.StrEnum):
    DRAFT = "draft"  # uploaded, never published: instructors only
    PUBLISHED = "published"
    HIDDEN = "hidden"  # students do not see it at all
    RETIRED = "retired"  # students see it and their history; no new submissions or runs


class CheckStatus(enum.StrEnum):
    CHECKING = "checking"
    PASSED = "passed"
    FAILED = "failed"


class Problem(Base):
    """A problem uploaded as a package (the built-ins need no row): its state and the
    version students are graded against."""

    __tablename__ = "problems"

    slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    state: Mapped[str] = mapped_column(String(16), default=ProblemState.DRAFT)
    published_version_id: Mapped[int | None] = mapped_column(
        ForeignKey("problem_versions.id", ondelete="SET NULL")
    )
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ProblemVersion(Base):
    """One uploaded zip of a problem, as received, with what the API shows of it (`manifest`,
    read without running its code) and its check's report (from a worker)."""

    __tablename__ = "problem_versions"
    __table_args__ = (
        UniqueConstraint("slug", "digest", name="uq_problem_versions_slug_digest"),
        UniqueConstraint("slug", "number", name="uq_problem_versions_slug_number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), index=True)
    number: Mapped[int] = mapped_column(Integer)  # 1, 2, 3... per slug
    digest: Mapped[str] = mapped_column(String(64))  # judge.problems.package.digest_of
    archive: Mapped[bytes] = mapped_column(LargeBinary)
    manifest: Mapped[Any] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default=CheckStatus.CHECKING)
    report: Mapped[Any] = mapped_column(JSON, nullable=True)
    uploaded_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # When the check was last sent to the run lane, and how many times the sweeper sent it
    # again: a check a dead worker left is sent again, then failed.
    check_sent_at: Mapped[datetime] = mapped_column(default=utcnow)
    check_sends: Mapped[int] = mapped_column(Integer, default=1)
    checked_at: Mapped[datetime | None] = mapped_column()

    uploader: Mapped[User | None] = relationship(lazy="joined")


class LateRule(enum.StrEnum):
    """What a submission made after the due time (and up to the late window's end) earns."""

    NONE = "none"  # no late window: after the due time nothing counts
    PER_DAY = "per_day"  # late_percent off per started day late (never below 0)
    FIXED = "fixed"  # the score times late_factor, whatever the delay


class CountRule(enum.StrEnum):
    BEST = "best"  # the best score among the submissions that count
    LAST = "last"  # the last submission that counts (one the judge failed on is skipped)


class Feedback(enum.StrEnum):
    """What a student is shown of their judgings of an assignment's problems before their
    due time (store/release.py holds; store/credit.py knows nothing of it)."""

    ALL = "all"  # everything, as for any problem
    VISIBLE = "visible"  # the visible tests now, the hidden ones at the due time
    RECEIVED = "received"  # only "received" until the due time


class Scoring(enum.StrEnum):
    AC = "ac"  # all the points on AC, none otherwise
    TESTS = "tests"  # proportional to the passed tests, weighted per test kind


class Assignment(Base):
    """A set of problems with points, due at a time. Students do not see it before
    `release_at`; what counts and how late work is marked down is store/credit.py's."""

    __tablename__ = "assignments"
    # The students' list: those released by now.
    __table_args__ = (Index("ix_assignments_release", "release_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    release_at: Mapped[datetime] = mapped_column()
    due_at: Mapped[datetime] = mapped_column()
    late_rule: Mapped[str] = mapped_column(String(16), default=LateRule.NONE)
    late_until: Mapped[datetime | None] = mapped_column()  # the late window's end (inclusive)
    late_percent: Mapped[float | None] = mapped_column(Float)  # PER_DAY: off per started day
    late_factor: Mapped[float | None] = mapped_column(Float)  # FIXED: 0 < factor <= 1
    counts: Mapped[str] = mapped_column(String(8), default=CountRule.BEST)
    feedback: Mapped[str] = mapped_column(String(16), default=Feedback.ALL)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Bumped by every change that may change a credit (store/repo/credit_versions.py): the
    # cached gradebook is the one of this version.
    credit_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    problems: Mapped[list[AssignmentProblem]] = relationship(
        order_by="AssignmentProblem.position",
        cascade="all, delete-orphan",
        lazy="selectin",
        passive_deletes=True,
    )


class AssignmentProblem(Base):
    """A problem of an assignment (by slug: built-in or uploaded), in order, with its points."""

    __tablename__ = "assignment_problems"
    __table_args__ = (
        UniqueConstraint("assignment_id", "problem", name="uq_assignment_problems_problem"),
        # A submission's problem -> the assignments it may count for (attempt limits, holds).
        Index("ix_assignment_problems_problem", "problem"),
    )

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    problem: Mapped[str] = mapped_column(String(64))
    points: Mapped[float] = mapped_column(Float)
    max_attempts: Mapped[int | None] = mapped_column(Integer)  # None: unlimited
    scoring: Mapped[str] = mapped_column(String(8), default=Scoring.AC)
    # TESTS: test kind -> weight (a kind left out weighs 0); None: every kind weighs 1.
    weights: Mapped[Any] = mapped_column(JSON, nullable=True)


class Extension(Base):
    """One student's own due time (and late window's end) for an assignment."""

    __tablename__ = "assignment_extensions"
    __table_args__ = (Index("ix_assignment_extensions_user", "user_id"),)

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    due_at: Mapped[datetime] = mapped_column()
    # None: a late window as long as the assignment's, from the new due time.
    late_until: Mapped[datetime | None] = mapped_column()
    reason: Mapped[str] = mapped_column(Text, default="")
    granted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    granted_at: Mapped[datetime] = mapped_column(default=utcnow)


class ScoreOverride(Base):
    """An instructor's score for one student and problem of an assignment, replacing the
    computed one, with their comment."""

    __tablename__ = "score_overrides"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    score: Mapped[float] = mapped_column(Float)
    comment: Mapped[str] = mapped_column(Text, default="")
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    author: Mapped[User | None] = relationship(lazy="joined", foreign_keys=[author_id])


class CreditChange(Base):
    """One bump of an assignment's credit version (store/repo/credit_versions.py), written in
    the bump's transaction: whose credit it may change (`user_id`; None: anyone's, as an
    edit or a problem-wide rejudge). A cached gradebook a few versions old recomputes only
    those students' rows when every version since has its rows here (store/repo/gradebook.py);
    old rows are pruned, and a gap means "compute it all". `user_id` is no foreign key: a
    log, read by version, whose rows may outlive their user."""

    __tablename__ = "credit_changes"
    __table_args__ = (Index("ix_credit_changes_assignment_version", "assignment_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)  # the credit version the bump made
    user_id: Mapped[int | None] = mapped_column(Integer)


# ---- LTI 1.3 (docs/lti.md) ----------------------------------------------------------------


class LtiPlatform(Base):
    """An LMS registered by an instructor: what identifies its messages (issuer, client id,
    deployments) and where the tool reaches it (login, token and key set URLs)."""

    __tablename__ = "lti_platforms"
    __table_args__ = (
        UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    deployment_ids: Mapped[Any] = mapped_column(JSON)  # list of strings
    auth_login_url: Mapped[str] = mapped_column(String(2048))
    auth_token_url: Mapped[str] = mapped_column(String(2048))
    key_set_url: Mapped[str] = mapped_column(String(2048))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiKey(Base):
    """The tool's own RSA keys: the newest unretired one signs; retired ones stay in the
    published key set for a while, so tokens signed just before a rotation still verify."""

    __tablename__ = "lti_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kid: Mapped[str] = mapped_column(String(64), unique=True)
    private_pem: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column()


class LtiAccount(Base):
    """An LMS user (the platform's `sub`) linked to a judge account."""

    __tablename__ = "lti_accounts"
    __table_args__ = (Index("ix_lti_accounts_user", "user_id"),)

    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True
    )
    sub: Mapped[str] = mapped_column(String(255), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))


class LtiContext(Base):
    """A course of a platform the tool was launched from, with its service endpoints."""

    __tablename__ = "lti_contexts"
    __table_args__ = (
        UniqueConstraint("platform_id", "context_id", name="uq_lti_contexts_platform_context"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255), default="")
    memberships_url: Mapped[str | None] = mapped_column(String(2048))
    lineitems_url: Mapped[str | None] = mapped_column(String(2048))


class LtiLineItem(Base):
    """The platform's gradebook column of an assignment in a course."""

    __tablename__ = "lti_line_items"
    __table_args__ = (Index("ix_lti_line_items_assignment", "assignment_id"),)

    context_id: Mapped[int] = mapped_column(
        ForeignKey("lti_contexts.id", ondelete="CASCADE"), primary_key=True
    )
    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    url: Mapped[str] = mapped_column(String(2048))


class LtiScorePost(Base):
    """A student's assignment score still to be posted to the platforms (worker/lti_scores.py).
    One row per (assignment, student): a newer change replaces the older one, and the score
    is computed when it is posted, so the platform only ever gets the latest."""

    __tablename__ = "lti_score_posts"
    __table_args__ = (Index("ix_lti_score_posts_due", "due_at"),)

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    changed_at: Mapped[datetime] = mapped_column()  # the score's timestamp
    due_at: Mapped[datetime] = mapped_column()  # the next try
    tries: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)


class LtiCache(Base):
    """pylti1p3's launch storage (nonces, states, launch data) shared by every API process:
    a nonce is taken once by deleting its row."""

    __tablename__ = "lti_cache"
    __table_args__ = (Index("ix_lti_cache_expires", "expires_at"),)

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)
    expires_at: Mapped[datetime] = mapped_column()


class SimilarityDocument(Base):
    """A submission fingerprinted for the similarity index (similarity/), with its count of
    tokens (the student's own, the template's discounted). One row per submission, written
    once, so the index knows what it has seen even of a source too short to fingerprint."""

    __tablename__ = "similarity_documents"

    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    tokens: Mapped[int] = mapped_column(Integer)
    indexed_at: Mapped[datetime] = mapped_column(default=utcnow)


class Fingerprint(Base):
    """One winnowed k-gram of a submission: the index, looked up by (problem, language, hash),
    so it grows with submissions, not with pairs of them. user_id is copied from the
    submission so a student's own earlier submissions are left out in the index itself."""

    __tablename__ = "similarity_fingerprints"
    __table_args__ = (Index("ix_similarity_fingerprints_lookup", "problem", "language", "hash"),)

    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    hash: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem: Mapped[str] = mapped_column(String(64))
    language: Mapped[str] = mapped_column(String(16))


class SimilarPair(Base):
    """Two students' most similar submissions of one problem (user_a < user_b), with the
    score, and an instructor's "reviewed: not copied" mark. A better match between the
    two replaces the submissions and clears the mark: it is new evidence."""

    __tablename__ = "similarity_pairs"
    __table_args__ = (
        UniqueConstraint("problem", "user_a", "user_b", name="uq_similarity_pairs_users"),
        Index("ix_similarity_pairs_problem_score", "problem", "score"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    problem: Mapped[str] = mapped_column(String(64))
    user_a: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    user_b: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    submission_a: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    submission_b: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    score: Mapped[float] = mapped_column(Float)
    a_coverage: Mapped[float] = mapped_column(Float)
    b_coverage: Mapped[float] = mapped_column(Float)
    matched: Mapped[int] = mapped_column(Integer)
    found_at: Mapped[datetime] = mapped_column(default=utcnow)
    reviewed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    reviewed_at: Mapped[datetime | None] = mapped_column()


class RegradeScore(Base):
    """A regrade applied (a rejudge from a ready preview): one student's score of one
    problem of an assignment before, and the score the preview expected after, with who
    applied it, when and from which preview. The history a gradebook shows: the rejudge
    replaces verdicts, this keeps the scores they gave."""

    __tablename__ = "regrade_scores"
    __table_args__ = (Index("ix_regrade_scores_assignment", "assignment_id", "applied_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem: Mapped[str] = mapped_column(String(64))
    preview_key: Mapped[str] = mapped_column(String(64))
    applied_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    applied_at: Mapped[datetime] = mapped_column(default=utcnow)
    old_score: Mapped[float] = mapped_column(Float)
    new_score: Mapped[float] = mapped_column(Float)
    old_total: Mapped[float] = mapped_column(Float)
    new_total: Mapped[float] = mapped_column(Float)
    overridden: Mapped[bool] = mapped_column(Boolean, default=False)
    reason: Mapped[str] = mapped_column(Text, default="")

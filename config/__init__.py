"""Service configuration, read from JUDGE_* environment variables.

Shared by api/, worker/ and store/ (the database, the broker, the grading and sandbox
limits), so it is a package of its own: importing it imports no other package of the
project. Nothing reads the environment at import: call `Settings()` (or build one with
explicit values in tests).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SECRET = "changethis"
# argon2id's default cost for new password hashes: RFC 9106's second recommendation.
PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_PASSES, PASSWORD_HASH_LANES = 64 * 1024, 3, 4
# OWASP's least argon2id cost: 7 MiB of memory for 5 passes (or 19 MiB for 2, 46 MiB for 1).
OWASP_MIN_KIB_PASSES = 7 * 1024 * 5


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore")

    environment: Literal["local", "production"] = "local"
    data_dir: Path = Path("var")
    # Empty means the embedded defaults under data_dir (SQLite + kombu's SQLAlchemy broker).
    database_url: str = ""
    broker_url: str = ""
    # Prefix for every broker key (Redis), so several deployments or test runs share one Redis.
    broker_key_prefix: str = ""

    secret_key: str = DEFAULT_SECRET
    token_expire_minutes: int = Field(default=60 * 24, ge=1)
    admin_user: str = "admin"
    admin_password: str | None = None

    host: str = "127.0.0.1"
    port: int = 8000

    events_poll_s: float = Field(default=0.25, gt=0)  # how often the SSE poller looks
    events_timeout_s: float = Field(default=600.0, gt=0)  # longest one SSE stream stays open
    events_per_user: int = Field(default=8, ge=1)  # open SSE streams per user; more get 429

    max_source_bytes: int = Field(default=64 * 1024, ge=1)
    submit_rate_per_minute: int = Field(default=10, ge=1)
    max_queued_per_user: int = Field(default=5, ge=1)  # live submissions queued or running
    # Runs (POST /runs: the samples or a student's own cases, not a submission): their own
    # per-user rate, and the processes of the run lane (its own Celery worker and queue).
    run_rate_per_minute: int = Field(default=20, ge=1)
    run_slots: int = Field(default=1, ge=1)

    # Registration: open, by invite code, or closed (accounts only from `create-user`);
    # registrations are counted per client address over an hour.
    registration: Literal["open", "invite", "closed"] = "open"
    invite_code: str | None = None  # required when registration is "invite"
    registrations_per_address_per_hour: int = Field(default=5, ge=1)

    # Failed logins are counted per username and per client address over a window; a
    # success does not count.
    login_failures_per_username: int = Field(default=10, ge=1)
    login_failures_per_address: int = Field(default=30, ge=1)
    login_failure_window_s: float = Field(default=300.0, gt=0)
    # argon2id's cost for new password hashes: by default RFC 9106's second recommendation
    # (64 MiB, 3 passes, 4 lanes: ~0.17 s of a core). A stored hash is checked at the cost it
    # was made with, so a change locks nobody out, and made again at the new one at its next
    # login. Below OWASP's minimum (memory x passes of 7 MiB x 5, as 19 MiB x 2) is a
    # warning, refused in production.
    password_hash_memory_kib: int = Field(default=PASSWORD_HASH_MEMORY_KIB, ge=8)
    password_hash_passes: int = Field(default=PASSWORD_HASH_PASSES, ge=1)
    password_hash_lanes: int = Field(default=PASSWORD_HASH_LANES, ge=1, le=64)
    # At most this many hashes at once per API process; a request that waits longer than
    # password_hash_wait_s for a turn gets 503.
    password_hash_concurrency: int = Field(default=2, ge=1)
    password_hash_wait_s: float = Field(default=1.0, ge=0)

    # Grading: slots = worker processes per worker; the rest bound a crashed or lost judging.
    worker_slots: int = Field(default=2, ge=1)
    sandbox: Literal["bwrap", "none"] | None = None  # None: judge's default (bwrap)
    random_count: int | None = Field(default=None, ge=0)  # None: the problem's default plan
    lease_s: float = Field(default=30.0, gt=0)  # a running row is reclaimable this long after
    max_attempts: int = Field(default=3, ge=1)  # claims before a submission is marked IE
    # PostgreSQL ends a worker's session idle inside a transaction this long: a worker stopped
    # between a write and its commit (SIGSTOP, a paused VM) would otherwise keep its rows
    # locked, and its grading could not be taken over when the lease runs out.
    stalled_transaction_s: float = Field(default=60.0, gt=0)
    sweep_interval_s: float = Field(default=5.0, gt=0)
    # Every worker process (grading, run, hidden lane, sweeper) records a heartbeat this
    # often; one silent for 3 beats and 5 s more counts as dead (/healthz, the pages).
    heartbeat_s: float = Field(default=10.0, gt=0)
    resend_after_s: float = Field(default=30.0, gt=0)  # re-enqueue a row queued this long
    # The embedded broker wakes its consumers on each put (worker/broker_wake.py); the poll is
    # the fallback for a missed wake-up, and costs an idle worker CPU the shorter it is.
    broker_polling_interval_s: float = Field(default=1.0, gt=0)

    # When students learn how a judging ended: from the start of its hidden tier, rounded up
    # to Q, 2Q, 4Q, ... (store/release.py), never to the microsecond. 0: at once (tests).
    hidden_release_quantum_s: float = Field(default=0.5, ge=0)

    # Where hidden tiers run: "local" (in the grading worker, kept apart from every visible
    # run on the host by the phase lock) or "queue" (sent to the hidden lane's workers,
    # worker/hidden_lane.py, which run nothing visible: hosts of their own; needs Redis).
    hidden_tiers: Literal["local", "queue"] = "local"
    hidden_slots: int = Field(default=2, ge=1)  # processes of a hidden lane's worker
    # The phase lock's directory (judge/sandbox/phase.py): every worker on one kernel must
    # name the same (compose mounts one volume there). None: /run/judge-phase as root.
    sandbox_phase_dir: str | None = None

    # The sandbox (judge.sandbox.SandboxConfig). As root each worker leases its own block of
    # sandbox_slots uids, from sandbox_uid_base on, in the database (worker/uid_block_lease.py).
    sandbox_python: str | None = None  # None: the system python3
    sandbox_slots: int = Field(default=64, ge=1, le=4096)
    sandbox_uid_base: int = Field(default=61000, ge=1000, lt=1 << 31)
    sandbox_slot_dir: str | None = None  # None: /run/judge-slots as root
    cgroup_parent: str | None = None  # a delegated cgroup v2 directory; None: our own group
    # Compiled submissions kept between gradings (judge.execution.build.BuildCache): bounded, safe
    # to delete at any time. None: data_dir/build-cache.
    build_cache_dir: Path | None = None
    build_cache_bytes: int = Field(default=512 << 20, ge=0)
    # The built-in problem packages. The judge core reads the same variable itself (it runs
    # without the service); here it is declared, documented and checked at start. None: the
    # repository's problems/.
    problems_dir: Path | None = None

    # LTI 1.3 (docs/lti.md): a platform's URLs must be https unless this allows http (a
    # platform on loopback in tests); how long one call to a platform may take.
    lti_allow_http: bool = False
    lti_timeout_s: float = Field(default=10.0, gt=0)

    @model_validator(mode="after")
    def _problems_dir_exists(self) -> Settings:
        if self.problems_dir is not None and not self.problems_dir.is_dir():
            raise ValueError(f"JUDGE_PROBLEMS_DIR {self.problems_dir} is not a folder")
        return self

    @model_validator(mode="after")
    def _refuse_default_secret(self) -> Settings:
        if self.secret_key == DEFAULT_SECRET:
            message = "JUDGE_SECRET_KEY is the default; set a long random value"
            if self.environment == "production":
                raise ValueError(message + " (refused in production)")
            warnings.warn(message, stacklevel=2)
        return self

    @model_validator(mode="after")
    def _password_hashes_cost_enough(self) -> Settings:
        if self.password_hash_memory_kib < 8 * self.password_hash_lanes:
            raise ValueError("JUDGE_PASSWORD_HASH_MEMORY_KIB must be at least 8 per lane")
        if self.password_hash_memory_kib * self.password_hash_passes < OWASP_MIN_KIB_PASSES:
            message = (
                "the password hash cost (JUDGE_PASSWORD_HASH_MEMORY_KIB x _PASSES) is below "
                f"OWASP's minimum of {OWASP_MIN_KIB_PASSES} KiB-passes"
            )
            if self.environment == "production":
                raise ValueError(message + " (refused in production)")
            warnings.warn(message, stacklevel=2)
        return self

    @model_validator(mode="after")
    def _invite_needs_a_code(self) -> Settings:
        if self.registration == "invite" and not self.invite_code:
            raise ValueError(
                "JUDGE_REGISTRATION=invite needs JUDGE_INVITE_CODE (the code to hand out)"
            )
        return self

    @property
    def build_cache_path(self) -> Path:
        return (self.build_cache_dir or self.data_dir / "build-cache").resolve()

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir.resolve() / 'judge.sqlite'}"

    @property
    def broker(self) -> str:
        return self.broker_url or f"sqla+sqlite:///{self.data_dir.resolve() / 'broker.sqlite'}"

    @property
    def heartbeat_stale_s(self) -> float:
        """A worker whose last heartbeat is older than this is dead."""
        return 3 * self.heartbeat_s + 5

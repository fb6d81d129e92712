"""Repository functions: every read and write the service makes, keyword-only arguments.

One module per part of the service, re-exported here so that callers say `repo.claim(...)`
and need not know which module holds what:

- `users`: accounts, and the throttling of logins and registrations;
- `boards`: the problems' hidden boards;
- `submissions`: what the API reads and writes (create under the rate limits, list, show,
  who may see which, rejudge, the live-progress poll);
- `judging`: the judging protocol, worker side (claim, lease, record, finish, release, hold);
- `sweep`: the sweeper's side of it (rows a lost message or a dead worker left behind);
- `runs`: runs (a source on the samples or the student's own cases, not a submission):
  create under their own rate, the run lane's claim and progress, the sweeper's clean-up;
- `live`: what a live-progress poll reads, for submissions and runs alike;
- `releases`: the problems' hidden-result release times, and what students are shown now;
- `limits`: the rate-limit error and its arithmetic.

Modules with one reader each are not re-exported; their callers import them by name
(`from store.repo import stats`):

- `stats`: the statistics in SQL, and the caches that keep them cheap (the API);
- `course_progress`: a course's progress table, per student and problem (the API);
- `assignments`: assignments, extensions, score overrides, and the submissions their credit
  reads (the API);
- `gradebook`: an assignment's gradebook rows, credit (store/credit.py) or overrides (the API);
- `roster`: the instructors' side of accounts (the API);
- `board_report`: how many submissions each hidden board fails, and its notes (the API);
- `strength_reports`: the strength reports cached in the database (the API and the worker);
- `rejudge_previews`: what publishing a version would change, kept in the same table (the
  API and the worker's preview task);
- `uid_blocks`: the registry of sandbox uid blocks the workers lease (the worker);
- `problem_packages`: uploaded problems, their versions and states (the API, the run lane's
  check, the worker resolving a published package, the sweeper);
- `heartbeats`: the workers' heartbeats per lane and the queue's health (the worker, the
  sweeper, /healthz and the pages);
- `lti`: LTI 1.3 platforms, the tool's keys, linked LMS accounts, courses, line items and the
  launch storage (the API, the sweeper's score posts);
- `lti_scores`: the scores waiting to be posted to an LMS, queued with every credit change
  (`judging`, `assignments`) and drained by the sweeper;
- `similarity`: the code-similarity index (fingerprints by hash) and the pairs it finds (the
  worker writes them, the API reads them and keeps the reviewed mark); the worker's
  `index_submission` commits once for a submission's fingerprints and pairs.

Callers own the session and the transaction boundaries, except in `judging` and `sweep`,
whose functions commit themselves: each is one atomic step of the judging protocol.
"""

from store.repo.boards import (
    add_board,
    delete_board,
    get_board,
    hidden_board_count,
    hidden_cases,
    list_boards,
)
from store.repo.judging import (
    FAILURE_CHARS,
    HAND_ON_SLACK_S,
    Claim,
    Job,
    Stale,
    claim,
    defer,
    extend_lease,
    finish,
    hold,
    load_job,
    next_for_user,
    record_test,
    record_tests,
    release,
    set_away,
    unsent,
    waiting_for_its_user,
)
from store.repo.limits import RateLimited
from store.repo.live import Progress, ProgressCursor
from store.repo.releases import (
    StudentsView,
    hidden_release,
    set_hidden_release,
    students_view,
)
from store.repo.runs import (
    RunCase,
    RunClaim,
    RunSweep,
    claim_run,
    create_run_limited,
    fail_run,
    finish_run,
    record_run_cases,
    release_run,
    run_progress,
    sweep_runs,
    visible_run,
)
from store.repo.submissions import (
    COUNT_CAP,
    SUMMARY_COLUMNS,
    UNFINISHED_RETRY_AFTER_S,
    Held,
    Position,
    SubmissionList,
    create_submission,
    create_submission_limited,
    current_tests,
    get_submission,
    held_submissions,
    judgings,
    list_submissions,
    progress,
    queue_position,
    recent_submission_times,
    rejudge,
    visible_submission,
)
from store.repo.sweep import MAX_BACKOFF_DOUBLINGS, SEND_SLACK_S, sweep
from store.repo.users import (
    FAILED_LOGIN,
    REGISTRATION,
    Conflict,
    Standing,
    check_attempts,
    count_instructors,
    create_user,
    get_user,
    get_user_by_name,
    record_attempt,
    rehash_password,
    standings,
    update_user,
)

__all__ = [
    "COUNT_CAP",
    "FAILED_LOGIN",
    "FAILURE_CHARS",
    "HAND_ON_SLACK_S",
    "MAX_BACKOFF_DOUBLINGS",
    "REGISTRATION",
    "SEND_SLACK_S",
    "SUMMARY_COLUMNS",
    "UNFINISHED_RETRY_AFTER_S",
    "Claim",
    "Conflict",
    "Held",
    "Job",
    "Position",
    "Progress",
    "ProgressCursor",
    "RateLimited",
    "RunCase",
    "RunClaim",
    "RunSweep",
    "Stale",
    "Standing",
    "StudentsView",
    "SubmissionList",
    "add_board",
    "check_attempts",
    "claim",
    "claim_run",
    "count_instructors",
    "create_run_limited",
    "create_submission",
    "create_submission_limited",
    "create_user",
    "current_tests",
    "defer",
    "delete_board",
    "extend_lease",
    "fail_run",
    "finish",
    "finish_run",
    "get_board",
    "get_submission",
    "get_user",
    "get_user_by_name",
    "held_submissions",
    "hidden_board_count",
    "hidden_cases",
    "hidden_release",
    "hold",
    "judgings",
    "list_boards",
    "list_submissions",
    "load_job",
    "next_for_user",
    "progress",
    "queue_position",
    "recent_submission_times",
    "record_attempt",
    "record_run_cases",
    "record_test",
    "record_tests",
    "rehash_password",
    "rejudge",
    "release",
    "release_run",
    "run_progress",
    "set_away",
    "set_hidden_release",
    "standings",
    "students_view",
    "sweep",
    "sweep_runs",
    "unsent",
    "update_user",
    "visible_run",
    "visible_submission",
    "waiting_for_its_user",
]

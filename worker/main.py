"""Import target of the `celery` command: `celery -A worker.main worker`.

Importing this module builds the worker's app from the JUDGE_* environment and registers its
tasks, the grading, the strength report and the rejudge preview, sharing one per-process
runtime. Whoever only enqueues (the API, the sweeper) uses worker.app.make_celery(settings)
without them.
"""

from config import Settings
from worker import rejudge_preview, strength, tasks
from worker.app import make_celery
from worker.runtime import Runtime

settings = Settings()
app = make_celery(settings)
runtime = Runtime(settings)
tasks.register(app, runtime)
strength.register(app, runtime)
rejudge_preview.register(app, runtime)

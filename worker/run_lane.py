"""Import target of the run lane's worker: `celery -A worker.run_lane worker -Q judge.run`.

A worker process of its own, with JUDGE_RUN_SLOTS processes, consuming the judge.run queue
alone and registering the run task and the check of uploaded problem packages (short, and
running problem.py in the sandbox as a run does) alone: the grading workers (worker.main)
never take a run, and a backlog of submissions never delays one.
"""

from config import Settings
from worker import package_check, runs
from worker.app import make_celery
from worker.runtime import Runtime

settings = Settings()
app = make_celery(settings, run_lane=True)
runtime = Runtime(settings)
runs.register(app, runtime)
package_check.register(app, runtime)

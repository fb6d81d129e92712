"""Import target of a hidden lane's worker: `celery -A worker.hidden_lane worker -Q judge.hidden`.

Consumes judge.hidden alone (hidden tiers the grading workers send away with
JUDGE_HIDDEN_TIERS=queue, worker/hidden.py) with JUDGE_HIDDEN_SLOTS processes, and
registers nothing else: it never runs a visible tier, a Run, a shrink or a search for the
bug, so on hosts of its own nothing it holds reaches a student through the kernel.
"""

from config import Settings
from worker import hidden
from worker.app import make_celery
from worker.runtime import Runtime

settings = Settings()
app = make_celery(settings, hidden_lane=True)
runtime = Runtime(settings)
hidden.register(app, runtime)

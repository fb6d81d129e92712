"""Import target of the `celery` command: `celery -A worker.main worker`.

Importing this module builds the app from the JUDGE_* environment; everything else uses
worker.app.make_celery(settings) directly.
"""

from config import Settings
from worker.app import make_celery

app = make_celery(Settings())

"""The grading queue: a Celery app (from a factory), the grading task, and the sweeper.

The database is the source of truth; the broker only carries "look at submission N".
"""

"""Persistence for the judge service: models, engine/session factories, repository, migrations.

No fastapi or celery imports here; api/ and worker/ both build on it.
"""

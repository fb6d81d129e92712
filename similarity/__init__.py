"""Code similarity: submissions' fingerprints (winnowing over normalised tokens, as MOSS) and
the comparison of two sources with their matching fragments.

Pure functions over source text: no database, no queue. It imports Pygments (for lexers of
the four languages) and, of the project, only judge/ (the starter templates, templates.py);
the worker stores what it computes through `store.repo.similarity`, and the bench measures it.
"""

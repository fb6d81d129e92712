"""Problem packages: a problem as a folder an instructor brings (problem.toml, statement.md,
problem.py, submissions/, boards/), checked and loaded the same way for a built-in problem and
an uploaded one. The instructor's code is untrusted: it runs only in the sandbox, and what it
answers is decoded strictly.
"""

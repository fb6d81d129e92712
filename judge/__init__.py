"""The grading core: problems, reference solvers, sandbox, harness and grading.

Standard library only: nothing here imports store/, api/, worker/ or their dependencies,
so the core runs and is tested on its own (`python -m judge ...`).
"""

__version__ = "0.1.0"

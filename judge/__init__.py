"""The grading core, in rooms named for their job:

    grading/     plan the tests, grade a submission, Runs before submitting, shrink, hidden tier
    execution/   a submission as a program: build it once (cached), its budget, the runners
    languages/   one plug-in per language, and drivers/: what runs inside the sandbox with it
    problems/    one plug-in per problem, read into a typed ProblemSpec
    diagnosis/   "where is the bug": the game-tree search and its sandboxed probe
    strength/    mutation analysis of a problem's tests
    sandbox/     the only code that starts processes
    answers.py, verdict.py   the vocabulary all of them share; cli.py: `python -m judge`

Standard library only: nothing here imports store/, api/, worker/ or their dependencies,
so the core runs and is tested on its own (`python -m judge ...`).
"""

__version__ = "0.1.0"

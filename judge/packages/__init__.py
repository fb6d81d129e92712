"""Problem packages: a problem as a folder an instructor brings (problem.toml, statement.md,
problem.py, submissions/, boards/), checked and loaded the same way for a built-in problem and
an uploaded one. The instructor's code is untrusted: it runs only in the sandbox, and what it
answers is decoded strictly.

    archive.py    an uploaded zip unpacked, or a folder checked, within bounds
    manifest.py   problem.toml, statement.md and boards/ read and validated
    package.py    Package.load(folder): the checked folder and its digest
    host.py       ProblemHost: problem.py in the sandbox (host_main.py inside)
    code.py       ProblemCode: the host, or ImportedCode for built-in packages only
    bind.py       problem_spec(package, code): the ProblemSpec the judge grades with
    check.py      check_package(folder, sandbox): `python -m judge problem check`
    graded.py     the checks that grade: submissions/ and generated mutants
"""

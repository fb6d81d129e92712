"""The package checks that grade: every file under submissions/<verdict>/ gets its folder's
verdict, and the generated mutants of the accepted Python submissions are killed (those that
survive are named as a warning). Both grade with the judge's normal grading, against the
package bound to its problem.py in a host of their own, with the package's boards as the
hidden tier."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judge import languages
from judge.grading.grade import grade
from judge.problems.bind import KnownAnswers, problem_spec
from judge.problems.host import ProblemHost
from judge.problems.package import SUBMISSIONS, VERDICT_FOLDERS, Package
from judge.problems.spec import ProblemSpec
from judge.sandbox import Sandbox
from judge.strength.mutants.generated import mutate
from judge.verdict import GradeResult, TestResult, Verdict

GRADING_SEED = 1  # the same random boards on every check of a package
MAX_MUTANTS = 24  # generated mutants graded per accepted Python submission, spread evenly
STRENGTH_BUDGET_S = 90.0  # wall time for grading mutants; those left are reported ungraded


class CheckFailed(Exception):
    """A package check's failure; its message says what is wrong."""


@contextmanager
def bound_problem(
    package: Package, sandbox: Sandbox, known: KnownAnswers | None = None
) -> Iterator[ProblemSpec]:
    """The package's ProblemSpec, its problem.py in a host living as long as the block
    (`known`: its version's stored answers, see judge/problems/bind.py)."""
    limits = package.manifest.limits
    with ProblemHost(
        sandbox, package.source(), time_s=limits.time_s, memory_mb=limits.memory_mb
    ) as host:
        yield problem_spec(package, host, known)


def grade_against(
    problem: ProblemSpec,
    package: Package,
    source: bytes,
    sandbox: Sandbox,
    language: str,
    on_test: Callable[[TestResult], None] | None = None,
) -> GradeResult:
    """One submission graded as a student's would be, the package's boards hidden."""
    return grade(
        problem,
        source,
        hidden_cases=[{"input": board.case, "id": board.name} for board in package.boards],
        seed=GRADING_SEED,
        sandbox=sandbox,
        on_test=on_test,
        diagnose=False,
        language=language,
    )


class _Killed(Exception):
    """A mutant failed a test: the rest of its grading (the other tests, the shrinking of its
    counterexample) could not make it a survivor."""


class _StopAtTheFirstFailure:
    """grade()'s `on_test` for a mutant: raises _Killed at its first failing test. A test the
    judge could not grade (IE) kills nothing; after one, the grading goes on to its verdict
    and the mutant is left out, as an IE verdict always was."""

    def __init__(self) -> None:
        self.judge_failed = False

    def __call__(self, test: TestResult) -> None:
        if test.verdict is Verdict.IE:
            self.judge_failed = True
        elif test.verdict not in (Verdict.AC, Verdict.SKIPPED) and not self.judge_failed:
            raise _Killed


def check_submissions(package: Package, sandbox: Sandbox) -> str:
    """Every file under submissions/ graded; _Failed naming each one that does not get its
    folder's verdict (or cannot be graded here)."""
    files = package.submissions()
    if not files:
        return "no submissions/ to grade"
    wrong: list[str] = []
    with bound_problem(package, sandbox) as problem:
        for folder, path in files:
            name = path.relative_to(package.folder).as_posix()
            wrong += _graded_as_folder_says(problem, package, sandbox, folder, path, name)
    if wrong:
        raise CheckFailed("; ".join(wrong))
    return f"{len(files)} submissions got their folders' verdicts"


def _graded_as_folder_says(
    problem: ProblemSpec, package: Package, sandbox: Sandbox, folder: str, path: Path, name: str
) -> list[str]:
    if path.parent == package.folder / SUBMISSIONS:
        return [f"{name}: not in a verdict folder ({', '.join(VERDICT_FOLDERS)})"]
    want = VERDICT_FOLDERS.get(folder)
    if want is None:
        return [f"{name}: {folder}/ is not a verdict folder ({', '.join(VERDICT_FOLDERS)})"]
    language = languages.by_extension(path.name)
    if language is None:
        return [f"{name}: no language has this extension"]
    try:
        result = grade_against(problem, package, path.read_bytes(), sandbox, language.name)
    except (languages.NotOffered, languages.LanguageUnavailable) as exc:
        return [f"{name}: cannot be graded here: {exc}"]
    if result.verdict.value == want:
        return []
    detail = f" ({result.message.strip()})" if result.message.strip() else ""
    return [
        f"{name}: expected {want}, got {result.verdict.value} "
        f"({result.passed}/{result.total} passed){detail}"
    ]


def check_strength(package: Package, sandbox: Sandbox) -> str:
    """Generated mutants of each accepted Python submission, graded; the survivors named (a
    warning: the check itself passes)."""
    sources = [
        path
        for folder, path in package.submissions()
        if folder == "accepted" and path.suffix == ".py"
    ]
    if not sources:
        return "no accepted Python submission to mutate"
    deadline = time.monotonic() + STRENGTH_BUDGET_S
    notes: list[str] = []
    with bound_problem(package, sandbox) as problem:
        for path in sources:
            name = path.relative_to(package.folder).as_posix()
            notes.append(_mutants_of(problem, package, sandbox, path, name, deadline))
    return "; ".join(notes)


def _mutants_of(
    problem: ProblemSpec, package: Package, sandbox: Sandbox, path: Path, name: str, deadline: float
) -> str:
    try:
        mutants = _spread(_distinct(path.read_text(encoding="utf-8")), MAX_MUTANTS)
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        return f"{name}: cannot be mutated ({exc})"
    survivors, graded = [], 0
    for text, source in mutants:
        if time.monotonic() > deadline:
            break
        try:
            result = grade_against(
                problem, package, source.encode(), sandbox, "python", _StopAtTheFirstFailure()
            )
        except _Killed:
            graded += 1
            continue
        if result.verdict in (Verdict.CE, Verdict.IE):
            continue  # not a program a student would submit, or the judge's matter
        graded += 1
        if result.verdict is Verdict.AC:
            survivors.append(text)
    left = len(mutants) - graded
    summary = f"{name}: {graded - len(survivors)} of {graded} generated mutants killed"
    if left and time.monotonic() > deadline:
        summary += f" ({left} not graded within {STRENGTH_BUDGET_S:g} s)"
    if survivors:
        summary = f"warning: {summary}; surviving: {', '.join(survivors)}"
    return summary


def _distinct(source: str) -> list[tuple[str, str]]:
    """(description, source) of each generated mutant, one per distinct program."""
    seen: dict[str, str] = {}
    for _operator, text, mutated in mutate(source):
        seen.setdefault(mutated, text)
    return [(text, mutated) for mutated, text in seen.items()]


def _spread(items: list[Any], count: int) -> list[Any]:
    """At most `count` of `items`, evenly spread (every operator gets its share)."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(k * step)] for k in range(count)]

"""The problem a grading or a run is graded against: a built-in's spec, or an uploaded
problem's published package, unpacked once per digest into this worker's cache and its
problem.py hosted in the sandbox for as long as the work lasts.

    with resolved(runtime, slug) as problem:
        grade(problem.spec, ..., hidden_cases=problem.hidden_cases or the stored boards)

The cache folder (JUDGE_DATA_DIR/packages/<digest>) is filled atomically: unpacked under a
temporary name beside it, its digest checked, then renamed; a second process doing the same
finds the name taken and uses the first one's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from judge import problems
from judge.problem_check.graded import bound_problem
from judge.problems.archive import unpack
from judge.problems.package import Package, digest_of
from store.repo import problem_packages
from worker.runtime import Runtime


class NotPublished(LookupError):
    """A slug that is neither built in nor published (a hidden problem still is)."""


@dataclass(frozen=True)
class Resolved:
    spec: problems.ProblemSpec
    digest: str  # the package version graded against
    # An uploaded problem's hidden tier: its package's boards/ (None: the stored boards).
    hidden_cases: list[dict[str, Any]] | None
    builtin: bool


@cache
def builtin_digest(slug: str) -> str:
    """A built-in package's digest (its folder's files do not change while we run)."""
    return digest_of(problems.builtin_dir() / slug)


def cache_root(runtime: Runtime) -> Path:
    return (runtime.settings.data_dir / "packages").resolve()


def package_folder(runtime: Runtime, slug: str, digest: str) -> Path:
    """The published package `digest` of `slug`, unpacked in this worker's cache."""
    root = cache_root(runtime)
    folder = root / digest
    if folder.is_dir():
        return folder
    with runtime.session() as session:
        archive = problem_packages.package_archive(session=session, slug=slug, digest=digest)
    if archive is None:
        raise NotPublished(f"no package {digest[:12]} of problem {slug!r}")
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=root))
    try:
        unpacked = unpack(archive, staging / "package")
        found = digest_of(unpacked)
        if found != digest:  # the API computed it from the same zip: never expected
            raise RuntimeError(f"package of {slug!r}: digest {found[:12]}, not {digest[:12]}")
        try:
            os.rename(unpacked, folder)
        except OSError:
            if not folder.is_dir():  # not another process's rename that came first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


@cache
def _package(folder: Path) -> Package:
    """Loaded once per digest (the folder's name) in this process."""
    return Package.load(folder)


@contextmanager
def resolved(runtime: Runtime, slug: str) -> Iterator[Resolved]:
    """The problem `slug` now: a built-in, or the published version of an uploaded one
    (NotPublished when there is none; ProblemError when its problem.py does not start,
    SandboxUnavailable when the sandbox cannot)."""
    builtin = problems.registry().get(slug)
    if builtin is not None:
        yield Resolved(builtin, builtin_digest(slug), None, True)
        return
    with runtime.session() as session:
        digest = problem_packages.published_digest(session=session, slug=slug)
    if digest is None:
        raise NotPublished(f"problem {slug!r} has no published version")
    package = _package(package_folder(runtime, slug, digest))
    boards = [{"input": board.case} for board in package.boards]
    with bound_problem(package, runtime.sandbox) as spec:
        yield Resolved(spec, digest, boards, False)

"""The problem a grading or a run is graded against: a built-in's spec, or an uploaded
problem's published package, unpacked once per digest into this worker's cache and its
problem.py hosted in the sandbox for as long as the work lasts.

    with resolved(runtime, slug) as problem:
        grade(problem.spec, ..., hidden_cases=problem.hidden_cases or the stored boards)

An uploaded version's hidden boards come with the answers its check stored: the grading
asks the host nothing about them (judge/problems/bind.py says why).

The cache folder (JUDGE_DATA_DIR/packages/<digest>) is filled atomically: unpacked under a
temporary name beside it, its digest checked, then renamed; a second process doing the same
finds the name taken and uses the first one's. Each use touches it; a worker starting up
removes the folders nobody used for CACHE_KEEP_S (`prune_cache`), so a course's retired
versions do not fill the disk; the database keeps every archive, and a version graded again
is unpacked again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from judge import problems
from judge.problem_check.graded import bound_problem
from judge.problems.archive import unpack
from judge.problems.bind import KnownAnswers, decode_known
from judge.problems.host import ProblemError
from judge.problems.package import Package, digest_of
from store.repo import problem_packages
from worker.runtime import Runtime

log = logging.getLogger(__name__)

CACHE_KEEP_S = 14 * 86400.0  # a package folder nobody used for this long is removed
STAGING_PREFIX = ".unpacking-"
STAGING_KEEP_S = 3600.0  # an unpacking takes seconds: one this old was a killed worker's


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
        _touch(folder)
        return folder
    with runtime.session() as session:
        archive = problem_packages.package_archive(session=session, slug=slug, digest=digest)
    if archive is None:
        raise NotPublished(f"no package {digest[:12]} of problem {slug!r}")
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
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


def _touch(folder: Path) -> None:
    # Removed meanwhile by a prune: it is unpacked again next time.
    with contextlib.suppress(OSError):
        os.utime(folder)


def prune_cache(runtime: Runtime, now: float | None = None) -> list[str]:
    """Remove the package folders nobody used for CACHE_KEEP_S and unpackings a killed
    worker left; the names removed. Moved aside before removal, so a grading that looks up
    a folder at that moment finds it whole or not at all."""
    root = cache_root(runtime)
    now = time.time() if now is None else now
    removed: list[str] = []
    try:
        entries = list(os.scandir(root))
    except FileNotFoundError:
        return removed
    for entry in entries:
        keep_s = STAGING_KEEP_S if entry.name.startswith(STAGING_PREFIX) else CACHE_KEEP_S
        try:
            if not entry.is_dir(follow_symlinks=False) or now - entry.stat().st_mtime < keep_s:
                continue
            doomed = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root)) / entry.name
            os.rename(entry.path, doomed)
        except OSError:  # another worker pruned it first
            continue
        shutil.rmtree(doomed.parent, ignore_errors=True)
        removed.append(entry.name)
    if removed:
        log.info("removed %d unused problem packages from the cache", len(removed))
    return removed


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
        version = problem_packages.published_version(session=session, slug=slug)
    if version is None:
        raise NotPublished(f"problem {slug!r} has no published version")
    with version_resolved(runtime, slug, version.digest, version.answers) as problem:
        yield problem


@contextmanager
def version_resolved(runtime: Runtime, slug: str, digest: str, stored: Any) -> Iterator[Resolved]:
    """The version `digest` of the uploaded problem `slug`, published or not (a rejudge's
    preview grades against a candidate), with the answers its check stored (`stored`)."""
    package = _package(package_folder(runtime, slug, digest))
    known = _known(package, stored)
    with bound_problem(package, runtime.sandbox, known) as spec:
        if known is None:  # a version checked before answers were stored: asked here
            boards = [{"input": board.case} for board in package.boards]
        else:
            boards = [
                {"input": board.case, "answer": answer}
                for board, answer in zip(package.boards, known.hidden, strict=True)
            ]
        yield Resolved(spec, digest, boards, False)


def _known(package: Package, stored: Any) -> KnownAnswers | None:
    if stored is None:
        return None
    try:
        return decode_known(stored, package)
    except ValueError as exc:  # written by our own check: never expected
        raise ProblemError(f"the answers stored with this version: {exc}") from None

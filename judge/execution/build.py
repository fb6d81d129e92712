"""Compiling a submission in the sandbox, once per grading, and the cache of what was compiled.

    with built(problem, language, style, source, sandbox, cache) as program:
        ...  # run program (judge/execution/program.py) as often as the grading needs

A language whose `build_command` is None runs its source as it is: nothing is built. Else the
command runs in the sandbox with the language's build limits, writing under /box/out (a host
directory of ours); a failure is `CompileError` with the compiler's message cleaned by the
language and bounded. What the compiler wrote is the submission's: the sandbox hands out only
plain files, bounded in number and size (judge/sandbox/outputs.py), and the program runs a
private read-only copy of it, made per grading, so that deleting the cache (or evicting from
it) at any moment never pulls an artifact from under a run.

The cache (`BuildCache`) keys an artifact by the language, its toolchain version and the
sha256 of the build command (argv, every file compiled, environment, layout). It is a
directory: `entries/<key>/` holds `out/` and a `manifest.json` written last, listing every
file's size and sha256, so an entry is trusted only when it was written whole and still
matches; it is built in `staging/` and renamed into place (atomic: concurrent workers building
the same key both succeed, one entry stays). It is bounded in bytes, least recently used
entries going first, and anything in it may be deleted at any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from judge import answers
from judge.execution.program import CompileError, Program
from judge.languages.base import Language, Style
from judge.problems import ProblemSpec
from judge.sandbox import OverlongLine, RunLimits, RunOutcome, Sandbox
from judge.sandbox.command import Command
from judge.sandbox.limits import busy_cap_s
from judge.sandbox.workdirs import RUN_DIR_PREFIX, locked_dir

log = logging.getLogger(__name__)

COMPILE_MESSAGE_CHARS = 4000
DEFAULT_CACHE_BYTES = 512 << 20
STALE_S = 3600.0  # staging or trash left by a killed builder is removed after this long
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class BuildCache:
    """Where compiled artifacts are kept between gradings, and how many bytes at most."""

    directory: str
    max_bytes: int = DEFAULT_CACHE_BYTES

    @classmethod
    def for_user(
        cls, environ: Mapping[str, str], max_bytes: int = DEFAULT_CACHE_BYTES
    ) -> BuildCache:
        """The command line's cache: under $XDG_CACHE_HOME, else a directory of this user's
        in /tmp."""
        base = environ.get("XDG_CACHE_HOME")
        if base:
            return cls(os.path.join(base, "footholds-judge", "builds"), max_bytes)
        return cls(
            os.path.join(tempfile.gettempdir(), f"footholds-judge-builds-{os.geteuid()}"), max_bytes
        )

    # -- the directory --------------------------------------------------------------------
    def _ready(self) -> bool:
        """Create the directory (ours, 0700); refuse one someone else could have planted or
        written into: its entries would run as compiled submissions."""
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            for path in (self.directory, *self._subdirs()):
                os.makedirs(path, mode=0o700, exist_ok=True)  # after its parent was checked
                st = os.lstat(path)
                if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
                    log.warning("build cache %s is not a private directory: not used", path)
                    return False
        except OSError as exc:
            log.warning("build cache %s cannot be used: %s", self.directory, exc)
            return False
        return True

    def _subdirs(self) -> tuple[str, str]:
        return os.path.join(self.directory, "entries"), os.path.join(self.directory, "staging")

    def _entry(self, key: str) -> str:
        return os.path.join(self.directory, "entries", key)

    # -- reading --------------------------------------------------------------------------
    def fetch(self, key: str, into: str) -> bool:
        """Copy the entry `key` into the new directory `into` and check the copy against the
        entry's manifest. False (and `into` removed) on a miss or a damaged entry, which is
        removed so that it is built again."""
        if not self._ready():
            return False
        entry = self._entry(key)
        try:
            with open(os.path.join(entry, MANIFEST), "rb") as f:
                manifest = json.load(f)
            if manifest.get("key") != key:
                raise ValueError("manifest of another key")
            shutil.copytree(os.path.join(entry, "out"), into, symlinks=True)
            if _listing(into) != manifest["files"]:
                raise ValueError("files differ from the manifest")
        except FileNotFoundError:
            shutil.rmtree(into, ignore_errors=True)
            if os.path.isdir(entry) and not os.path.exists(os.path.join(entry, MANIFEST)):
                self._discard(entry)  # no manifest: never written whole
            return False
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("build cache entry %s is damaged (%s): building again", key, exc)
            shutil.rmtree(into, ignore_errors=True)
            self._discard(entry)
            return False
        with contextlib.suppress(OSError):
            os.utime(os.path.join(entry, MANIFEST))  # recently used
        return True

    # -- writing --------------------------------------------------------------------------
    def store(self, key: str, artifact: str) -> None:
        """Keep a copy of `artifact` (a checked build) under `key`, then evict down to the
        bound. Failing to cache is never the grading's failure."""
        if not self._ready():
            return
        try:
            staging = tempfile.mkdtemp(dir=os.path.join(self.directory, "staging"))
        except OSError as exc:
            log.warning("build cache %s: %s", self.directory, exc)
            return
        try:
            shutil.copytree(artifact, os.path.join(staging, "out"), symlinks=True)
            files = _listing(os.path.join(staging, "out"))
            manifest = {
                "key": key,
                "bytes": sum(size for size, _ in files.values()),
                "files": files,
            }
            with open(os.path.join(staging, MANIFEST), "w") as f:
                json.dump(manifest, f)
                f.flush()
                os.fsync(f.fileno())
            # Atomic; fails when another builder stored the key first: theirs stays.
            with contextlib.suppress(OSError):
                os.rename(staging, self._entry(key))
        except OSError as exc:
            log.warning("build cache %s: could not store %s: %s", self.directory, key, exc)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.evict(keep=key)

    def evict(self, keep: str | None = None) -> None:
        """Remove least recently used entries until the cache holds at most max_bytes (the
        entry just stored stays), and what killed builders left behind."""
        entries_dir = os.path.join(self.directory, "entries")
        now = time.time()
        found: list[tuple[float, int, str]] = []
        try:
            names = os.listdir(entries_dir)
        except OSError:
            return
        for name in names:
            path = os.path.join(entries_dir, name)
            try:
                st = os.stat(os.path.join(path, MANIFEST))
                with open(os.path.join(path, MANIFEST), "rb") as f:
                    size = int(json.load(f)["bytes"])
            except (OSError, ValueError, KeyError, TypeError):
                with contextlib.suppress(OSError):
                    if now - os.lstat(path).st_mtime > STALE_S:
                        self._discard(path)
                continue
            found.append((st.st_mtime, size, name))
        total = sum(size for _, size, _ in found)
        for _, size, name in sorted(found):
            if total <= self.max_bytes:
                break
            if name == keep:
                continue
            self._discard(os.path.join(entries_dir, name))
            total -= size
        staging_dir = os.path.join(self.directory, "staging")
        with contextlib.suppress(OSError):
            for name in os.listdir(staging_dir):
                path = os.path.join(staging_dir, name)
                with contextlib.suppress(OSError):
                    if now - os.lstat(path).st_mtime > STALE_S:
                        shutil.rmtree(path, ignore_errors=True)

    def _discard(self, entry: str) -> None:
        """Take an entry out of its key's place at once (a rename), then delete it."""
        trash = os.path.join(
            self.directory, "staging", f"trash-{os.getpid()}-{time.monotonic_ns()}"
        )
        try:
            os.rename(entry, trash)
        except OSError:
            return  # gone already
        shutil.rmtree(trash, ignore_errors=True)

    def size_bytes(self) -> int:
        """Bytes of every entry's files (for tests and the bench)."""
        total = 0
        for root, _, files in os.walk(os.path.join(self.directory, "entries")):
            total += sum(
                os.lstat(os.path.join(root, name)).st_size for name in files if name != MANIFEST
            )
        return total


def _listing(directory: str) -> dict[str, list]:
    """Every file under `directory`: relative path -> [size, sha256]. Raises ValueError for
    anything but directories and regular files (a link could point out of the box)."""
    files: dict[str, list] = {}
    for root, dirs, names in os.walk(directory):
        for name in dirs + names:
            path = os.path.join(root, name)
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode):
                raise ValueError(f"{os.path.relpath(path, directory)} is not a regular file")
            digest = hashlib.sha256()
            with open(path, "rb") as f:
                while chunk := f.read(1 << 20):
                    digest.update(chunk)
            files[os.path.relpath(path, directory)] = [st.st_size, digest.hexdigest()]
    return files


def build_key(language: Language, command: Command) -> str:
    """What decides the artifact: the toolchain, and everything the build command is."""
    digest = hashlib.sha256()
    head = {
        "language": language.name,
        "version": language.version(),
        "argv": list(command.argv),
        "env": sorted(command.env.items()),
        "layout": repr(command.layout),
        "trees": sorted(command.trees.items()),
        "files": {
            name: hashlib.sha256(data).hexdigest() for name, data in sorted(command.files.items())
        },
    }
    digest.update(json.dumps(head, sort_keys=True).encode())
    if command.stdin is not None:
        digest.update(hashlib.sha256(command.stdin).digest())
    return digest.hexdigest()


@contextlib.contextmanager
def built(
    problem: ProblemSpec,
    language: Language,
    style: Style,
    source: bytes,
    sandbox: Sandbox,
    cache: BuildCache | None = None,
    deadline: float | None = None,
) -> Iterator[Program]:
    """The submission compiled (or taken from the cache) as a Program, for the duration of
    the block. Raises CompileError; infrastructure errors of the sandbox pass through.
    `deadline` (time.monotonic()) caps the compile's CPU time at what is left of the grading's
    or the run's budget: a compiler bomb holds a worker no longer than the budget. Its wall
    time keeps the language's own cap, and the rest of it comes back as
    `Program.build_waited_s`: on a busy machine the compile takes longer, not the verdict."""
    prepare = getattr(language, "prepare_build", None)
    # What every build shares (C++'s runtime object and precompiled header), cached too,
    # and what the build command then takes of it.
    shared = prepare(style, cache, source) if prepare is not None else {}
    command = language.build_command(problem, style, source, **shared)
    if command is None:
        yield Program(language, style, source)
        return
    key = build_key(language, command)
    private = locked_dir(RUN_DIR_PREFIX)
    try:
        os.chmod(private.path, 0o755)  # bound into runs by bwrap as the slot uid
        artifact = os.path.join(private.path, "out")
        waited_s = 0.0
        if cache is None or not cache.fetch(key, artifact):
            waited_s = _compile(language, command, sandbox, artifact, deadline)
            if cache is not None:
                cache.store(key, artifact)
        _read_only(artifact)
        yield Program(language, style, source, artifact, waited_s)
    finally:
        private.remove()


def _compile(
    language: Language,
    command: Command,
    sandbox: Sandbox,
    artifact: str,
    deadline: float | None = None,
) -> float:
    """Run the build command; on success what it wrote is at `artifact` (a new directory in
    one of ours, removed with it on failure). Returns its wall time beyond its CPU time."""
    limits = language.build_limits()
    if deadline is not None:
        left = max(deadline - time.monotonic(), 1.0)
        limits = replace(limits, cpu_s=min(limits.cpu_s, left))
    os.mkdir(artifact, 0o755)  # the sandbox copies what the build wrote into it
    outcome = _run(sandbox, replace(command, writable=artifact), limits)
    _check_outcome(language, outcome, limits)
    # A compile is charged its CPU time. A compiler does not sleep on its own, so the rest of
    # its wall time is the machine's: waiting for a CPU (which the run's wait clock proves only
    # for its longest-lived task, not for the assembler's and the linker's short runs), for the
    # disk, for its sandbox to start. It is no more than the language's wall cap.
    return max(outcome.cpu_wait_s or 0.0, outcome.wall_s - outcome.cpu_s)


def _run(sandbox: Sandbox, command: Command, limits: RunLimits) -> RunOutcome:
    proc = sandbox.run(command, limits)
    with proc:
        try:
            # Nothing is expected on the results channel: read it to its end, which comes
            # when the compiler exits or is killed for a limit.
            while proc.read_result(timeout=busy_cap_s(limits.wall_s) + 5.0) is not None:
                pass
        except (TimeoutError, OverlongLine):
            proc.kill()
    assert proc.outcome is not None  # set by finish() on leaving the block
    return proc.outcome


def _check_outcome(language: Language, outcome: RunOutcome, limits: RunLimits) -> None:
    if outcome.limit in ("cpu", "wall"):
        raise CompileError(f"compilation took longer than {limits.cpu_s:g} s")
    if outcome.limit == "memory":
        raise CompileError(f"compilation used more than {limits.memory_bytes >> 20} MiB of memory")
    text = outcome.output.decode("utf-8", "replace")
    if outcome.limit in ("output", "results"):
        cut = language.clean_compile_message(text)
        raise CompileError(
            _bounded(cut)
            + f"\n(the compiler's messages went past {limits.output_bytes >> 10} KiB: cut)"
        )
    if outcome.exit_code == 0 and outcome.output_refused is not None:
        # What the build wrote did not come out of the sandbox (a link, a fifo, too much).
        raise CompileError(f"the build's output was refused: {outcome.output_refused}")
    if outcome.exit_code != 0:
        message = language.clean_compile_message(text)
        if not message.strip():
            message = (
                f"the compiler was killed by signal {outcome.signal}"
                if outcome.signal is not None
                else f"the compiler failed (exit code {outcome.exit_code})"
            )
        raise CompileError(_bounded(message))


def _bounded(message: str) -> str:
    if len(message) > COMPILE_MESSAGE_CHARS:
        message = message[: COMPILE_MESSAGE_CHARS - 20] + "\n... (more cut)"
    return answers.clean_text(message, COMPILE_MESSAGE_CHARS)


def _read_only(directory: str) -> None:
    """Files readable (and, when executable, runnable) by the run's uid, writable by nobody;
    directories ours to remove afterwards."""
    for root, dirs, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            mode = os.lstat(path).st_mode
            os.chmod(path, 0o555 if mode & 0o100 else 0o444)
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
    os.chmod(directory, 0o755)


__all__ = ["BuildCache", "CompileError", "Program", "build_key", "built"]

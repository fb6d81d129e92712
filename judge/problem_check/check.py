"""Checking a problem package before it is accepted (on upload, and `python -m judge problem
check DIR`): `check_package(folder, sandbox) -> CheckReport`.

Each check is named and fails on its own, with a message naming what is wrong; a check that
cannot run because an earlier one failed is reported failed as "skipped: <why>". In order:

    files          the folder's names, kinds and sizes (archive.check_folder)
    problem.toml   schema and types (manifest.read_manifest), every problem listed
    statement      statement.md (and stdio.md when present)
    problem.py     loads in the sandbox and defines validate, generate and reference
    samples        every sample validates, and its answer equals the reference's
    generate       every profile, over SEEDS seeds: typed, valid, the same case twice per seed
    worst cases    WORST_CASES typed and valid
    reference      the declared type within limits.time_s of CPU on the largest generated
                   cases and WORST_CASES (a fresh host, as a grading's; its call budget is
                   CALL_TIME_FACTOR x time_s, so the time is measured and compared here)
    small tier     small_cases and canonical both or neither; each position typed and valid;
                   positions with equal canonical keys have equal reference answers
    boards         boards/ files typed and valid, and answered by the reference
    submissions    every file under submissions/<verdict>/ gets that verdict
    strength       generated mutants of the accepted Python submissions, graded like them:
                   the survivors are named as a warning (ok, never a failure)

problem.py runs only in the sandbox (ProblemHost); a host that dies (a hang, a crash) fails
the check it was in, and the next check starts a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judge.problem_check.graded import CheckFailed as _Failed
from judge.problem_check.graded import check_strength, check_submissions
from judge.problems.archive import ArchiveError, check_folder
from judge.problems.bind import BoundCode, case_key
from judge.problems.host import ProblemError, ProblemHost
from judge.problems.manifest import ManifestError, read_boards, read_manifest, read_statement
from judge.problems.package import Package, digest_of, read_stdio
from judge.problems.spec import InvalidCase
from judge.sandbox import Sandbox

SEEDS = (0, 1, 2, 3, 4)  # generate() is tried with each, for every profile
LARGEST = 3  # generated cases per profile whose reference is timed: the longest in JSON


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    message: str


@dataclass
class CheckReport:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        """The contract's form: {"ok": bool, "checks": [{"name", "ok", "message"}]}."""
        return {
            "ok": self.ok,
            "checks": [{"name": c.name, "ok": c.ok, "message": c.message} for c in self.checks],
        }


class _Session:
    """What the checks share: the package as far as it was read, a live host (started again
    after one died), and why later checks cannot run."""

    def __init__(self, folder: Path, sandbox: Sandbox) -> None:
        self.folder, self.sandbox = folder, sandbox
        self.report = CheckReport()
        self.blocked: dict[str, str] = {}  # a need -> why it is not met
        self.package: Package | None = None
        self.host: ProblemHost | None = None
        self.generated: list[tuple[str, dict[str, Any]]] = []  # (profile, case)

    def run(self, name: str, needs: tuple[str, ...], check: Callable[[], str]) -> None:
        why = next((self.blocked[n] for n in needs if n in self.blocked), None)
        if why is not None:
            self.report.checks.append(Check(name, False, f"skipped: {why}"))
            return
        try:
            self.report.checks.append(Check(name, True, check()))
        except (ManifestError, ArchiveError, _Failed, ProblemError, InvalidCase) as exc:
            message = exc.message if isinstance(exc, ProblemError) else str(exc)
            self.report.checks.append(Check(name, False, message))

    @property
    def pkg(self) -> Package:
        assert self.package is not None  # every check but the first three needs it
        return self.package

    def bound(self, fresh: bool = False) -> BoundCode:
        """problem.py's calls on a live host (a new one when `fresh`, or the last died)."""
        if fresh or self.host is None or not self.host.alive:
            self.close()
            limits = self.pkg.manifest.limits
            host = ProblemHost(
                self.sandbox, self.pkg.source(), time_s=limits.time_s, memory_mb=limits.memory_mb
            )
            try:
                host.start()  # a ProblemError leaves self.host None: problem.py did not load
            except BaseException:
                host.close()
                raise
            self.host = host
        return BoundCode(self.pkg, self.host)

    def close(self) -> None:
        if self.host is not None:
            self.host.close()
            self.host = None


def check_package(
    folder: str | Path, sandbox: Sandbox, *, submissions: bool = True, strength: bool = True
) -> CheckReport:
    """Every check of the package in `folder`; `submissions` and `strength` may be left out
    (the command line's --no-strength: mutants take the longest)."""
    session = _Session(Path(folder), sandbox)
    try:
        _declarations(session)
        _code(session)
        if submissions:
            needs = ("package", "code", "reference", "boards")
            session.run("submissions", needs, lambda: check_submissions(session.pkg, sandbox))
            if strength:
                session.run("strength", needs, lambda: check_strength(session.pkg, sandbox))
    finally:
        session.close()
    return session.report


def _declarations(s: _Session) -> None:
    """files, problem.toml, statement: the package as read, without running anything."""
    found: dict[str, Any] = {}

    def files() -> str:
        found["root"] = check_folder(s.folder)
        return "names, kinds and sizes within bounds"

    def manifest() -> str:
        found["manifest"] = m = read_manifest(found["root"])
        return f"{m.slug}: solution({', '.join(m.param_names)}) -> {m.returns}"

    def statement() -> str:
        found["statement"] = read_statement(found["root"])
        found["stdio"] = read_stdio(found["root"])
        return "statement.md" + (" and stdio.md" if found["stdio"] else "") + " read"

    s.run("files", (), files)
    if "root" not in found:
        s.blocked["package"] = "the package's files were refused"
    s.run("problem.toml", ("package",), manifest)
    s.run("statement", ("package",), statement)
    if "manifest" not in found:
        s.blocked.setdefault("package", "problem.toml was refused")
        return
    root = found["root"]
    s.package = Package(
        folder=root,
        manifest=found["manifest"],
        statement=found.get("statement", ""),
        stdio=found.get("stdio", ""),
        boards=(),
        digest=digest_of(root),
    )


def _code(s: _Session) -> None:
    """The checks that run problem.py."""

    def loads() -> str:
        return "loads in the sandbox; defines " + ", ".join(sorted(s.bound().code.defined))

    s.run("problem.py", ("package",), loads)
    if s.host is None:
        s.blocked["code"] = "problem.py did not load (see problem.py)"
    s.run("samples", ("package", "code"), lambda: _samples(s))
    s.run("generate", ("package", "code"), lambda: _generate(s))
    s.run("worst cases", ("package", "code"), lambda: _worst_cases(s))
    s.run("reference", ("package", "code", "reference"), lambda: _reference_time(s))
    s.run("small tier", ("package", "code", "reference"), lambda: _small_tier(s))
    s.run("boards", ("package", "code", "reference"), lambda: _boards(s))


def _reference_failed(s: _Session, exc: ProblemError) -> None:
    """A reference that failed (raised, hung, answered badly) blocks what needs its answers."""
    s.blocked.setdefault("reference", f"reference() failed: {exc.message}")


def _samples(s: _Session) -> str:
    code, problems = s.bound(), []
    samples = s.pkg.manifest.samples
    for number, sample in enumerate(samples):
        try:
            code.validate(sample["input"])
        except InvalidCase as exc:
            problems.append(f"samples[{number}]: validate() refuses its input: {exc}")
            continue
        try:
            got = code.reference(sample["input"])
        except ProblemError as exc:
            _reference_failed(s, exc)
            raise
        if got != sample["answer"]:
            problems.append(
                f"samples[{number}]: the answer is {case_key(sample['answer'])}, "
                f"but reference() says {case_key(got)}"
            )
    if problems:
        raise _Failed("; ".join(problems))
    return f"{len(samples)} samples valid, answered as the reference answers them"


def _generate(s: _Session) -> str:
    code = s.bound()
    profiles = list(s.pkg.manifest.profiles)
    calls = [(seed, profile) for profile in profiles for seed in SEEDS]
    first = code.call_many("generate", calls)
    again = code.call_many("generate", calls)
    for (seed, profile), case, other in zip(calls, first, again, strict=True):
        what = f"generate(seed {seed}, {profile!r})"
        if case != other:
            raise _Failed(f"{what} is not deterministic: the same seed gave two different cases")
        try:
            code.require_valid(case, what)
        except ProblemError as exc:
            raise _Failed(exc.message) from None
        s.generated.append((profile, case))
    return f"{len(profiles)} profiles x {len(SEEDS)} seeds: typed, valid, deterministic"


def _worst_cases(s: _Session) -> str:
    cases = s.bound().worst_cases()
    return f"{len(cases)} worst cases typed and valid" if cases else "none declared"


def _reference_time(s: _Session) -> str:
    """CPU of one reference call per case, in a fresh host as a grading has."""
    limit = s.pkg.manifest.limits.time_s
    code = s.bound(fresh=True)
    timed = _largest(s.generated) + [("WORST_CASES", c) for c in code.worst_cases()]
    slowest = 0.0
    for where, case in timed:
        try:
            answer = code.call("reference", case)
        except ProblemError as exc:
            _reference_failed(s, exc)
            raise _Failed(f"on {where} case {case_key(case)[:120]}: {exc.message}") from None
        wrong = code.wrong_type(answer)
        cpu = code.code.last_cpu_s or 0.0
        if wrong is not None or cpu > limit:
            why = f"answered {wrong}" if wrong else f"took {cpu:.2f} s of CPU, over {limit:g} s"
            failure = ProblemError(f"reference() on {where} case {case_key(case)[:120]} {why}")
            _reference_failed(s, failure)
            raise failure
        slowest = max(slowest, cpu)
    return f"{len(timed)} largest cases answered, at most {slowest:.3f} s of CPU each"


def _largest(generated: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """The LARGEST longest generated cases of each profile."""
    chosen = []
    for profile in dict.fromkeys(p for p, _ in generated):
        cases = [c for p, c in generated if p == profile]
        cases.sort(key=lambda c: len(case_key(c)), reverse=True)
        chosen += [(f"profile {profile!r}", c) for c in cases[:LARGEST]]
    return chosen


def _small_tier(s: _Session) -> str:
    code = s.bound()
    has = {name for name in ("small_cases", "canonical") if name in code.code.defined}
    if not has:
        return "none declared"
    if len(has) == 1:
        raise _Failed("small_cases() and canonical() go together: problem.py defines one only")
    cases, keys = code.small_table()
    for number, verdict in enumerate(code.call_many("validate", [[c] for c in cases])):
        if isinstance(verdict, InvalidCase):
            raise _Failed(f"small_cases()[{number}] {case_key(cases[number])}: {verdict}")
    try:
        answers = code.answers(cases)
    except ProblemError as exc:
        _reference_failed(s, exc)
        raise
    first: dict[Any, int] = {}
    for number, key in enumerate(keys):
        other = first.setdefault(key, number)
        if answers[other] != answers[number]:
            raise _Failed(
                f"canonical() is the same for {case_key(cases[other])} and "
                f"{case_key(cases[number])}, but reference() answers "
                f"{case_key(answers[other])} and {case_key(answers[number])}"
            )
    return f"{len(cases)} positions, {len(first)} after canonical(): consistent"


def _boards(s: _Session) -> str:
    s.blocked["boards"] = "boards/ were refused (see boards)"
    boards = read_boards(s.pkg.folder, s.pkg.manifest)
    code = s.bound()
    verdicts = code.call_many("validate", [[b.case] for b in boards])
    for board, verdict in zip(boards, verdicts, strict=True):
        if isinstance(verdict, InvalidCase):
            raise _Failed(f"boards/{board.name}: validate() refuses it: {verdict}")
    try:
        code.answers([b.case for b in boards])
    except ProblemError as exc:
        _reference_failed(s, exc)
        raise
    s.package = replace(s.pkg, boards=tuple(boards))
    del s.blocked["boards"]
    return f"{len(boards)} boards valid and answered" if boards else "no boards/"

"""`python -m judge ...`: list problems and languages, grade a file locally (sandboxed), solve
a case, check a problem package.

Other tools depend on these commands and their JSON (docs/ARCHITECTURE.md, "Contracts"):
keep them stable.
Exit codes: 0 a verdict or answer was produced (`problem check`: every check passed), 1 some
input case was invalid (`problem check`: some check failed), 2 bad usage, an unreadable file
or a refused package, 3 the sandbox is unavailable.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import os
import shutil
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from judge.sandbox import SandboxConfig, SandboxUnavailable

# The problems, the languages and the grading are imported where they are used, not here:
# `grade` starts the sandbox's start-up check first, and they load while it runs (issue 24).
if TYPE_CHECKING:
    from judge import problems
    from judge.sandbox import Sandbox
    from judge.verdict import TestResult

EXIT_INVALID, EXIT_USAGE, EXIT_NO_SANDBOX = 1, 2, 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("problems", help="list the problems")
    commands.add_parser("languages", help="list the languages, with their toolchain versions")

    g = commands.add_parser("grade", help="grade a solution file locally, in the sandbox")
    g.add_argument("problem", help="a problem's slug, or a problem package's folder")
    g.add_argument("file", type=Path)
    g.add_argument("--json", action="store_true", help="print one JSON object")
    g.add_argument(
        "--language",
        metavar="NAME",
        help="the file's language (default: from its extension: .py, .cpp/.cc, .java, .kt)",
    )
    g.add_argument(
        "--style",
        choices=("function", "stdio"),
        default="function",
        help="function: solution(...) is called per test (default); stdio: a whole program "
        "reading the problem's input format on stdin",
    )
    g.add_argument("--seed", type=int, help="seed of the random boards (default: random)")
    g.add_argument(
        "--random",
        type=int,
        dest="random_count",
        metavar="N",
        help="number of random boards (default: the problem's plan)",
    )
    g.add_argument(
        "--hidden",
        type=Path,
        metavar="CASES.jsonl",
        help='extra hidden cases, one JSON case (or {"input": case}) per line',
    )
    g.add_argument(
        "--plan",
        choices=("full", "boards"),
        default="full",
        help="full: the problem's plan and the --hidden cases (default); boards: the --hidden "
        "cases only, no samples, small positions, worst cases or random boards (the same work "
        "another judge is given, to compare with it)",
    )
    g.add_argument(
        "--diagnose",
        action="store_true",
        help="on a failing visible board, search the game tree below it for where the bug is",
    )

    s = commands.add_parser("solve", help="reference answer and an optimal line of play")
    s.add_argument("problem")
    s.add_argument(
        "--input",
        required=True,
        metavar="JSON",
        help="one case as JSON, or - to read JSON lines from stdin",
    )
    s.add_argument("--json", action="store_true", help="print JSON lines")

    m = commands.add_parser(
        "strength", help="how strong the tests are: which mutants of the reference they kill"
    )
    m.add_argument("problem")
    m.add_argument("--hidden", type=Path, metavar="CASES.jsonl", help="hidden boards, as for grade")
    m.add_argument("--seeds", type=int, default=20, metavar="K", help="random plans (default 20)")
    m.add_argument("--random", type=int, dest="random_count", metavar="N", help="boards per plan")
    m.add_argument(
        "--profiles", type=int, default=0, metavar="N", help="also rate N boards of each profile"
    )
    m.add_argument("--no-suggest", action="store_true", help="skip the suggested boards")
    m.add_argument("--jobs", type=int, default=1, metavar="N", help="processes for the seeds")
    m.add_argument(
        "--generated",
        action="store_true",
        help="also the mutants generated from an accepted solution: kill rate by how often "
        "each is wrong on random boards (slow: minutes for footholds at 100 seeds)",
    )
    m.add_argument("--json", action="store_true", help="print one JSON object")

    p = commands.add_parser("problem", help="problem packages")
    package_commands = p.add_subparsers(dest="package_command", required=True)
    c = package_commands.add_parser("check", help="check a problem package folder")
    c.add_argument("folder", type=Path)
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument(
        "--no-strength", action="store_true", help="skip grading generated mutants (the slowest)"
    )

    args = parser.parse_args(argv)
    try:
        return _command(args)
    except Exception as exc:
        status = _refusal_status(exc)
        if status is None:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return status


def collector_back_on() -> None:
    """`python -m judge` starts with the garbage collector off (judge/__main__.py): its
    passes over the modules being imported free nothing. Once they are in, they are kept out
    of later passes (gc.freeze) and the collector runs again for the work itself. Nothing to
    do when the caller left it on (a test calling main())."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _command(args) -> int:
    if args.command != "grade":  # grade turns it on once the grading's modules are in
        collector_back_on()
    if args.command == "problem":
        return check_problem(args, sys.stdout)
    if args.command == "grade":
        return grade_file(args, sys.stdout, sys.stderr)
    if args.command == "problems":
        return list_problems(sys.stdout)
    if args.command == "languages":
        return list_languages(sys.stdout)
    from judge import problems

    problem = problems.get(args.problem)
    if args.command == "strength":
        return strength(problem, args, sys.stdout, sys.stderr)
    return solve(problem, args, sys.stdin, sys.stdout)


def _refusal_status(exc: Exception) -> int | None:
    """The exit status of an error main reports in one line (`error: ...`), or None."""
    if isinstance(exc, SandboxUnavailable):
        return EXIT_NO_SANDBOX
    from judge import languages, problems
    from judge.problems.archive import ArchiveError
    from judge.problems.host import ProblemError
    from judge.problems.manifest import ManifestError

    refused = (
        problems.UnknownProblem,
        languages.NotOffered,
        languages.LanguageUnavailable,
        ArchiveError,  # this and the next two: a package refused
        ManifestError,
        ProblemError,
    )
    return EXIT_USAGE if isinstance(exc, refused) else None


def list_problems(out: TextIO) -> int:
    from judge import problems

    for slug, module in problems.registry().items():
        limits = module.LIMITS
        print(
            f"{slug:12} {module.TITLE}  (solution({', '.join(module.PARAMS)}); "
            f"{limits.time_s:g} s per test, {limits.memory_mb} MiB)",
            file=out,
        )
    return 0


def list_languages(out: TextIO) -> int:
    from judge import languages

    for name, language in languages.all_languages().items():
        try:
            version = language.version()
        except languages.LanguageUnavailable:
            version = "not installed"
        print(
            f"{name:8} {language.title:10} {' '.join(language.extensions):12} {version}", file=out
        )
    return 0


def language_of(args) -> str:
    """--language, else the language the file's extension names."""
    from judge import languages

    if args.language:
        return args.language
    found = languages.by_extension(args.file.name)
    if found is None:
        known = ", ".join(
            ext for language in languages.all_languages().values() for ext in language.extensions
        )
        raise languages.NotOffered(
            f"cannot tell the language of {args.file.name} from its extension ({known}): "
            "give --language NAME"
        )
    return found.name


def read_hidden(problem: problems.ProblemSpec, path: Path) -> list[dict[str, Any]]:
    from judge import problems

    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if isinstance(item, dict) and "input" in item and "input" not in problem.PARAMS:
            item = item["input"]
        try:
            problem.validate(item)
        except problems.InvalidCase as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        cases.append({"input": item})
    return cases


def layout_cache_dir(environ: Mapping[str, str]) -> str:
    """Where a command-line run keeps the sandbox layout: the user's cache directory."""
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "footholds-judge")


def cli_sandbox(*, check_later: bool = False) -> Sandbox:
    """The sandbox of a command-line run. A command starts once per file: keep the sandbox
    layout between runs. Whoever runs it holds the hidden boards already, so no run here
    hides anything from a later one. `check_later`: the caller calls `ready()` (make_sandbox)."""
    from judge.sandbox import make_sandbox

    try:
        config = SandboxConfig.from_environ(
            os.environ, layout_cache=layout_cache_dir(os.environ), shared_by_students=False
        )
    except ValueError as exc:
        raise SandboxUnavailable(str(exc)) from exc
    return make_sandbox(config, check_later=check_later)


@contextmanager
def _problem_of(
    problem: problems.ProblemSpec | None, args, sandbox: Sandbox
) -> Iterator[tuple[problems.ProblemSpec, list[dict[str, Any]]]]:
    """The problem to grade against and its own hidden boards: a built-in's (none), or the
    package folder's, its problem.py in a host for as long as the grading lasts."""
    if problem is not None:
        yield problem, []
        return
    from judge.problem_check.graded import bound_problem
    from judge.problems.package import Package

    sandbox.ready()
    package = Package.load(Path(args.problem))
    with bound_problem(package, sandbox) as bound:
        yield bound, [{"input": board.case, "id": board.name} for board in package.boards]


def grade_file(args, out: TextIO, err: TextIO) -> int:
    """Grade args.file against the built-in problem args.problem, or the package folder it
    names. The sandbox is made first: its start-up check runs while the problem and the
    grading load (about 50 ms of a fresh command), and is waited for before anything is read
    or printed; errors come in the order they always did (an unknown problem first)."""
    sandbox: Sandbox | None = None
    unavailable: SandboxUnavailable | None = None
    try:
        sandbox = cli_sandbox(check_later=True)
    except SandboxUnavailable as exc:
        unavailable = exc
    try:
        from judge import problems

        problem = None if Path(args.problem).is_dir() else problems.get(args.problem)
    except BaseException:
        if sandbox is not None:
            with contextlib.suppress(Exception):  # its end only: this error is the one said
                sandbox.ready()
        raise
    if unavailable is not None:
        raise unavailable
    assert sandbox is not None
    if problem is not None and args.plan == "boards" and args.hidden:
        _start_hidden_tier_early(only_boards(problem), args, sandbox)
    try:
        with _problem_of(problem, args, sandbox) as (module, boards):
            return _grade_file(module, boards, sandbox, args, out, err)
    finally:
        sandbox.discard_early()


def _start_hidden_tier_early(problem: problems.ProblemSpec, args, sandbox: Sandbox) -> None:
    """A built-in problem graded on the given boards only: their process starts while the
    grading loads (judge/grading/early.py). Best effort: whatever refuses here (a language
    not offered, an unreadable file, no free sandbox slot) is said by the grading, in the
    order it always was."""
    from judge import languages
    from judge.grading.early import start_hidden_tier_early

    if not args.file.is_file():  # a pipe (/dev/stdin) is read once, by the grading
        return
    try:
        language, style = languages.resolve(problem, language_of(args), args.style)
        start_hidden_tier_early(problem, language, style, args.file.read_bytes(), sandbox)
    except Exception:
        sandbox.discard_early()


def _grade_file(
    problem: problems.ProblemSpec,
    boards: list[dict[str, Any]],
    sandbox: Sandbox,
    args,
    out: TextIO,
    err: TextIO,
) -> int:
    from judge import languages
    from judge.execution.build import BuildCache
    from judge.grading.grade import grade

    asking = _version_meanwhile(args)
    sandbox.ready()  # refused here, before anything is read or printed, as it always was
    language = language_of(args)
    languages.resolve(problem, language, args.style)  # refused before reading anything
    try:
        source = args.file.read_bytes()
        hidden = read_hidden(problem, args.hidden) if args.hidden else []
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=err)
        return EXIT_USAGE
    random_count = args.random_count
    if args.plan == "boards":
        if not boards + hidden:
            print("error: --plan boards grades the --hidden cases: none given", file=err)
            return EXIT_USAGE
        problem = only_boards(problem)
        random_count = 0

    def progress(test: TestResult) -> None:
        print(_test_line(test), file=err if args.json else out, flush=True)

    if not args.json:
        print(f"{'#':>3} {'kind':7} {'verdict':7} {'time':>9} {'memory':>9}  message", file=out)
    if asking is not None:
        asking.join()
    collector_back_on()
    result = grade(
        problem,
        source,
        hidden_cases=boards + hidden,
        seed=args.seed,
        random_count=random_count,
        on_test=progress,
        sandbox=sandbox,
        diagnose=args.diagnose,
        language=language,
        style=args.style,
        build_cache=BuildCache.for_user(os.environ),
    )
    if args.json:
        # One write: json.dump writes each of thousands of pieces (a system call each when
        # stdout is unbuffered, PYTHONUNBUFFERED: 12-17 ms for 100 boards, json.dumps 0.6 ms).
        out.write(json.dumps(result.to_dict(), default=str) + "\n")
        return 0
    print(
        f"\n{result.verdict.value} ({result.verdict.description}): {result.passed}/"
        f"{result.total} passed, seed {result.seed}, {result.wall_ms / 1000:.2f} s "
        f"({result.language}, {result.style} style)",
        file=out,
    )
    if result.message:
        print(result.message, file=out)
    for note in result.sandbox_notes:
        print(f"note: {note}", file=out)
    for test in result.tests:
        if test.counterexample is not None:
            cx = test.counterexample
            print(
                f"\nsmallest failing board found from test {test.index}:\n"
                f"  input:    {json.dumps(cx.input)}\n  expected: {cx.expected}\n"
                f"  got:      {json.dumps(cx.got)}\n  {cx.explanation.get('summary', '')}",
                file=out,
            )
        if test.diagnosis is not None:
            print(_diagnosis_text(test.diagnosis), file=out)
    return 0


def _version_meanwhile(args) -> threading.Thread | None:
    """Ask the file's language its version (a program run outside the sandbox, which grade()
    asks first, once per process) in a thread, while the command reads its files: about 6 ms
    of Python's. Nothing is raised here: grade() asks again if this found no answer."""
    from judge import languages

    try:
        language = languages.get_language(args.language) if args.language else None
    except languages.UnknownLanguage:
        return None
    language = language or languages.by_extension(args.file.name)
    if language is None:
        return None
    asking = threading.Thread(target=_quietly, args=(language.version,), daemon=True)
    asking.start()
    return asking


def _quietly(call) -> None:
    with contextlib.suppress(Exception):
        call()


def only_boards(problem: problems.ProblemSpec) -> problems.ProblemSpec:
    """The problem with nothing planned of its own: graded, only the boards it is given."""
    return dataclasses.replace(problem, SAMPLES=(), small_tier=None, WORST_CASES=())


def check_problem(args, out: TextIO) -> int:
    """`problem check DIR`: every check of the package, ok or FAILED; 0 only if all pass."""
    from judge.problem_check.check import check_package

    report = check_package(args.folder, cli_sandbox(), strength=not args.no_strength)
    if args.json:
        out.write(json.dumps(report.to_json()) + "\n")
    else:
        width = max(len(check.name) for check in report.checks)
        for check in report.checks:
            status = "ok" if check.ok else "FAILED"
            print(f"{status:6} {check.name:{width}}  {check.message}", file=out)
        failed = sum(not check.ok for check in report.checks)
        print(
            f"\n{args.folder}: " + (f"{failed} checks FAILED" if failed else "all checks pass"),
            file=out,
        )
    return 0 if report.ok else EXIT_INVALID


def _moves(count: int) -> str:
    return f"{count} move" + ("" if count == 1 else "s")


def _diagnosis_text(diagnosis: Mapping[str, Any]) -> str:
    lines = [
        f"\nwhere is the bug ({_moves(diagnosis['depth'])} below the failing board):",
        f"  {diagnosis['summary']}",
        f"  position: {json.dumps(diagnosis['case'])}  expected {diagnosis['expected']}, "
        f"got {diagnosis['got']}",
    ]
    lines += [
        f"  one move later: {json.dumps(child['case'])}  expected and got {child['got']}"
        for child in diagnosis["children"]
    ]
    return "\n".join(lines)


def strength(problem: problems.ProblemSpec, args, out: TextIO, err: TextIO) -> int:
    """Mutation analysis of the problem's tests (judge.strength)."""
    from judge.strength.analysis import analyse
    from judge.strength.report import format_report

    try:
        hidden = read_hidden(problem, args.hidden) if args.hidden else []
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=err)
        return EXIT_USAGE
    if args.seeds < 0 or (args.random_count is not None and args.random_count < 0):
        print("error: --seeds and --random must not be negative", file=err)
        return EXIT_USAGE
    report = analyse(
        problem,
        hidden,
        args.seeds,
        random_count=args.random_count,
        profile_boards=max(args.profiles, 0),
        suggest_survivors=not args.no_suggest,
        jobs=max(args.jobs, 1),
    )
    extra = None
    if args.generated:
        from judge.strength.kill_rates import format_generated, generated_report

        extra = generated_report(
            problem, args.seeds, random_count=args.random_count, jobs=max(args.jobs, 1)
        )
    if args.json:
        data = report.to_dict()
        if extra is not None:
            data["generated"] = extra.to_dict()
        out.write(json.dumps(data) + "\n")
    else:
        print(format_report(report, shutil.get_terminal_size((120, 24)).columns), file=out)
        if extra is not None:
            print("\n" + format_generated(extra), file=out)
    return 0


def _test_line(test: TestResult) -> str:
    first = test.message.splitlines()[0] if test.message else ""
    return (
        f"{test.index:>3} {test.kind.value:7} {test.verdict.value:7} "
        f"{test.time_ms:>7.1f}ms {test.memory_kb / 1024:>7.1f}MB  {first[:80]}"
    )


def _cases(args, stdin: TextIO) -> Iterator[str]:
    if args.input == "-":
        yield from (line for line in stdin if line.strip())
    else:
        yield args.input


def solve(problem: problems.ProblemSpec, args, stdin: TextIO, out: TextIO) -> int:
    from judge import problems

    status = 0
    for text in _cases(args, stdin):
        try:
            case = json.loads(text)
            problem.validate(case)
        except (json.JSONDecodeError, problems.InvalidCase) as exc:
            status = EXIT_INVALID
            message = f"not JSON: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            if args.json:
                print(json.dumps({"error": message}), file=out, flush=True)
            else:
                print(f"error: {message}", file=out, flush=True)
            continue
        explanation = problem.explain(case)
        if args.json:
            print(json.dumps(explanation), file=out, flush=True)
        else:
            print(f"answer: {explanation['answer']}", file=out)
            if explanation.get("summary"):
                print(explanation["summary"], file=out)
            for number, move in enumerate(explanation.get("moves", []), 1):
                print(f"  {number:>2}. {_move_text(move)}", file=out)
            out.flush()
    return status


def _move_text(move: dict[str, Any]) -> str:
    return ", ".join(f"{key} {json.dumps(value)}" for key, value in move.items())

"""The submission corpus under tests/submissions/<folder>/<problem>_<name>.py, and the
submissions the built-in problem packages carry (problems/<slug>/submissions/<verdict>/).

Each file's first line says what the judge must answer: `# expect: WA` (or `# expect: RE, TLE`
where either is right for a hostile program whose failure mode depends on the machine). A
package's file gets its folder's verdict (the contract's folder names, PACKAGE_FOLDERS); the
corpus lists it under the corpus folder of that verdict, beside the files of tests/submissions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from judge import problems
from judge.problems import ProblemSpec
from judge.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent / "submissions"
# The built-in problem packages: problems/<slug>/ (their submissions/ are part of the corpus).
PACKAGES = Path(__file__).resolve().parents[2] / "problems"
# The verdict each corpus folder holds (hostile ones say theirs on their first line).
FOLDER_VERDICT = {
    "accepted": Verdict.AC,
    "wrong_answer": Verdict.WA,
    "time_limit": Verdict.TLE,
    "runtime_error": Verdict.RE,
    "compile_error": Verdict.CE,
    "memory_limit": Verdict.MLE,
}
# A package's submissions/ folder (the problem-package contract's names) -> the corpus folder
# holding the same verdict.
PACKAGE_FOLDERS = {
    "accepted": "accepted",
    "wrong_answer": "wrong_answer",
    "time_limit_exceeded": "time_limit",
    "runtime_error": "runtime_error",
}
# A language's files in a package's submissions/, by extension. Python ones are function-style
# submissions (`submissions()`); tests/submissions/python/ holds whole programs instead.
EXTENSIONS = {"python": ".py", "cpp": ".cpp", "java": ".java", "kotlin": ".kt"}
# A submission that may time out is graded with this limit per test (CPU seconds) instead of
# its problem's (footholds: 10 s, numbergame: 2 s): the judge stops it at the limit and says
# TLE all the same, without a corpus run spending the problem's full limit on each such file.
# Only files whose expected verdicts include TLE get it, so no file that must pass is graded
# with a limit the judge does not use.
TLE_TIME_S = 0.5


@cache  # one object per problem, so what the judge caches per problem (small tier) is kept
def short_limit(slug: str) -> ProblemSpec:
    """The problem `slug` with at most TLE_TIME_S per test; its other limits unchanged."""
    spec = problems.get(slug)
    limits = replace(spec.LIMITS, time_s=min(spec.LIMITS.time_s, TLE_TIME_S))
    return replace(spec, LIMITS=limits)


def graded_as(slug: str, expected: frozenset[Verdict]) -> str | ProblemSpec:
    """What a corpus test hands grade(): the problem, with the short limit when the file may
    time out (TLE among its expected verdicts)."""
    return short_limit(slug) if Verdict.TLE in expected else slug


def diagnosed(folder: str) -> bool:
    """Whether a corpus test asks for "where is the bug". A hostile file's search runs its code
    again in the sandbox, so containment must hold there too; for the rest the property is the
    verdict, and the search would spend up to its budget (5 s) on every failing file.
    test_run.py proves what the search finds, in every language."""
    return folder == "hostile"


# A correct footholds solution (plain minimax) for tests that need one to pass.
CORRECT = (ROOT / "accepted" / "footholds_minimax.py").read_text()


@dataclass(frozen=True)
class Submission:
    path: Path
    folder: str
    problem: str
    expected: frozenset[Verdict]

    @property
    def id(self) -> str:
        return f"{self.folder}/{self.path.stem}"


def expectation(path: Path) -> frozenset[Verdict]:
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
    prefix = "# expect:"
    if not first.startswith(prefix):
        raise ValueError(f"{path}: first line must be '# expect: VERDICT'")
    return frozenset(Verdict(v.strip()) for v in first[len(prefix) :].split(","))


def package_submissions(folder: str, suffix: str) -> list[tuple[str, Path]]:
    """(problem, path) of each file ending in `suffix` in the built-in packages' submissions/
    folder whose verdict is corpus `folder`'s, by problem and name."""
    found = []
    for name, corpus_folder in PACKAGE_FOLDERS.items():
        if corpus_folder == folder:
            for path in sorted(PACKAGES.glob(f"*/submissions/{name}/*{suffix}")):
                found.append((path.parents[2].name, path))
    return found


def package_expectation(path: Path, folder: str, comment: str) -> frozenset[Verdict]:
    """A package's file gets its folder's verdict; a first line saying one must agree."""
    verdict = frozenset({FOLDER_VERDICT[folder]})
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
    said = first.removeprefix(f"{comment} expect:")
    if said != first and frozenset(Verdict(v.strip()) for v in said.split(",")) != verdict:
        raise ValueError(f"{path}: its first line disagrees with its folder's verdict")
    return verdict


def submissions(*folders: str) -> list[Submission]:
    found = []
    for folder in folders:
        paths = sorted((ROOT / folder).glob("*.py"))
        packaged = package_submissions(folder, ".py")
        if not paths and not packaged:  # else the tests over it would be skipped, not failed
            raise FileNotFoundError(f"no submissions in {ROOT / folder}")
        for path in paths:
            problem = "footholds" if folder == "hostile" else path.stem.split("_", 1)[0]
            found.append(Submission(path, folder, problem, expectation(path)))
        for problem, path in packaged:
            found.append(Submission(path, folder, problem, package_expectation(path, folder, "#")))
    return found


# Other languages: tests/submissions/<language>/<folder>/<problem>_<name>.<ext>, the first line
# "// expect: VERDICT" and, for a whole program, a second line "// style: stdio" ("#" for .py);
# and the packages' files of the language's extension (not Python's: see EXTENSIONS).
@dataclass(frozen=True)
class LanguageSubmission:
    path: Path
    language: str
    folder: str
    problem: str
    style: str
    expected: frozenset[Verdict]

    @property
    def id(self) -> str:
        return f"{self.language}/{self.folder}/{self.path.name}"


def language_submissions(language: str, *folders: str) -> list[LanguageSubmission]:
    found = []
    for folder in folders:
        paths = sorted(p for p in (ROOT / language / folder).glob("*") if p.is_file())
        packaged = [] if language == "python" else package_submissions(folder, EXTENSIONS[language])
        if not paths and not packaged:  # else the tests over it would be skipped, not failed
            raise FileNotFoundError(f"no submissions in {ROOT / language / folder}")
        for path in paths:
            head = path.read_text(encoding="utf-8", errors="replace").split("\n", 2)
            comment = "#" if path.suffix == ".py" else "//"
            if not head[0].startswith(f"{comment} expect:"):
                raise ValueError(f"{path}: first line must be '{comment} expect: VERDICT'")
            verdicts = head[0].removeprefix(f"{comment} expect:").split(",")
            expected = frozenset(Verdict(v.strip()) for v in verdicts)
            problem = path.stem.split("_", 1)[0]
            style = _style(head, comment)
            found.append(LanguageSubmission(path, language, folder, problem, style, expected))
        for problem, path in packaged:
            head = path.read_text(encoding="utf-8", errors="replace").split("\n", 2)
            expected = package_expectation(path, folder, "//")
            style = _style(head, "//")
            found.append(LanguageSubmission(path, language, folder, problem, style, expected))
    return found


def _style(head: list[str], comment: str) -> str:
    """ "stdio" for a whole program (its second line says so), else "function"."""
    stdio = len(head) > 1 and head[1].strip() == f"{comment} style: stdio"
    return "stdio" if stdio else "function"

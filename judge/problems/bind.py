"""A package bound to its running code as the ProblemSpec the whole judge works with:

    with ProblemHost.for_folder(sandbox, package.folder, time_s=..., memory_mb=...) as host:
        problem = problem_spec(package, host)      # then grade(problem, source, ...)

The fields come from the manifest (slug, title, signature, limits, plan, view, samples) and
the statement; the callables call problem.py through its ProblemCode, and the optional
capabilities follow from what it defines (small_cases + canonical: the small tier; WORST_CASES;
write_input: the stdio style with stdio.md; children + COMBINE_RULE: the game tree). What
problem.py leaves out has a default: check, the return type's exact comparison; explain, the
reference's answer with no moves; shrink, no candidates.

Nothing problem.py answers is taken on trust: every reference answer is held to the declared
return type and every generated case to the signature and to validate, a mismatch being a
ProblemError naming it (during a grading: IE, an instructor's matter). Reference answers are
memoized per package version (its digest) by the case's canonical JSON, and asked for in
batches (`ProblemSpec.answers`): one round trip to the host for the whole small tier.

An uploaded version's hidden boards and worst cases are answered once, at its check
(`known_answers`), and stored with it: a grading given them (`problem_spec(..., known=)`)
asks the host neither their answers nor their validity. The host takes no phase lock, so a
host call about a hidden board during a grading would run beside other students' visible runs.
"""

from __future__ import annotations

import json
import random
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.problems.code import ImportedCode, ProblemCode
from judge.problems.host import ProblemError
from judge.problems.manifest import case_problems, shown, type_problem
from judge.problems.package import Package
from judge.problems.spec import Case, GameTree, InvalidCase, ProblemSpec, SmallTier, StdioFormat

# small_cases() enumerates every small position in one call: more than one call's budget.
SMALL_CASES_CPU_S = 30.0
# Answers kept per package version, and versions kept, in this process.
MAX_ANSWERS = 200_000
MAX_VERSIONS = 8

_answer_memo: OrderedDict[str, dict[str, Any]] = OrderedDict()
_small_memo: OrderedDict[str, tuple[list[dict[str, Any]], list[Hashable]]] = OrderedDict()
_valid_memo: OrderedDict[str, set[str]] = OrderedDict()  # case keys known valid, per version
_memo_lock = threading.Lock()


def _version_memo(memo: OrderedDict[str, Any], digest: str, fresh: Any) -> Any:
    """The entry of package version `digest` in `memo` (least recently used ones dropped)."""
    with _memo_lock:
        if digest not in memo:
            memo[digest] = fresh
            while len(memo) > MAX_VERSIONS:
                memo.popitem(last=False)
        memo.move_to_end(digest)
        return memo[digest]


def case_key(case: Case) -> str:
    """A case's canonical JSON: keys sorted, no spaces."""
    return json.dumps(case, sort_keys=True, separators=(",", ":"))


def hashable(value: Any) -> Hashable:
    """canonical()'s answer as a key: lists (the host's form of tuples) become tuples."""
    if isinstance(value, list):
        return tuple(hashable(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, hashable(item)) for key, item in value.items()))
    return value


# What a version's stored answers may take (they come from instructor code): JSON characters.
MAX_KNOWN_BYTES = 1 << 20


@dataclass(frozen=True)
class KnownAnswers:
    """The reference's answers to a package's hidden boards (in `Package.boards` order) and
    to its WORST_CASES (in order), computed once per version at its check."""

    hidden: list[Any]
    worst: list[Any]

    def to_json(self) -> dict[str, Any]:
        return {"hidden": self.hidden, "worst": self.worst}


def known_answers(package: Package, problem: ProblemSpec) -> KnownAnswers:
    """Ask the reference once for the boards' and the worst cases' answers (each checked
    against the declared type by `answers`); ProblemError when they are too big to store."""
    known = KnownAnswers(
        problem.answers([board.case for board in package.boards]),
        problem.answers(list(problem.WORST_CASES)),
    )
    size = len(json.dumps(known.to_json(), separators=(",", ":")))
    if size > MAX_KNOWN_BYTES:
        raise ProblemError(
            f"the answers of boards/ and WORST_CASES take {size} bytes as JSON "
            f"(at most {MAX_KNOWN_BYTES})"
        )
    return known


def decode_known(data: Any, package: Package) -> KnownAnswers:
    """Stored answers read back strictly: one per board and per worst case, each of the
    declared return type; ValueError saying what is wrong."""
    if type(data) is not dict or set(data) != {"hidden", "worst"}:
        raise ValueError('stored answers must be {"hidden": [...], "worst": [...]}')
    hidden, worst = data["hidden"], data["worst"]
    if type(hidden) is not list or len(hidden) != len(package.boards):
        raise ValueError(f"stored answers: not one per board ({len(package.boards)})")
    if type(worst) is not list:
        raise ValueError("stored answers: worst is not a list")
    returns = package.manifest.returns
    for number, answer in enumerate(hidden + worst):
        wrong = type_problem(answer, returns, f"stored answer {number}")
        if wrong is not None:
            raise ValueError(wrong)
    return KnownAnswers(list(hidden), list(worst))


class BoundCode:
    """problem.py's functions as the ProblemSpec's callables, checked. Calls are serialized:
    a host answers one caller at a time, and a grading asks from its solver thread too."""

    def __init__(self, package: Package, code: ProblemCode) -> None:
        self.package, self.code = package, code
        self.params = dict(package.manifest.param_types)
        self.returns = package.manifest.returns
        self.lock = threading.RLock()
        self.memo: dict[str, Any] = _version_memo(_answer_memo, package.digest, {})
        self.valid: set[str] = _version_memo(_valid_memo, package.digest, set())

    def remember(self, cases: Sequence[Case], answers: Sequence[Any]) -> None:
        """Answers known already (stored at the check): these cases are valid and answered."""
        with self.lock:
            for case, answer in zip(cases, answers, strict=True):
                key = case_key(case)
                self.memo[key] = answer
                self.valid.add(key)

    def call(self, name: str, *args: Any, cpu_s: float | None = None) -> Any:
        with self.lock:
            return self.code.call(name, *args, cpu_s=cpu_s)

    def call_many(self, name: str, args_list: Sequence[Sequence[Any]]) -> list[Any]:
        with self.lock:
            return self.code.call_many(name, args_list)

    # -- cases -------------------------------------------------------------------------------
    def validate(self, case: Any) -> None:
        """The signature first (validate may then index the case freely), then validate()."""
        wrong = case_problems(case, self.params, "case", ".")
        if wrong:
            raise InvalidCase("; ".join(wrong))
        if case_key(case) not in self.valid:  # a stored board: validated at the check
            self.call("validate", case)

    def require_valid(self, case: Any, what: str) -> None:
        """ProblemError unless `case`, which `what` produced, is typed and valid."""
        wrong = case_problems(case, self.params, what, ".")
        if wrong:
            raise ProblemError(f"{wrong[0]} (not of the signature)")
        if case_key(case) in self.valid:
            return
        try:
            self.call("validate", case)
        except InvalidCase as exc:
            raise ProblemError(f"{what} gave a case validate() refuses: {exc}") from None

    def generate(self, rng: random.Random, profile: str) -> dict[str, Any]:
        seed = rng.getrandbits(63)  # drawn from the plan's rng: the plan stays reproducible
        case = self.call("generate", seed, profile)
        self.require_valid(case, f"generate(seed {seed}, {profile!r})")
        return case

    # -- answers -----------------------------------------------------------------------------
    def reference(self, case: Case) -> Any:
        return self.answers([case])[0]

    def answers(self, cases: Sequence[Case]) -> list[Any]:
        """The reference's answers, those not memoized asked for in one batch."""
        keys = [case_key(case) for case in cases]
        # Read into `known` first: another grading of this version may clear the memo.
        known = {key: self.memo[key] for key in keys if key in self.memo}
        missing = {key: case for key, case in zip(keys, cases, strict=True) if key not in known}
        if missing:
            todo = list(missing.values())
            got = (
                [self.call("reference", todo[0])]
                if len(todo) == 1
                else self.call_many("reference", [[case] for case in todo])
            )
            for key, case, answer in zip(missing, todo, got, strict=True):
                wrong = None if isinstance(answer, InvalidCase) else self.wrong_type(answer)
                if wrong is not None or isinstance(answer, InvalidCase):
                    raise ProblemError(f"reference() on {shown(case, 120)}: {wrong or answer}")
                known[key] = answer
            if len(self.memo) + len(missing) > MAX_ANSWERS:
                self.memo.clear()  # (stored answers are given again with each spec)
            self.memo.update((key, known[key]) for key in missing)
        return [known[key] for key in keys]

    def wrong_type(self, answer: Any) -> str | None:
        """None when `answer` is of the declared return type, else what is wrong with it."""
        return type_problem(answer, self.returns, "answered")

    def check(self, case: Case, expected: Any, got: Any) -> tuple[bool, str]:
        if not self.returns.accepts(got):  # problem.py's check sees declared types only
            return self.returns.check(expected, got)
        result = self.call("check", case, expected, got)
        if type(result) is not list or len(result) != 2 or type(result[0]) is not bool:
            raise ProblemError(f"check() must return (bool, str), not {shown(result)}")
        if type(result[1]) is not str:
            raise ProblemError(f"check()'s message must be a str, not {shown(result[1])}")
        return result[0], result[1]

    def explain(self, case: Case) -> dict[str, Any]:
        result = self.call("explain", case)
        if type(result) is not dict or "answer" not in result:
            raise ProblemError(
                f'explain() must return {{"answer": ..., "moves": [...]}}, not {shown(result)}'
            )
        if type(result.setdefault("moves", [])) is not list:
            raise ProblemError("explain()'s moves must be a list")
        return result

    def default_explain(self, case: Case) -> dict[str, Any]:
        return {"answer": self.reference(case), "moves": []}

    def shrink(self, case: Case) -> list[dict[str, Any]]:
        found = self.call("shrink", case)
        if type(found) is not list:
            raise ProblemError(f"shrink() must give cases, not {shown(found)}")
        return found

    # -- the small tier ----------------------------------------------------------------------
    def small_table(self) -> tuple[list[dict[str, Any]], list[Hashable]]:
        """Every small position and its canonical key, computed once per package version."""
        digest = self.package.digest
        with self.lock:
            table = _small_memo.get(digest)
            if table is None:
                cases = self.call("small_cases", cpu_s=SMALL_CASES_CPU_S)
                if type(cases) is not list:
                    raise ProblemError(f"small_cases() must return a list, not {shown(cases)}")
                for number, case in enumerate(cases):
                    wrong = case_problems(case, self.params, f"small_cases()[{number}]", ".")
                    if wrong:
                        raise ProblemError(f"{wrong[0]} (not of the signature)")
                keys = [hashable(k) for k in self.call_many("canonical", [[c] for c in cases])]
                table = _version_memo(_small_memo, digest, (cases, keys))
        return table

    def small_cases(self, reduced: bool = True) -> list[dict[str, Any]]:
        cases, keys = self.small_table()
        if not reduced:
            return list(cases)
        seen: set[Hashable] = set()
        kept = []
        for case, key in zip(cases, keys, strict=True):
            if key not in seen:
                seen.add(key)
                kept.append(case)
        return kept

    def canonical(self, case: Case) -> Hashable:
        return hashable(self.call("canonical", case))

    # -- the rest ----------------------------------------------------------------------------
    def worst_cases(self) -> tuple[dict[str, Any], ...]:
        if "WORST_CASES" not in self.code.defined:
            return ()
        cases = self.code.attribute("WORST_CASES")
        if type(cases) is not list:
            raise ProblemError(f"WORST_CASES must be a list of cases, not {shown(cases)}")
        for number, case in enumerate(cases):
            self.require_valid(case, f"WORST_CASES[{number}]")
        return tuple(cases)

    def write_input(self, cases: Sequence[Case]) -> str:
        text = self.call("write_input", list(cases))
        if type(text) is not str:
            raise ProblemError(f"write_input() must return a str, not {shown(text)}")
        return text

    def children(self, case: Case) -> list[Case]:
        found = self.call("children", case)
        if type(found) is not list:
            raise ProblemError(f"children() must return a list of cases, not {shown(found)}")
        return found


def problem_spec(
    package: Package, code: ProblemCode, known: KnownAnswers | None = None
) -> ProblemSpec:
    """The ProblemSpec of `package` whose problem.py is `code` (a running ProblemHost, or
    ImportedCode for a built-in package). ProblemError when WORST_CASES or COMBINE_RULE is
    not what the contract says; everything else is checked as it is called. `known`: the
    version's stored answers (decode_known), remembered before anything is asked."""
    bound = BoundCode(package, code)
    if known is not None:
        bound.remember([board.case for board in package.boards], known.hidden)
        worst = code.attribute("WORST_CASES") if "WORST_CASES" in code.defined else []
        if type(worst) is list and len(worst) == len(known.worst):
            bound.remember(worst, known.worst)
    manifest, defined = package.manifest, code.defined
    small = None
    if "small_cases" in defined and "canonical" in defined:
        small = SmallTier(bound.small_cases, bound.canonical)
    game_tree = None
    if "children" in defined:
        rule = code.attribute("COMBINE_RULE") if "COMBINE_RULE" in defined else ""
        if type(rule) is not str:
            raise ProblemError(f"COMBINE_RULE must be a str, not {shown(rule)}")
        game_tree = GameTree(bound.children, rule)
    stdio = None
    if "write_input" in defined:
        stdio = StdioFormat(bound.write_input, package.stdio)
    return ProblemSpec(
        **manifest.spec_fields(package.statement),
        validate=bound.validate,
        generate=bound.generate,
        reference=bound.reference,
        check=bound.check if "check" in defined else _exact(manifest.returns),
        explain=bound.explain if "explain" in defined else bound.default_explain,
        shrink=bound.shrink if "shrink" in defined else _no_candidates,
        small_tier=small,
        WORST_CASES=bound.worst_cases(),
        STDIO=stdio,
        game_tree=game_tree,
        batch_reference=bound.answers,
    )


def _exact(returns: Any) -> Any:
    def check(case: Case, expected: Any, got: Any) -> tuple[bool, str]:
        return returns.check(expected, got)

    return check


def _no_candidates(case: Case) -> list[dict[str, Any]]:
    return []


def builtin_problem(folder: str | Path) -> ProblemSpec:
    """The ProblemSpec of a built-in package shipped inside the product (its problem.py is
    the product's own code, imported: ImportedCode). Never for an uploaded package."""
    package = Package.load(folder, builtin=True)
    code = ImportedCode(package.source(), module_name=f"judge_builtin_problem_{package.slug}")
    return problem_spec(package, code)

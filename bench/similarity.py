"""`make bench` group "similarity": precision and recall of the similarity score on the
labelled set (bench/similarity_corpus.py) at the default threshold, by length class, beside
a reference tool run on the same pairs; and the index's times in PostgreSQL (bench/scale's
database: fingerprinting N submissions into it, then one problem's top pairs).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select

from bench.similarity_corpus import PROBLEMS, ROOT, Doc, Pair, copies, labelled_pairs, originals
from similarity import fingerprints as fp
from similarity.templates import template_mask
from similarity.tokens import Token, tokenize
from store.models import SimilarPair

Report = Callable[[str, str], None]
SHORT = 150  # tokens of the smaller source: "short" below, "long" from here


@dataclass(frozen=True)
class Quality:
    precision: float
    recall: float
    pairs: int
    copies: int


def quality(scored: Sequence[tuple[Pair, float]], threshold: float) -> Quality:
    tp = sum(1 for pair, s in scored if pair.copied and s >= threshold)
    fp_ = sum(1 for pair, s in scored if not pair.copied and s >= threshold)
    copies = sum(1 for pair, _ in scored if pair.copied)
    precision = tp / (tp + fp_) if tp + fp_ else 1.0
    return Quality(precision, tp / copies if copies else 1.0, len(scored), copies)


class Ours:
    """The judge's own score (similarity/), as the worker computes it: with the
    common-fingerprint discount, each source of a problem and language counted as one
    student's (`discount` first; the worker reads the same counts from the index)."""

    def __init__(self, k: int = fp.K) -> None:
        self.k = k
        self._tokens: dict[str, tuple[list[Token], list[bool]]] = {}
        self.common: dict[tuple[str, str], frozenset[int]] = {}
        self.most_shared: dict[tuple[str, str], tuple[int, int]] = {}  # (students, of how many)

    def discount(self, pairs: Sequence[Pair]) -> None:
        """The common fingerprints of each problem and language among the pairs' sources."""
        groups: dict[tuple[str, str], dict[str, Doc]] = {}
        for pair in pairs:
            for doc in (pair.a, pair.b):
                groups.setdefault((doc.problem, doc.language), {})[doc.name] = doc
        for key, docs in groups.items():
            held = Counter(h for doc in docs.values() for h in {h for h, _ in self.prints(doc)})
            top = max(held.values(), default=0)
            self.most_shared[key] = (top, len(docs))
            self.common[key] = frozenset(h for h, n in held.items() if fp.is_common(n, len(docs)))

    def prints(self, doc: Doc) -> list[tuple[int, int]]:
        tokens, mask = self.tokens(doc)
        return fp.fingerprints(tokens, mask, self.k)

    def tokens(self, doc: Doc) -> tuple[list[Token], list[bool]]:
        if doc.name not in self._tokens:
            tokens = tokenize(doc.source, doc.language)
            self._tokens[doc.name] = (tokens, template_mask(tokens, doc.problem, doc.language))
        return self._tokens[doc.name]

    def score(self, pair: Pair) -> float:
        (ta, ma), (tb, mb) = self.tokens(pair.a), self.tokens(pair.b)
        common = self.common.get((pair.a.problem, pair.a.language), frozenset())
        return fp.compare(ta, tb, ma, mb, self.k, fragments=False, common=common).score


def length_class(ours: Ours, pair: Pair) -> str:
    smaller = min(ours.tokens(pair.a)[1].count(False), ours.tokens(pair.b)[1].count(False))
    return "short" if smaller < SHORT else "long"


def run_quality(report: Report, pairs: list[Pair] | None = None) -> dict[str, Quality]:
    pairs = labelled_pairs() if pairs is None else pairs
    ours = Ours()
    ours.discount(pairs)
    report_discount(report, ours)
    scored = [(pair, ours.score(pair)) for pair in pairs]
    results = {"all": quality(scored, fp.THRESHOLD)}
    for name in ("short", "long"):
        subset = [(p, s) for p, s in scored if length_class(ours, p) == name]
        results[name] = quality(subset, fp.THRESHOLD)
    for language in ("python", "cpp", "java", "kotlin"):
        subset = [(p, s) for p, s in scored if p.a.language == language]
        results[language] = quality(subset, fp.THRESHOLD)
    parsed = [(p, s) for p, s in scored if p.a.language != "kotlin"]
    results["python, cpp and java (Dolos's parsers)"] = quality(parsed, fp.THRESHOLD)
    for name, q in results.items():
        report(
            f"similarity (ours, threshold {fp.THRESHOLD}), {name} pairs",
            f"precision {q.precision:.3f} recall {q.recall:.3f} "
            f"({q.pairs} pairs, {q.copies} copies; goal >= 0.97 / >= 0.95)",
        )
    return results


def report_discount(report: Report, ours: Ours) -> None:
    """How much of the labelled set the common-fingerprint discount takes (each source a
    student): a set this small rarely reaches fp.COMMON_MIN_STUDENTS."""
    common = sum(len(c) for c in ours.common.values())
    key = max(ours.most_shared, key=lambda k: ours.most_shared[k][1])
    top, of = ours.most_shared[key]
    report(
        "similarity common fingerprints on the labelled set",
        f"{common} (held by >= {fp.COMMON_MIN_STUDENTS} students and > {fp.COMMON_SHARE:.0%}; "
        f"the largest group, {key[0]} in {key[1]}, has {of} sources, its most shared "
        f"fingerprint {top} of them)",
    )


@dataclass(frozen=True)
class Sizes:
    submissions: int = 10_000
    students: int = 2_500  # four submissions each, on average


POOL = 1000  # distinct disguised sources; a larger size reuses them (identical copies)


def _sources(count: int, seed: int = 1) -> list[Doc]:
    """`count` submissions made from the corpus's solutions, disguised at random: a hard case
    for the index, since every submission has many near-copies sharing its fingerprints."""
    rng = random.Random(seed)
    bases = originals()
    pool = [
        copies(bases[n % len(bases)], rng, count=1)[0] if n >= len(bases) else bases[n]
        for n in range(min(count, POOL))
    ]
    return [pool[n % len(pool)] for n in range(count)]


def run_index(report: Report, sizes: Sizes = Sizes()) -> dict[str, float]:
    """Index `sizes.submissions` submissions one by one in a fresh PostgreSQL database, as the
    worker does on arrival, then read the largest problem's top pairs as the API does."""
    import psycopg

    from bench.scale import ADMIN_DSN, PG
    from store.db import make_engine, make_session_factory
    from store.migrate import upgrade
    from store.models import Role, Submission, User
    from store.repo import similarity as index
    from worker.similarity import index_submission

    name = f"judge_similarity_{uuid.uuid4().hex[:10]}"
    admin = psycopg.connect(ADMIN_DSN, autocommit=True, connect_timeout=5)
    admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql+psycopg://{PG}/{name}"
    engine = make_engine(url)
    try:
        upgrade(url)
        factory = make_session_factory(engine)
        docs = _sources(sizes.submissions)
        with factory() as session:
            users = [
                User(username=f"s{n}", password_hash="x", role=Role.STUDENT)
                for n in range(sizes.students)
            ]
            session.add_all(users)
            session.flush()
            rows = [
                Submission(
                    user_id=users[n % len(users)].id,
                    problem=doc.problem,
                    language=doc.language,
                    source=doc.source,
                    seed=n,
                )
                for n, doc in enumerate(docs)
            ]
            session.add_all(rows)
            session.commit()
            ids = [row.id for row in rows]
        times = []
        with factory() as session:
            for submission_id in ids:
                start = time.perf_counter()
                index_submission(session, submission_id)
                times.append(time.perf_counter() - start)
        total = sum(times)
        times.sort()
        report(
            f"similarity index, {len(ids):,} submissions one by one",
            f"{total:.1f} s, {1000 * total / len(ids):.1f} ms each "
            f"(p95 {1000 * times[int(0.95 * (len(times) - 1))]:.1f} ms)",
        )
        problem = max(PROBLEMS, key=lambda p: sum(d.problem == p for d in docs))
        with factory() as session:
            start = time.perf_counter()
            top = index.pairs(session=session, problems=[problem], threshold=fp.THRESHOLD, limit=50)
            query_ms = 1000 * (time.perf_counter() - start)
            count = session.scalar(select(func.count()).select_from(SimilarPair))
        report(
            f"similarity top pairs of {problem} ({count:,} pairs stored in all)",
            f"{query_ms:.1f} ms for the top {len(top)}",
        )
        return {"index_s": total, "query_ms": query_ms}
    finally:
        engine.dispose()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


DOLOS_LANGUAGE = {"python": "python", "cpp": "cpp", "java": "java", "kotlin": "char"}
DOLOS_EXTENSION = {"python": ".py", "cpp": ".cpp", "java": ".java", "kotlin": ".txt"}


def dolos_modules() -> Path | None:
    """Where @dodona/dolos-lib is installed: $DOLOS_NODE_MODULES, or ./node_modules."""
    for folder in (os.environ.get("DOLOS_NODE_MODULES"), str(ROOT / "node_modules")):
        if folder and (Path(folder) / "@dodona" / "dolos-lib").is_dir():
            return Path(folder)
    return None


def dolos_scores(pairs: list[Pair], modules: Path) -> dict[tuple[str, str], float]:
    """Dolos's similarity of every labelled pair: one Dolos run per problem and language over
    the files of its pairs, the problem's starter template given as its `ignore` file."""
    from judge import problems
    from judge.languages import all_languages, styles_of

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths: dict[str, str] = {}
        groups: dict[tuple[str, str], list[str]] = {}
        for pair in pairs:
            for doc in (pair.a, pair.b):
                if doc.name in paths:
                    continue
                path = folder / f"{len(paths)}{DOLOS_EXTENSION[doc.language]}"
                path.write_text(doc.source)
                paths[doc.name] = str(path)
                groups.setdefault((doc.problem, doc.language), []).append(str(path))
        request = []
        for (problem, language), files in groups.items():
            spec = problems.get(problem)
            maker = all_languages()[language]
            ignore = folder / f"template-{problem}-{language}{DOLOS_EXTENSION[language]}"
            ignore.write_text("\n".join(maker.template(spec, s) for s in styles_of(spec)))
            request.append(
                {"language": DOLOS_LANGUAGE[language], "ignore": str(ignore), "paths": files}
            )
        script = folder / "dolos_reference.mjs"  # beside its node_modules, for the import
        (folder / "node_modules").symlink_to(modules)
        shutil.copy(ROOT / "bench" / "dolos_reference.mjs", script)
        out = subprocess.run(
            ["node", str(script)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        ).stdout
    by_path = {path: name for name, path in paths.items()}
    scores = {}
    for left, right, value in json.loads(out):
        a, b = by_path[left], by_path[right]
        scores[(a, b)] = scores[(b, a)] = float(value)
    return scores


def best_threshold(scored: Sequence[tuple[Pair, float]]) -> tuple[float, Quality]:
    """The threshold with the best F1 on this very set: the reference at its most favourable."""
    options = []
    for step in range(5, 100, 5):
        q = quality(scored, step / 100)
        f1 = 2 * q.precision * q.recall / (q.precision + q.recall) if q.recall else 0.0
        options.append((f1, step / 100, q))
    f1, threshold, q = max(options, key=lambda o: o[0])
    return threshold, q


def run_reference(report: Report, pairs: list[Pair] | None = None) -> dict[str, Quality] | None:
    modules = dolos_modules()
    if modules is None or shutil.which("node") is None:
        report(
            "similarity (reference: Dolos)",
            "not run: npm install @dodona/dolos-lib@3.5.1, DOLOS_NODE_MODULES=its node_modules",
        )
        return None
    pairs = labelled_pairs() if pairs is None else pairs
    ours = Ours()
    scores = dolos_scores(pairs, modules)
    scored = [(pair, scores.get((pair.a.name, pair.b.name), 0.0)) for pair in pairs]
    threshold, _ = best_threshold(scored)
    results = {"all": quality(scored, threshold)}
    for name in ("short", "long"):
        subset = [(p, s) for p, s in scored if length_class(ours, p) == name]
        results[name] = quality(subset, threshold)
    for language in ("python", "cpp", "java", "kotlin"):
        subset = [(p, s) for p, s in scored if p.a.language == language]
        results[language] = quality(subset, threshold)
    parsed = [(p, s) for p, s in scored if p.a.language != "kotlin"]
    results["python, cpp and java (Dolos's parsers)"] = quality(parsed, threshold)
    for name, q in results.items():
        report(
            f"similarity (reference: Dolos 3.5.1, its best threshold here {threshold}), "
            f"{name} pairs",
            f"precision {q.precision:.3f} recall {q.recall:.3f} ({q.pairs} pairs)",
        )
    return results


def run(report: Report, sizes: Sizes = Sizes()) -> dict[str, Quality]:
    """Every measurement of the group; returns ours by class of pairs."""
    pairs = labelled_pairs()
    ours = run_quality(report, pairs)
    run_reference(report, pairs)
    run_index(report, sizes)
    return ours

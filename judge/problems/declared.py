"""What a package declares, without its code: for the service's API, which never runs an
uploaded problem.py (only a worker does, in the sandbox).

    described = describe(Package.load(folder))    # JSON to store beside the uploaded zip
    problem = declared_spec(described)            # a ProblemSpec for the pages and the API

`declared_spec` gives the fields a page shows (title, statement, signature, limits, view,
samples, styles) and a `validate` that checks the signature's types only; a package's own
validate() runs in the worker (a run of a case it refuses reports its message). Every other
callable raises `NotDeclared`: answering needs the package's code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judge.problems.host import ProblemError
from judge.problems.manifest import Manifest, case_problems, parse_manifest
from judge.problems.package import Package
from judge.problems.spec import Case, InvalidCase, ProblemSpec, StdioFormat


class NotDeclared(ProblemError):
    """Asked of a problem known by its declarations only: its code runs in a worker."""


def describe(package: Package, toml_text: str, styles: Sequence[str] | None = None) -> dict:
    """The JSON the service keeps of a package version: problem.toml's text (read again by
    `declared_spec`), and what the pages show of it, readable as it is. `styles`: what
    problem.py offers once a worker knows; until then, "stdio" when stdio.md is there."""
    manifest = package.manifest
    if styles is None:
        styles = ["function", "stdio"] if package.stdio else ["function"]
    return {
        "toml": toml_text,
        "title": manifest.title,
        "statement": package.statement,
        "stdio": package.stdio,
        "limits": {
            "time_s": manifest.limits.time_s,
            "memory_mb": manifest.limits.memory_mb,
            "total_s": manifest.limits.total_s,
        },
        "view": {"kind": manifest.view.kind, "bounds": dict(manifest.view.bounds)},
        "signature": {
            "params": [{"name": p.name, "type": p.type.name} for p in manifest.params],
            "returns": manifest.returns.name,
        },
        "samples": [dict(s) for s in manifest.samples],
        "styles": list(styles),
        "boards": len(package.boards),
    }


def declared_spec(described: Mapping[str, Any]) -> ProblemSpec:
    """The ProblemSpec of a described package: declarations only (see the module's doc)."""
    manifest = parse_manifest(described["toml"])
    styles = described.get("styles") or ["function"]
    stdio = None
    if "stdio" in styles:
        stdio = StdioFormat(_needs_code("write_input"), str(described.get("stdio") or ""))
    return ProblemSpec(
        **manifest.spec_fields(str(described["statement"])),
        validate=_typed_only(manifest),
        generate=_needs_code("generate"),
        reference=_needs_code("reference"),
        check=_needs_code("check"),
        explain=_sample_explain(manifest),
        shrink=_needs_code("shrink"),
        STDIO=stdio,
    )


def _typed_only(manifest: Manifest) -> Any:
    params = manifest.param_types

    def validate(case: Any) -> None:
        wrong = case_problems(case, params, "case", ".")
        if wrong:
            raise InvalidCase("; ".join(wrong))

    return validate


def _needs_code(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotDeclared(f"{name}() of an uploaded problem runs in a worker only")

    return refuse


def _sample_explain(manifest: Manifest) -> Any:
    """A sample's answer as its explanation (no line of play: that needs the code)."""

    def explain(case: Case) -> dict[str, Any]:
        for sample in manifest.samples:
            if sample["input"] == case:
                return {"answer": sample["answer"], "moves": []}
        raise NotDeclared("explain() of an uploaded problem runs in a worker only")

    return explain

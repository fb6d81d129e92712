"""Page routes: HTML shells rendered with Jinja2.

A page carries no private data: its script fetches everything from /api/v1 with the bearer
token the login page stored, so authorisation stays in one place (the API). What a page does
render on the server is public to anyone who can reach the judge: the problem statements
(rendered from markdown with raw HTML disabled) and their sample boards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict
from functools import cache, lru_cache
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from api import catalog, offered_languages
from api.deps import SessionDep
from api.markdown import render_markdown
from api.web.paths import STATIC_DIR, TEMPLATES_DIR
from judge import problems
from judge.languages import all_languages, styles_of
from judge.problems import manifest
from judge.verdict import Verdict

# Everything the pages load comes from this origin: no CDN, no inline script, no framing.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


@cache
def asset_version(path: str) -> str:
    """A content hash for cache busting: /static/app.css?v=1a2b3c4d."""
    try:
        return hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:10]
    except OSError:
        return "0"


def asset(path: str) -> str:
    return f"/static/{path}?v={asset_version(path)}"


def verdict_table() -> list[dict[str, Any]]:
    """The verdicts as the scripts show them, from judge.verdict alone: every page embeds this
    table (base.html), so no script keeps names of its own. `css` names the badge-/tick-
    classes; a `failure` ran and did not pass (a skipped test never ran)."""
    return [
        {
            "code": verdict.value,
            "label": verdict.description,
            "css": verdict.value.lower(),
            "failure": verdict not in (Verdict.AC, Verdict.SKIPPED),
        }
        for verdict in Verdict
    ]


templates = Jinja2Templates(directory=TEMPLATES_DIR)
templates.env.globals["asset"] = asset
templates.env.globals["verdicts"] = verdict_table()


def _session_for_pages(request: Request, session: SessionDep) -> None:
    """Every page lists the catalog's problems: it reads them on the request's session."""
    request.state.pages_session = session


router = APIRouter(include_in_schema=False, dependencies=[Depends(_session_for_pages)])


def shown_problems(request: Request, instructor: bool = False) -> dict[str, problems.ProblemSpec]:
    """The catalog's problems (api/catalog.py): the built-ins and the published uploads; the
    built-ins alone for a page made outside a route (the not-found handler)."""
    session = getattr(request.state, "pages_session", None)
    if session is None:
        return dict(problems.registry())
    return catalog.shown(session, instructor)


def problem_list(shown: Mapping[str, problems.ProblemSpec] | None = None) -> list[dict[str, Any]]:
    # time_s: a test stopped at the limit is shown as "> limit", not as its CPU time.
    # params: a failing board copied as a call, solution(...), names them in this order.
    # view: which renderer and editor draw the problem's cases (boards.js, board-editor.js).
    return [
        {
            "slug": slug,
            "title": m.TITLE,
            "time_s": m.LIMITS.time_s,
            "view": asdict(m.VIEW),
            "params": list(m.PARAMS),  # the order of solution's arguments: a ready call
            # The signature's types ({"board": "int[][]"}): the "json" view's editor is made
            # from them (case-editor.js).
            "param_types": {name: t.name for name, t in m.PARAM_TYPES.items()},
            "builtin": slug in problems.registry(),  # else uploaded: it has versions
        }
        for slug, m in (problems.registry() if shown is None else shown).items()
    ]


def language_titles() -> list[dict[str, str]]:
    """Each language's name and title: the pages show the title wherever a verdict is."""
    return [{"name": n, "title": lang.title} for n, lang in all_languages().items()]


def page(request: Request, name: str, *, status_code: int = 200, **context: Any) -> Response:
    listed = problem_list(shown_problems(request, instructor=bool(context.get("instructor"))))
    context.setdefault("page_data", {})
    context["page_data"].setdefault("problems", listed)
    context["page_data"].setdefault("language_titles", language_titles())
    response = templates.TemplateResponse(
        request,
        name,
        {"problems": listed, "language_titles": language_titles(), **context},
        status_code=status_code,
    )
    response.headers.update(SECURITY_HEADERS)
    return response


def not_found(request: Request, what: str) -> Response:
    return page(request, "not_found.html", title="Not found", what=what, status_code=404)


@lru_cache(maxsize=256)  # per spec: an uploaded problem's new version is a new spec
def sample_explanations(module: problems.ProblemSpec) -> list[dict[str, Any]]:
    """The samples with one optimal line each (they are public: the statement shows them;
    an uploaded problem's show their answers alone: its explain() runs in a worker only)."""
    return [
        {"input": s["input"], "answer": s["answer"], "explanation": module.explain(s["input"])}
        for s in module.SAMPLES
    ]


def known_problem(
    request: Request, slug: str, instructor: bool = False
) -> problems.ProblemSpec | None:
    entry = catalog.lookup(request.state.pages_session, slug, instructor)
    return None if entry is None else entry.spec


@router.get("/", response_class=HTMLResponse)
def home() -> Response:
    return RedirectResponse("/problems", status_code=303)


@router.get("/login", response_class=HTMLResponse)
def login(request: Request) -> Response:
    return page(request, "login.html", title="Log in", nav="login", public=True)


@router.get("/register", response_class=HTMLResponse)
def register(request: Request) -> Response:
    return page(request, "register.html", title="Create an account", nav="register", public=True)


@router.get("/problems", response_class=HTMLResponse)
def problem_index(request: Request) -> Response:
    # Readable without an account (public): the problem page says that submitting needs one.
    return page(request, "problems.html", title="Problems", nav="problems", public=True)


@router.get("/problems/{slug}", response_class=HTMLResponse)
def problem_page(request: Request, slug: str) -> Response:
    module = known_problem(request, slug)
    if module is None:
        return not_found(request, f"There is no problem called “{slug}”.")
    limits = module.LIMITS
    samples = sample_explanations(module)
    offered = [s.value for s in styles_of(module)]
    per_language = [language.model_dump() for language in offered_languages.on_problem(module)]
    stdio = offered_languages.stdio_statement(module)
    return page(
        request,
        "problem.html",
        title=module.TITLE,
        nav="problems",
        public=True,
        problem={"slug": slug, "title": module.TITLE, "params": list(module.PARAMS)},
        limits=limits,
        styles=offered,
        languages=per_language,
        statement_html=render_markdown(module.STATEMENT),
        stdio_html=render_markdown(stdio) if stdio else None,
        page_data={
            "slug": slug,
            "title": module.TITLE,
            "params": list(module.PARAMS),
            "samples": samples,
            "styles": offered,
            # Each language's templates and limits here (GET /api/v1/problems/{slug} has the same).
            "languages": per_language,
        },
    )


@router.get("/submissions", response_class=HTMLResponse)
def history(request: Request) -> Response:
    return page(request, "history.html", title="Submissions", nav="history")


@router.get("/submissions/{submission_id}", response_class=HTMLResponse)
def submission(request: Request, submission_id: str) -> Response:
    if not submission_id.isdigit() or not 0 < int(submission_id) < 2**31:
        return not_found(request, "That is not a submission number.")
    return page(
        request,
        "submission.html",
        title=f"Submission #{submission_id}",
        nav="history",
        page_data={"id": int(submission_id)},
    )


@router.get("/instructor", response_class=HTMLResponse)
def instructor(request: Request) -> Response:
    return page(request, "instructor.html", title="Instructor", nav="instructor", instructor=True)


@router.get("/instructor/progress", response_class=HTMLResponse)
def progress(request: Request) -> Response:
    return page(request, "progress.html", title="Progress", nav="instructor", instructor=True)


@router.get("/assignments", response_class=HTMLResponse)
def assignments(request: Request) -> Response:
    return page(request, "assignments.html", title="Assignments", nav="assignments")


@router.get("/instructor/assignments/new", response_class=HTMLResponse)
def assignment_new(request: Request) -> Response:
    return page(
        request,
        "assignment_edit.html",
        title="New assignment",
        nav="assignments",
        instructor=True,
        page_data={"id": None},
    )


def _row_page(
    request: Request, value: str, what: str, template: str, title: str, nav: str
) -> Response:
    """An instructor's page about one row (an assignment, a pair), its id from the path: a
    number the database can hold, else the not-found page; the script reads the row."""
    row_id = int(value) if value.isdigit() and 0 < int(value) < 2**31 else None
    if row_id is None:
        return not_found(request, f"That is not {what}.")
    title = title.format(id=row_id)
    return page(request, template, title=title, nav=nav, instructor=True, page_data={"id": row_id})


@router.get("/instructor/assignments/{assignment_id}", response_class=HTMLResponse)
def assignment_edit(request: Request, assignment_id: str) -> Response:
    return _row_page(
        request,
        assignment_id,
        "an assignment number",
        "assignment_edit.html",
        "Assignment {id}",
        "assignments",
    )


@router.get("/instructor/assignments/{assignment_id}/gradebook", response_class=HTMLResponse)
def gradebook(request: Request, assignment_id: str) -> Response:
    return _row_page(
        request, assignment_id, "an assignment number", "gradebook.html", "Gradebook", "assignments"
    )


@router.get("/instructor/similarity", response_class=HTMLResponse)
def similarity(request: Request) -> Response:
    return page(request, "similarity.html", title="Similarity", nav="instructor", instructor=True)


@router.get("/instructor/similarity/{pair_id}", response_class=HTMLResponse)
def similarity_pair(request: Request, pair_id: str) -> Response:
    return _row_page(
        request, pair_id, "a pair number", "similarity_pair.html", "Similar pair", "instructor"
    )


@router.get("/instructor/users", response_class=HTMLResponse)
def users(request: Request) -> Response:
    return page(request, "users.html", title="Users", nav="instructor", instructor=True)


@router.get("/instructor/problems", response_class=HTMLResponse)
def problem_packages(request: Request) -> Response:
    # Every problem (built-in and uploaded, in any state) comes from GET /problems/manage.
    return page(
        request, "packages.html", title="Problem packages", nav="instructor", instructor=True
    )


@router.get("/instructor/problems/{slug}/versions", response_class=HTMLResponse)
def versions(request: Request, slug: str) -> Response:
    # An uploaded problem students do not see (a draft, hidden, retired) has its page too:
    # only the slug's form is checked here; the page's script asks the API for the versions
    # (404 for a problem never uploaded) and shows the title they carry.
    if not manifest.SLUG[0].fullmatch(slug):
        return not_found(request, f"There is no problem called “{slug}”.")
    return page(
        request,
        "versions.html",
        title=f"Versions · {slug}",
        nav="instructor",
        instructor=True,
        problem={"slug": slug},
        page_data={"slug": slug},
    )


def problem_tool(
    request: Request, slug: str, template: str, heading: str, *, samples: bool = False
) -> Response:
    """An instructor's page of one problem (its boards, strength, statistics): titled
    "`heading` · the problem's title", 404 for a problem the judge does not have. The page's
    script reads the slug and the title, and with `samples` the sample boards' inputs."""
    module = known_problem(request, slug, instructor=True)
    if module is None:
        return not_found(request, f"There is no problem called “{slug}”.")
    data: dict[str, Any] = {"slug": slug, "title": module.TITLE}
    if samples:
        data["samples"] = [s["input"] for s in module.SAMPLES]
    return page(
        request,
        template,
        title=f"{heading} · {module.TITLE}",
        nav="instructor",
        instructor=True,
        problem={"slug": slug, "title": module.TITLE},
        page_data=data,
    )


@router.get("/instructor/problems/{slug}/boards", response_class=HTMLResponse)
def boards(request: Request, slug: str) -> Response:
    return problem_tool(request, slug, "boards.html", "Hidden boards", samples=True)


@router.get("/instructor/problems/{slug}/strength", response_class=HTMLResponse)
def strength(request: Request, slug: str) -> Response:
    return problem_tool(request, slug, "strength.html", "Test strength")


@router.get("/instructor/problems/{slug}/stats", response_class=HTMLResponse)
def stats(request: Request, slug: str) -> Response:
    return problem_tool(request, slug, "stats.html", "Statistics")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    return RedirectResponse(asset("favicon.svg"), status_code=308)

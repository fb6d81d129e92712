"""Web pages of the judge: Jinja2 page shells, static JS/CSS, and the JSON the pages need.

`install(app)` adds everything to an app built by `api.main.create_app`:

- page routes at the site root (`/`, `/login`, `/problems/{slug}`, `/submissions/{id}`, ...):
  public HTML shells; their scripts fetch data from `/api/v1` with the bearer token kept in
  the browser, so the API alone decides who may see what;
- `/static/...`: the scripts, the style sheet and the icons (no CDN, no build step);
- a few JSON endpoints under `/api/v1` that only the pages need (board preview, statistics,
  the optimal line of a visible test, the planned test count).
"""

from __future__ import annotations

import inspect

from fastapi import FastAPI, Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.lti import web as lti_web
from api.web import endpoints, pages
from api.web.paths import STATIC_DIR

NOT_PAGES = ("/api/", "/static/", "/docs", "/redoc", "/openapi.json", "/healthz")


def install(app: FastAPI) -> None:
    app.include_router(endpoints.router, prefix="/api/v1")
    app.include_router(pages.router)
    app.include_router(lti_web.router)  # /lti/...: what an LMS talks to (docs/lti.md)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    previous = app.exception_handlers.get(StarletteHTTPException, http_exception_handler)

    async def page_not_found(request: Request, exc: Exception) -> Response:
        """A browser asking for a page that does not exist gets a page, not JSON."""
        if (
            isinstance(exc, StarletteHTTPException)
            and exc.status_code in (404, 405)
            and request.method == "GET"
            and not request.url.path.startswith(NOT_PAGES)
            and "text/html" in request.headers.get("accept", "")
        ):
            return pages.not_found(request, "There is no page at this address.")
        response = previous(request, exc)  # Starlette's handlers may be sync or async
        return await response if inspect.isawaitable(response) else response

    app.add_exception_handler(StarletteHTTPException, page_not_found)

"""Where the pages' files are: a module of its own, so that `api.web` (which mounts them)
and `api.web.pages` (which renders them) both import it and not each other."""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static"
TEMPLATES_DIR = Path(__file__).parent / "templates"

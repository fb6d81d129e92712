"""Problem statements: markdown to HTML, with raw HTML escaped rather than passed through."""

from functools import cache

from markdown_it import MarkdownIt


@cache
def render_markdown(text: str) -> str:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    return md.render(text)

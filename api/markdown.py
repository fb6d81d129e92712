"""Problem statements: markdown to HTML, with raw HTML escaped rather than passed through."""

from functools import cache

from markdown_it import MarkdownIt

# A wide table scrolls sideways in its own box (a phone's screen), which the keyboard must be
# able to reach and scroll: the box takes focus and is named as a region.
TABLE_OPEN = '<div class="md-table" tabindex="0" role="region" aria-label="Table">\n<table>\n'
TABLE_CLOSE = "</table>\n</div>\n"


@cache
def render_markdown(text: str) -> str:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.add_render_rule("table_open", lambda *_: TABLE_OPEN)
    md.add_render_rule("table_close", lambda *_: TABLE_CLOSE)
    return md.render(text)

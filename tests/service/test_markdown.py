from api.markdown import render_markdown


def test_statement_markdown_escapes_raw_html():
    html = render_markdown("# Title\n\n<script>alert(1)</script>\n\n| a |\n|---|\n| 1 |\n")
    assert "<h1>Title</h1>" in html and "<table>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_a_statement_table_scrolls_in_a_box_the_keyboard_reaches():
    html = render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert html.startswith('<div class="md-table" tabindex="0" role="region" aria-label="Table">')
    assert html.rstrip().endswith("</table>\n</div>")

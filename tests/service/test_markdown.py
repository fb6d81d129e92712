from api.markdown import render_markdown


def test_statement_markdown_escapes_raw_html():
    html = render_markdown("# Title\n\n<script>alert(1)</script>\n\n| a |\n|---|\n| 1 |\n")
    assert "<h1>Title</h1>" in html and "<table>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html

"""Source files a page lists in full, published beside the site instead of inlined in the page.

A page shows a listing as a collapsed `<details class="example aih-source">` holding a link to the file. The
build publishes the file at code/<path> (to read or download; the link works without JavaScript) and beside it
code/<path>.highlight: the listing highlighted as the page's code blocks are (Pygments, as pymdownx.highlight
calls it), an HTML fragment that docs/javascripts/site.js puts in the block when the reader opens it (named so
that nothing takes it for a page). Inline, a page's listings were up to a tenth of its gzipped HTML.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def source_listings(*paths):
    """-> public(data) for a Snippets declaration: {code/<path>: the file, code/<path>.highlight: it highlighted}."""
    def public(_):
        from pygments import highlight  # noqa: PLC0415
        from pygments.formatters import HtmlFormatter  # noqa: PLC0415
        from pygments.lexers import PythonLexer  # noqa: PLC0415

        files = {}
        for path in paths:
            text = (ROOT / path).read_text(encoding="utf-8")
            files[f"code/{path}"] = text
            files[f"code/{path}.highlight"] = highlight(text, PythonLexer(), HtmlFormatter(wrapcode=True))
        return files
    return public

"""The line "Every symbol on this page is listed in the notation table" (overrides/partials/notation-link.md), which
pymdownx.snippets' auto_append puts at the foot of every page, left off the two pages where it is not true or not
needed: Home, which holds the notation table, and the print edition, whose sections each bring their own line
(hooks/print_edition.py copies each page's article, the line included).
"""
import re

from mkdocs.exceptions import PluginError

NOTATION_PAGE = "index.md"  # the partial links its #notation
PRINT_PAGE = "print.md"
_LINE = re.compile(r'\s*<hr />\s*<p class="aih-notation-link">.*?</p>\s*$', re.S)


def on_page_content(html, page, config, files):
    if page.file.src_uri not in (NOTATION_PAGE, PRINT_PAGE):
        return html
    html, count = _LINE.subn("\n", html)
    if count != 1:
        raise PluginError(f"notation_link hook: {page.file.src_uri} does not end with the notation table's line "
                          "(overrides/partials/notation-link.md) to leave off")
    return html

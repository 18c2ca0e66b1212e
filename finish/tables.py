"""Wrap Markdown's tables when the site is finished, as the theme's script would at load, so that it has none to move.

At DOMContentLoaded the theme's script takes every `table:not([class])` out of the page and puts it back inside
`<div class="md-typeset__scrollwrap"><div class="md-typeset__table">` (what that cost: DECISIONS.md).

This job writes that wrapper into the HTML and gives each table the class `aih-table`, which the script's
selector leaves alone. The theme styles only `table:not([class])`, so site.css gives `.aih-table` the theme's
table rules (tests/test_site.py checks that they still match the theme's). Readers without JavaScript get the
same wrapper, so the same horizontal scrolling on a phone.
"""
import re

from .site import with_article

# Python-Markdown writes a table's tag bare (hooks/search_text.py may have marked it for the search index to leave
# out); a table with other attributes (a figure's numbers) is someone else's.
_TABLE = re.compile(r"<table( data-search-exclude)?>(.*?)</table>", re.S)
WRAPPED = r'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="aih-table"\1>\2</table></div></div>'


def wrap_tables(html):
    return _TABLE.sub(WRAPPED, html)


def run(site):
    for page in site.pages:
        if page.url != "404.html":
            page.update(with_article(page.html, page.name, wrap_tables))

"""Wrap Markdown's tables at build time, as the theme's script would at load, so that it has none to move.

At DOMContentLoaded the theme's script takes every `table:not([class])` out of the page and puts it back inside
`<div class="md-typeset__scrollwrap"><div class="md-typeset__table">`. Its next read of an element's size then
restyles the whole article and lays out each moved table again, all inside that one task: on the learning page
(twelve tables) a third of it, and Lighthouse on a phone, 6 paired runs: 90 -> 96, blocking time 385 -> 220 ms.

This hook writes that wrapper into the HTML and gives each table the class `aih-table`, which the script's
selector leaves alone. The theme styles only `table:not([class])`, so site.css gives `.aih-table` the theme's
table rules (tests/test_site.py checks that they still match the theme's). Readers without JavaScript get the
same wrapper, so the same horizontal scrolling on a phone. A tool that runs no hooks ships the bare tables,
which the theme's script wraps as before.
"""
import re

# Python-Markdown writes a table's tag bare; a table with attributes (a figure's numbers) is someone else's.
_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
WRAPPED = r'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="aih-table">\1</table></div></div>'


def wrap_tables(html):
    return _TABLE.sub(WRAPPED, html)


def on_page_content(html, page, config, files):
    return wrap_tables(html)
